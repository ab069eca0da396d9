import BusContract
import Foundation
import PriceAlertsAPI
import PriceAlertsCore
import Synchronization
import Testing
import TickwireContract

@Suite("Traces: alerts go on in their price's trace")
struct TraceTests {
    /// Each price is applied within the caller's wrapping of its trace (the service's: a span of it), and the alert it
    /// fires is published inside, so the alert's envelope carries the price's trace.
    @Test func anAlertIsPublishedWithinItsPricesTrace() async throws {
        let steps = Mutex<[String]>([])
        let state = PriceAlertsState(store: try .inMemory(), publish: { alert in
            steps.withLock { $0.append("published \(alert.price)") }
        }, logger: quiet, now: { now })
        _ = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 65_000))
        guard case .update(var traced) = try update("BTC", "USD", "66000") else { return }
        traced.trace = TraceContext(traceparent: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01")
        let untraced = try update("BTC", "USD", "60000")
        let prices = AsyncStream<StreamEvent<AssetPrice>> {
            $0.yield(untraced)
            $0.yield(.update(traced))
            $0.finish()
        }
        await state.follow(prices: prices) { trace, apply in
            steps.withLock { $0.append("within \(trace?.traceparent ?? "none")") }
            await apply()
            steps.withLock { $0.append("ends") }
        }
        #expect(steps.withLock { $0 } == [
            "within none", "ends",
            "within 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "published 66000", "ends",
        ])
    }
}
