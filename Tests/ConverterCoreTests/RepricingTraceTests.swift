import BusContract
import Conversion
import Foundation
import Logging
import Synchronization
import Testing
import TickwireContract

/// The converter re-prices each update inside `within`, given the update's trace context, so the prices it
/// publishes go out in the quote's trace.
@Test func followRepricesEachUpdateWithinItsTrace() async throws {
    let state = ConverterState(currencies: ["USD", "SEK"], logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    let trace = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "a=1")
    var quote = try quoteMessage("coingecko", "BTC", "USD", last: "71000", seq: 2)
    quote.trace = trace
    let (events, feed) = AsyncStream.makeStream(of: StreamEvent<FetcherUpdate>.self)
    feed.yield(.snapshot([try rateMessage("ecb", "USD", "SEK", "10"), try quoteMessage("coingecko", "BTC", "USD", last: "70000")]))
    feed.yield(.update(quote))
    feed.finish()
    // Each published price with the traceparent of the `within` call it was published in ("none" without one).
    let current = Mutex<TraceContext?>(nil)
    let published = Mutex<[String: String]>([:])
    let traces = Mutex<[TraceContext?]>([])
    await state.follow(events) { price in
        let traceparent = current.withLock { $0?.traceparent } ?? "none"
        published.withLock { $0["\(price.asset)/\(price.currency) \(price.price)"] = traceparent }
    } within: { trace, reprice in
        traces.withLock { $0.append(trace) }
        current.withLock { $0 = trace }
        reprice()
        current.withLock { $0 = nil }
    }
    #expect(traces.withLock { $0 } == [nil, trace], "the snapshot has no one trace; the update has its quote's")
    #expect(published.withLock { $0 } == [
        "BTC/USD 70000.00000000": "none", "BTC/SEK 700000.00000000": "none",
        "BTC/USD 71000.00000000": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
        "BTC/SEK 710000.00000000": "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",
    ])
}
