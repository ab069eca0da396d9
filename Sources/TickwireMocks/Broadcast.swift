import BusContract
import TickwireClients
import Foundation
import Synchronization

/// Hands the events of a mock publisher to every open stream of it: each new reader first gets the
/// publisher's whole state as a snapshot (the Clone pattern, as a live stream does), then every event.
final class Broadcast<Value: Sendable>: Sendable {
    private struct Listeners {
        var streams: [UUID: AsyncStream<StreamEvent<Value>>.Continuation] = [:]
    }

    private let listeners = Mutex(Listeners())

    /// A stream for one reader: `snapshot()` now, then every event sent. Readers that fall behind keep
    /// the newest 1,000 events.
    ///
    /// The snapshot is taken and the reader added in one step, so an event sent after the state it
    /// reports is never missed (one sent in between may come twice, which a reader of whole values
    /// takes in its stride).
    func stream(snapshot: @escaping @Sendable () -> [StreamUpdate<Value>]) -> StreamEvents<Value> {
        .each { [self] in
            let id = UUID()
            let (stream, continuation) = AsyncStream<StreamEvent<Value>>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
            continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.streams.removeValue(forKey: id) } }
            listeners.withLock { listeners in
                continuation.yield(.snapshot(snapshot()))
                listeners.streams[id] = continuation
            }
            return stream
        }
    }

    /// Sends `event` to every reader.
    func send(_ event: StreamEvent<Value>) {
        for continuation in listeners.withLock({ Array($0.streams.values) }) { continuation.yield(event) }
    }
}
