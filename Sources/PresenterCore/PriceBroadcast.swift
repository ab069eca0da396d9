import Foundation
import Synchronization
import TickwireContract

/// Fans price updates and alerts out to every open Server-Sent Events stream.
final class PriceBroadcast: Sendable {
    /// What a stream carries: a price, an alert, or a keep-alive that shows a dead client without either.
    enum Event: Sendable {
        case price(AssetPrice)
        case alert(AlertFired)
        case keepalive
    }

    private struct Listeners {
        var streams: [UUID: AsyncStream<Event>.Continuation] = [:]
        var closed = false
    }

    private let listeners = Synchronization.Mutex(Listeners())

    /// A stream of every price from now on; it ends when the listener is cancelled or on ``close()``.
    func subscribe() -> AsyncStream<Event> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.streams.removeValue(forKey: id) }
        }
        let closed = listeners.withLock { listeners in
            if !listeners.closed { listeners.streams[id] = continuation }
            return listeners.closed
        }
        if closed { continuation.finish() }
        return stream
    }

    /// Passes a price to every listener.
    func send(_ price: AssetPrice) { broadcast(.price(price)) }

    /// Passes an alert to every listener.
    func send(_ alert: AlertFired) { broadcast(.alert(alert)) }

    /// Sends a keep-alive to every listener.
    func keepalive() { broadcast(.keepalive) }

    /// Ends every stream, now and later: the server's graceful shutdown must not wait on them.
    func close() {
        let streams = listeners.withLock { listeners in
            listeners.closed = true
            defer { listeners.streams = [:] }
            return Array(listeners.streams.values)
        }
        for continuation in streams { continuation.finish() }
    }

    private func broadcast(_ event: Event) {
        for continuation in listeners.withLock({ Array($0.streams.values) }) { continuation.yield(event) }
    }
}
