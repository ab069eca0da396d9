import Bus
import Foundation
import Logging
import Metrics
import ZeroMQ
import BusContract

/// A typed stream of a service: a snapshot first, then every newer value, `unavailable` while the
/// publisher is away (the Clone pattern of ``Subscriber`` underneath, for a live client).
///
/// Each iterator is a subscription of its own: a live one opens its socket when made and closes it when
/// dropped. One reader per iterator.
public struct StreamEvents<Value: Sendable>: AsyncSequence, Sendable {
    public typealias Element = StreamEvent<Value>
    public typealias Failure = Never

    private let open: @Sendable () -> Source

    /// A stream whose iterators read what `open` makes.
    init(open: @escaping @Sendable () -> Source) { self.open = open }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(source: open()) }

    /// Reads one subscription's events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let source: Source

        public mutating func next() async -> StreamEvent<Value>? { await source.next() }

        public mutating func next(isolation actor: isolated (any Actor)?) async -> StreamEvent<Value>? { await source.next() }
    }

    /// One subscription: where its events come from, and what ends it when its reader lets go.
    final class Source: Sendable {
        let next: @Sendable () async -> StreamEvent<Value>?
        private let end: @Sendable () -> Void

        init(next: @escaping @Sendable () async -> StreamEvent<Value>?, end: @escaping @Sendable () -> Void = {}) {
            self.next = next
            self.end = end
        }

        deinit { end() }
    }
}

extension StreamEvents {
    /// A stream built anew for each reader by `make`: each iterator gets a fresh sequence of events.
    public static func each(_ make: @escaping @Sendable () -> AsyncStream<StreamEvent<Value>>) -> Self {
        Self { let shared = SharedIterator(make()); return Source(next: { await shared.next() }) }
    }

    /// A stream that says `reason` and nothing more, as a live stream does while its publisher is away:
    /// what a `failing` client's streams are. It ends only when its reader stops.
    public static func failing(_ reason: String) -> Self {
        each { AsyncStream { $0.yield(.unavailable(reason: reason)) } }
    }

    /// The live stream of a publisher: a Clone-pattern ``Subscriber`` of `prefixes` at `pub`, with snapshots
    /// from `snapshot`, whose messages `decode` turns into values. A message that does not decode is logged,
    /// counted (`tickwire_client_undecodable_total`) and skipped; so is one of a topic `decode` does not know (nil).
    /// `backlog` and `receiveBuffer` are the ``Subscriber``'s.
    static func live(
        context: ZMQContext, name: String, pub: String, prefixes: [String], security: SocketSecurity = SocketSecurity(),
        backlog: Int = 64, receiveBuffer: Int = 20_000, logger: Logger,
        snapshot: @escaping @Sendable (String) async throws -> Snapshot,
        decode: @escaping @Sendable (BusMessage) throws -> Value?
    ) -> Self {
        Self {
            let subscriber: Subscriber
            do {
                subscriber = try Subscriber(
                    context: context, name: name, endpoint: pub, prefixes: prefixes, receiveBuffer: receiveBuffer, backlog: backlog,
                    security: security, snapshot: snapshot, logger: logger)
            } catch {
                return failing("cannot subscribe to \(pub): \(error)").open()
            }
            let running = Task { await subscriber.run() }
            let undecodable = Counter(label: "tickwire_client_undecodable_total", dimensions: [("subscriber", name)])
            let events = subscriber.events
            @Sendable func typed(_ message: BusMessage) -> StreamUpdate<Value>? {
                do {
                    guard let value = try decode(message) else { return nil }
                    return StreamUpdate(topic: message.topic, seq: message.header.seq, time: message.header.time,
                                        source: message.header.source, value: value, trace: message.trace)
                } catch {
                    undecodable.increment()
                    logger.warning("dropped an undecodable message", metadata: ["topic": "\(message.topic)", "error": "\(error)"])
                    return nil
                }
            }
            return Source(
                next: {
                    var iterator = events.makeAsyncIterator()
                    while let event = await iterator.next() {
                        switch event {
                        case .snapshot(_, _, let messages): return .snapshot(messages.compactMap(typed))
                        case .message(let message) where message.isRetraction: return .removed(message.topic)
                        case .message(let message): if let update = typed(message) { return .update(update) }
                        case .unavailable(let reason): return .unavailable(reason: reason)
                        }
                    }
                    return nil
                },
                end: { running.cancel() })
        }
    }
}

/// An `AsyncStream`'s iterator that a ``StreamEvents`` source can hold: its one reader calls ``next()``.
private final class SharedIterator<Element: Sendable>: @unchecked Sendable {
    // @unchecked: `iterator` is only touched by `next()`, which a stream's one reader calls one call at a time.
    private var iterator: AsyncStream<Element>.AsyncIterator

    init(_ stream: AsyncStream<Element>) { iterator = stream.makeAsyncIterator() }

    func next() async -> Element? { await iterator.next() }
}
