import BusContract
import Foundation
import Logging
import Money
import PresenterViews
import Testing
import TickwireContract
import Synchronization
import Tracing
@testable import PresenterCore

/// How the presenter's live events go on in the traces they came in: a conflated price keeps the latest price's
/// context, a change keeps its trace for the page's reload, and the followed streams are taken in within the
/// caller's wrapping (a span of each message's trace).
@Suite("trace continuation in the presenter")
struct TraceContinuationTests {
    /// Marks a context, to tell which one an event carries.
    private enum Mark: ServiceContextKey {
        typealias Value = Int
    }

    private static func price(_ asset: String, _ value: Int) -> AssetPrice {
        AssetPrice(asset: asset, currency: "USD", price: ExactDecimal(value), changePercent24h: nil, path: [asset, "USD"], quoteTime: nil)
    }

    private static func trace(_ id: Character) -> TraceContext {
        TraceContext(traceparent: "00-\(String(repeating: id, count: 32))-00f067aa0ba902b7-01", tracestate: "t=\(id)")
    }

    /// A waiting price replaced by newer ones goes out in the context the latest was sent in (its quote's span).
    @Test func aConflatedPriceKeepsTheLatestPricesContext() async {
        let broadcast = PriceBroadcast()
        let slow = broadcast.subscribe(currency: "USD")
        for value in 1...3 {
            var context = ServiceContext.topLevel
            context[Mark.self] = value
            ServiceContext.withValue(context) { broadcast.send(Self.price("BTC", value)) }
        }
        broadcast.send(Self.price("ETH", 7))
        broadcast.close()
        var received: [PriceBroadcast.Event] = []
        for await event in slow { received.append(event) }
        #expect(received == [.price(Self.price("BTC", 3)), .price(Self.price("ETH", 7))])
        guard case .price(_, let context) = received.first else {
            Issue.record("no price")
            return
        }
        #expect(context?[Mark.self] == 3)
        guard case .price(_, let none) = received.last else { return }
        #expect(none == nil, "a price sent outside any context carries none")
    }

    /// A waiting change joins the kinds of later ones and keeps the latest trace a change had: one without a trace
    /// (the watch's sampling) does not drop the trade's.
    @Test func aConflatedChangeKeepsTheLatestTrace() {
        var events = ConflatingEvents()
        events.add(.changed(["portfolio"], trace: Self.trace("a")))
        events.add(.changed(["assets"]))
        #expect(events.take() == .changed(["assets", "portfolio"], trace: Self.trace("a")))
        events.add(.changed(["portfolio"], trace: Self.trace("a")))
        events.add(.changed(["portfolio"], trace: Self.trace("b")))
        #expect(events.take() == .changed(["portfolio"], trace: Self.trace("b")))
        events.add(.changed(["coin"]))
        #expect(events.take() == .changed(["coin"], trace: nil))
        #expect(events.take() == nil)
    }

    /// The `changed` event carries the change's `traceparent` and `tracestate` for the page's reload; one without a
    /// trace has neither.
    @Test func theChangedEventCarriesItsTrace() {
        let traced = ChangedEvent(kinds: ["portfolio"], initial: false, trace: Self.trace("c")).sse
        #expect(traced.hasPrefix("event: changed\ndata: {"))
        #expect(traced.contains(#""traceparent":"00-cccccccccccccccccccccccccccccccc-00f067aa0ba902b7-01""#))
        #expect(traced.contains(#""tracestate":"t=c""#))
        let plain = ChangedEvent(kinds: ["assets"], initial: true).sse
        #expect(!plain.contains("traceparent") && !plain.contains("tracestate"))
    }

    /// Each portfolio change is taken in within the caller's wrapping of its trace, and heard of inside it (so what
    /// `changed` sends goes on in the change's trace); each price too.
    @Test func followedStreamsAreTakenInWithinTheirTraces() async throws {
        let state = PresenterState(logger: Logger(label: "test"))
        let change = StreamUpdate(topic: Topics.portfolioChanged.topic, seq: 1, time: Date(), source: "portfolio",
                                  value: PortfolioChange(reason: "trades.add", subject: "t1"), trace: Self.trace("d"))
        let heard = Recorder()
        let changes = AsyncStream<StreamEvent<PortfolioChange>> {
            $0.yield(.update(change))
            $0.finish()
        }
        await state.follow(portfolio: changes) { trace, body in
            heard.record("within \(trace?.traceparent ?? "none")")
            body()
            heard.record("within ends")
        } changed: { change in
            heard.record("changed \(change.subject)")
        }
        #expect(heard.lines == ["within 00-dddddddddddddddddddddddddddddddd-00f067aa0ba902b7-01", "changed t1", "within ends"])
        #expect(await state.streams["portfolio"] == "ok")

        let price = StreamUpdate(topic: try Topics.price(asset: "BTC", currency: "USD").topic, seq: 2, time: Date(), source: "converter",
                                 value: Self.price("BTC", 5), trace: Self.trace("e"))
        let prices = AsyncStream<StreamEvent<AssetPrice>> {
            $0.yield(.update(price))
            $0.finish()
        }
        let traces = Recorder()
        await state.follow(prices: prices) { trace, body in
            traces.record(trace?.tracestate ?? "none")
            body()
        }
        #expect(traces.lines == ["t=e"])
        #expect(await state.price("BTC", in: "USD")?.price == ExactDecimal(5))
    }
}

/// Lines recorded from `@Sendable` closures.
private final class Recorder: Sendable {
    private let store = Mutex<[String]>([])
    var lines: [String] { store.withLock { $0 } }
    func record(_ line: String) { store.withLock { $0.append(line) } }
}
