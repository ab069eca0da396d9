import Bus
import BusContract
import DequeModule
import Foundation
import ReaderQueue
import Synchronization
import TickwireContract
import Tracing

/// Fans price updates and news of changed data out to every open Server-Sent Events stream.
///
/// Each listener has a queue of its own that conflates: a price still waiting for a slow client is
/// replaced, in its place, by a newer price of the same asset and currency, so a slow browser gets
/// the latest price of each asset when it catches up, holds at most one price per asset, and never
/// holds up the others (sending only writes to each queue, under its own lock).
final class PriceBroadcast: Sendable {
    /// What a stream carries: a price, the kinds of data that changed (``StateWatch``), or a
    /// keep-alive that shows a dead client without any of them.
    enum Event: Sendable, Equatable {
        /// A price, with the task's context it was sent in (a span of its quote's trace), to send its event in:
        /// taken as it is, so no listener writes or parses the trace again.
        case price(AssetPrice, context: ServiceContext? = nil)
        /// The kinds that changed, with the trace of the change that made them (a trade's), for the page's reload.
        case changed(Set<String>, trace: TraceContext? = nil)
        case keepalive

        /// Events are equal when they carry the same data; a price's context has no equality and is not compared.
        static func == (lhs: Event, rhs: Event) -> Bool {
            switch (lhs, rhs) {
            case (.price(let left, _), .price(let right, _)): left == right
            case (.changed(let left, let leftTrace), .changed(let right, let rightTrace)): left == right && leftTrace == rightTrace
            case (.keepalive, .keepalive): true
            default: false
            }
        }
    }

    private struct Listener {
        let currency: String?
        let prices: Bool
        let queue: ReaderQueue<ConflatingEvents>
    }

    private struct Listeners {
        var queues: [UUID: Listener] = [:]
        var closed = false
    }

    private let listeners = Synchronization.Mutex(Listeners())

    /// Every price in `currency` (all currencies when nil; none when `prices` is false) and
    /// every change from now on; it ends when the listener's task is cancelled or on ``close()``.
    func subscribe(currency: String? = nil, prices: Bool = true) -> Events {
        let id = UUID()
        let queue = ReaderQueue(ConflatingEvents())
        let closed = listeners.withLock { listeners in
            if !listeners.closed { listeners.queues[id] = Listener(currency: currency, prices: prices, queue: queue) }
            return listeners.closed
        }
        if closed { queue.finish() }
        return Events(queue: queue) { [weak self] in
            _ = self?.listeners.withLock { $0.queues.removeValue(forKey: id) }
        }
    }

    /// How many listeners are subscribed.
    var listenerCount: Int { listeners.withLock { $0.queues.count } }

    /// Passes a price to every listener of its currency, with the task's context (its span).
    func send(_ price: AssetPrice) {
        let listening = listeners.withLock { $0.queues.values.filter { $0.prices && ($0.currency == nil || $0.currency == price.currency) } }
        guard !listening.isEmpty else { return }
        let context = ServiceContext.current
        for listener in listening { listener.queue.write { $0.add(.price(price, context: context)) } }
    }

    /// Tells every listener which kinds of data changed (e.g. `assets`, `portfolio`), with the task's trace context
    /// (a change's, when sent in its span).
    func send(changed kinds: Set<String>) {
        guard !kinds.isEmpty else { return }
        broadcast(.changed(kinds, trace: TraceContext.current))
    }

    /// Sends a keep-alive to every listener.
    func keepalive() { broadcast(.keepalive) }

    /// Ends every stream, now and later: the server's graceful shutdown must not wait on them.
    func close() {
        let queues = listeners.withLock { listeners in
            listeners.closed = true
            defer { listeners.queues = [:] }
            return Array(listeners.queues.values)
        }
        for listener in queues { listener.queue.finish() }
    }

    private func broadcast(_ event: Event) {
        for listener in listeners.withLock({ Array($0.queues.values) }) { listener.queue.write { $0.add(event) } }
    }

    /// One listener's events; the listener leaves the broadcast when the sequence is dropped.
    final class Events: AsyncSequence, Sendable {
        typealias Element = Event
        typealias Failure = Never

        private let queue: ReaderQueue<ConflatingEvents>
        private let leave: @Sendable () -> Void

        fileprivate init(queue: ReaderQueue<ConflatingEvents>, leave: @escaping @Sendable () -> Void) {
            self.queue = queue
            self.leave = leave
        }

        deinit {
            queue.finish()
            leave()
        }

        /// Takes the listener's events in order.
        struct AsyncIterator: AsyncIteratorProtocol {
            fileprivate let events: Events

            /// The next event; nil once the broadcast closed or the task was cancelled.
            mutating func next() async -> Event? { await events.queue.next() }
        }

        func makeAsyncIterator() -> AsyncIterator { AsyncIterator(events: self) }
    }
}

/// A listener's waiting events, in order, with a waiting price replaced in its place by a newer one of
/// the same asset and currency, at most one change (the
/// kinds of a later one joined to it, and its trace when it has one) and at most one keep-alive.
struct ConflatingEvents: ReaderQueueBuffer {
    private enum Slot {
        case price(PriceKey)
        case changed
        case keepalive
    }

    private struct PriceKey: Hashable {
        let asset: String
        let currency: String
    }

    private var slots = Deque<Slot>()
    private var prices: [PriceKey: (price: AssetPrice, context: ServiceContext?)] = [:]
    private var keepaliveWaiting = false
    private var changed: Set<String>?
    private var changedTrace: TraceContext?

    /// How many events wait.
    var count: Int { slots.count }

    /// Adds `event`, or lets it replace the price it supersedes.
    mutating func add(_ event: PriceBroadcast.Event) {
        switch event {
        case .price(let price, let context):
            let key = PriceKey(asset: price.asset, currency: price.currency)
            if prices.updateValue((price, context), forKey: key) == nil { slots.append(.price(key)) }
        case .changed(let kinds, let trace):
            if changed == nil { slots.append(.changed) }
            changed = (changed ?? []).union(kinds)
            changedTrace = trace ?? changedTrace
        case .keepalive:
            guard !keepaliveWaiting else { return }
            keepaliveWaiting = true
            slots.append(.keepalive)
        }
    }

    mutating func take() -> PriceBroadcast.Event? {
        guard let slot = slots.popFirst() else { return nil }
        switch slot {
        case .price(let key):
            return prices.removeValue(forKey: key).map { .price($0.price, context: $0.context) }
        case .changed:
            defer {
                changed = nil
                changedTrace = nil
            }
            return .changed(changed ?? [], trace: changedTrace)
        case .keepalive:
            keepaliveWaiting = false
            return .keepalive
        }
    }
}
