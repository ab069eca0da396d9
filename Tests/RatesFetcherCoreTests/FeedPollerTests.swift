import Bus
import Feeds
import Foundation
import Market
import TickwireContract
import Money
import Synchronization
import Testing
import TickwireFeeds

/// A clock that moves 10 s each time it is read, starting at a whole second.
private final class SteppingClock: Sendable {
    let start = Date(timeIntervalSince1970: 1_765_000_000)
    private let reads = Mutex(0)

    /// The time of the `n`th read (0-based).
    func time(_ n: Int) -> Date { start.addingTimeInterval(TimeInterval(n * 10)) }

    var now: @Sendable () -> Date {
        { [self] in time(reads.withLock { count in defer { count += 1 }; return count }) }
    }
}

/// What the test job does next: publish a GNB rate, or fail with a message.
private final class JobScript: Sendable {
    private let state = Mutex<(rate: String, failure: String?, calls: Int)>(("1.359", nil, 0))

    var calls: Int { state.withLock { $0.calls } }
    func succeed(rate: String) { state.withLock { $0 = (rate, nil, $0.calls) } }
    func fail(_ message: String) { state.withLock { $0.failure = message } }

    func run() throws -> [FeedPublication] {
        let (rate, failure) = state.withLock { state in
            state.calls += 1
            return (state.rate, state.failure)
        }
        if let failure { throw FeedError.notInFixtures(failure) }
        return [FeedPublication(ExchangeRate(from: "EUR", to: "USD", rate: try ExactDecimal(rate)), on: try Topics.rate(source: "gnb", from: "EUR", to: "USD"))]
    }
}

/// A gate a job waits at until the test opens it.
private actor Gate {
    private var isOpen = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    func wait() async {
        if isOpen { return }
        await withCheckedContinuation { waiters.append($0) }
    }

    func open() {
        isOpen = true
        waiters.forEach { $0.resume() }
        waiters = []
    }
}

/// A built-in feed's runner publishing on the hub's own publisher (``FeedSink/publisher(_:name:)``), as rates-fetcher runs it.
@Suite("Feed runner in the hub")
struct FeedPollerTests {
    /// A good poll publishes the values and `status.gnb` ok; a failing one keeps the values, and reports
    /// the error with the earlier lastSuccess; the next good poll recovers.
    @Test func failureKeepsLastGoodValues() async throws {
        let bus = try TestPublisher()
        let clock = SteppingClock()
        let script = JobScript()
        let poller = FeedRunner(
            sink: .publisher(bus.publisher, name: "gnb"), job: .poll(every: .seconds(3600)) { try script.run() }, statusEveryPoll: true,
            logger: quietLogger, now: clock.now)
        let before = await poller.status
        #expect(before.state == .stale)
        #expect(before.message == "not polled yet")
        #expect(bus.topics().isEmpty)

        let ok = await poller.poll()
        #expect(ok == FeedStatus(feed: "gnb", state: .ok, lastSuccess: clock.time(0), lastAttempt: clock.time(0)))
        #expect(bus.topics() == ["rate.gnb.EUR-USD", "status.gnb"])
        #expect(try bus.envelope("rate.gnb.EUR-USD", as: ExchangeRate.self)?.data.rate == (try ExactDecimal("1.359")))
        #expect(try bus.envelope("status.gnb", as: FeedStatus.self)?.data == ok)

        script.fail("gnb is down")
        let failed = await poller.poll()
        #expect(failed.state == .error)
        #expect(failed.message == String(describing: FeedError.notInFixtures("gnb is down")))
        #expect(failed.message?.contains("gnb is down") == true)
        #expect(failed.lastSuccess == clock.time(0))
        #expect(failed.lastAttempt == clock.time(1))
        #expect(await poller.status == failed)
        #expect(try bus.envelope("rate.gnb.EUR-USD", as: ExchangeRate.self)?.data.rate == (try ExactDecimal("1.359")))
        #expect(bus.seq("rate.gnb.EUR-USD") == 1)
        #expect(try bus.envelope("status.gnb", as: FeedStatus.self)?.data == failed)
        #expect(bus.seq("status.gnb") == 2)

        script.succeed(rate: "1.4")
        let recovered = await poller.poll()
        #expect(recovered == FeedStatus(feed: "gnb", state: .ok, lastSuccess: clock.time(2), lastAttempt: clock.time(2)))
        #expect(try bus.envelope("rate.gnb.EUR-USD", as: ExchangeRate.self)?.data.rate == (try ExactDecimal("1.4")))
        #expect(bus.seq("rate.gnb.EUR-USD") == 2)
        #expect(script.calls == 3)
        await bus.close()
    }

    /// A feed that fails on its first poll reports the error with no lastSuccess and publishes no values.
    @Test func firstPollFailing() async throws {
        let bus = try TestPublisher()
        let script = JobScript()
        script.fail("no route to host")
        let poller = FeedRunner(
            sink: .publisher(bus.publisher, name: "bitso"), job: .poll(every: .seconds(30)) { try script.run() }, statusEveryPoll: true,
            logger: quietLogger)
        let status = await poller.poll()
        #expect(status.state == .error)
        #expect(status.lastSuccess == nil)
        #expect(status.lastAttempt != nil)
        #expect(bus.topics() == ["status.bitso"])
        #expect(try bus.envelope("status.bitso", as: FeedStatus.self)?.data.state == .error)
        await bus.close()
    }

    /// Polls that arrive while one is under way join it: the job runs once and all get its status.
    @Test func concurrentPollsRunTheJobOnce() async throws {
        let bus = try TestPublisher()
        let script = JobScript()
        let gate = Gate()
        let (started, startedContinuation) = AsyncStream<Void>.makeStream()
        let poller = FeedRunner(sink: .publisher(bus.publisher, name: "gnb"), job: .poll(every: .seconds(3600)) {
            let publications = try script.run()
            startedContinuation.yield()
            await gate.wait()
            return publications
        }, statusEveryPoll: true, logger: quietLogger, now: SteppingClock().now)
        let first = Task { await poller.poll() }
        var iterator = started.makeAsyncIterator()
        _ = await iterator.next()  // the job is running and held at the gate
        let joiners = (0..<4).map { _ in Task { await poller.poll() } }
        // The joiners cannot finish while the gate is shut; give them time to reach the poller.
        try await Task.sleep(for: .milliseconds(300))
        await gate.open()

        let leader = await first.value
        var statuses: [FeedStatus] = []
        for joiner in joiners { statuses.append(await joiner.value) }
        #expect(script.calls == 1)
        #expect(leader.state == .ok)
        #expect(statuses.allSatisfy { $0 == leader })
        #expect(bus.seq("status.gnb") == 1)

        // Once it is over, the next poll runs the job again.
        let next = Task { await poller.poll() }
        _ = await iterator.next()
        let after = await next.value
        #expect(script.calls == 2)
        #expect(after.lastAttempt != leader.lastAttempt)
        await bus.close()
    }
}
