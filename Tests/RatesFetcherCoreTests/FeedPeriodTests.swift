import Bus
import Foundation
import RatesFetcherCore
import RatesFetcherEngine
import Synchronization
import Testing
import TickwireFeeds

/// A test clock for a poller's waits: records each sleep asked for and returns at once, stopping the poller
/// (by throwing cancellation) after `rounds` sleeps, so no test waits in real time.
private final class RecordingSleep: Sendable {
    private let state = Mutex<(sleeps: [Duration], polls: [Int])>(([], []))
    private let rounds: Int
    private let polls = Mutex(0)

    init(rounds: Int) { self.rounds = rounds }

    /// Sleeps asked for, each with the number of polls done before it.
    var record: [(Duration, Int)] { state.withLock { Array(zip($0.sleeps, $0.polls)) } }

    func polled() { polls.withLock { $0 += 1 } }

    var sleep: @Sendable (Duration) async throws -> Void {
        { [self] duration in
            let done = polls.withLock { $0 }
            let count = state.withLock { state in
                state.sleeps.append(duration)
                state.polls.append(done)
                return state.sleeps.count
            }
            if count >= rounds { withUnsafeCurrentTask { $0?.cancel() } }
        }
    }
}

/// What the exercise asks of each feed's period, and that a poller keeps it: it polls at once, then waits
/// exactly its period between polls (checked with a recording clock, no real waiting).
@Suite("Feed periods")
struct FeedPeriodTests {
    /// Each feed's period, live and mock, as the README and docs/protocol.md list them.
    static let expected: [(BuiltInFeed, live: Duration, mock: Duration)] = [
        (.bitso, .seconds(30), .seconds(1)),
        (.wazirx, .seconds(60), .seconds(1)),
        (.fiat, .seconds(300), .seconds(10)),
        (.coingecko, .seconds(60), .seconds(1)),
        (.gnb, .seconds(3600), .seconds(3600)),
        (.masterdata, .seconds(3600), .seconds(3600)),
    ]

    /// Every feed is in the table.
    @Test func everyFeedHasAnExpectedPeriod() {
        #expect(Self.expected.map(\.0.name).sorted() == BuiltInFeed.all.map(\.name).sorted())
    }

    /// Fiat rates every 5 minutes live and 10 s mocked, coins every minute live, Bitso every 30 s: the selection
    /// gives each feed its period, a poller started with it polls on start and then after each period.
    @Test(arguments: Self.expected.map(\.0))
    func pollerKeepsThePeriod(feed: BuiltInFeed) async throws {
        let row = try #require(Self.expected.first { $0.0.name == feed.name })
        for (variant, period) in [(FeedVariant.live, row.live), (.mock, row.mock)] {
            let selection = FeedSelection(defaultVariant: variant)
            #expect(selection.period(of: feed) == period, "\(feed) \(variant)")
            #expect((variant == .live ? feed.livePeriod : feed.mockPeriod) == period)

            let bus = try TestPublisher()
            let clock = RecordingSleep(rounds: 3)
            let poller = FeedRunner(
                sink: .publisher(bus.publisher, name: feed.name),
                job: .poll(every: selection.period(of: feed)) {
                    clock.polled()
                    return []
                },
                logger: quietLogger, sleep: clock.sleep)
            try await Task { try await poller.run() }.value
            let record = clock.record
            #expect(record.map(\.0) == [period, period, period], "\(feed) \(variant) waits its period between polls")
            #expect(record.map(\.1) == [1, 2, 3], "\(feed) \(variant) polls on start, then once per period")
            await bus.close()
        }
    }

    /// `--period FEED=SECONDS` overrides a feed's period, and the poller waits that instead.
    @Test func periodFlagOverrides() async throws {
        let selection = try FetcherOptions.parse(["--period", "fiat=120", "--feeds", "live"]).configuration(environment: [:]).selection
        #expect(selection.period(of: .fiat) == .seconds(120))
        #expect(selection.period(of: .coingecko) == .seconds(60))
    }
}
