import DequeModule
import Foundation
import Metrics
import Synchronization

/// The events of a ``Subscriber`` as its reader takes them: in order, except that a message still
/// waiting is replaced, in its place, by a newer message of the same topic (conflation).
///
/// Every stream message carries the whole value of its topic, so a reader that falls behind loses
/// nothing by skipping values that were superseded before it got to them: it does work in proportion
/// to the topics that changed, not to the rate they changed at, and what waits for it is at most
/// one message per topic. A snapshot replaces everything still waiting (it holds the newer state).
///
/// One reader at a time; iterators made one after another continue where the last stopped.
public struct SubscriberEvents: AsyncSequence, Sendable {
    public typealias Element = SubscriberEvent
    public typealias Failure = Never

    let queue: EventQueue
    /// Time from publication (the envelope's `time`) to the reader taking a message.
    let lag: Metrics.Timer

    public struct AsyncIterator: AsyncIteratorProtocol {
        let queue: EventQueue
        let lag: Metrics.Timer

        /// The next event; nil once the subscriber stopped (or the task was cancelled).
        public mutating func next() async -> SubscriberEvent? {
            let event = await queue.next()
            if case .message(let message) = event {
                let nanoseconds = Date().timeIntervalSince(message.header.time) * 1e9
                lag.recordNanoseconds(Int64(Swift.max(nanoseconds, 0)))
            }
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(queue: queue, lag: lag) }
}

/// The conflating queue between a ``Subscriber`` and the reader of its ``SubscriberEvents``.
final class EventQueue: Sendable {
    private struct State {
        var events = Deque<SubscriberEvent>()
        /// How many events were taken since the queue was last emptied by a snapshot:
        /// the position of `events.first` in the positions of `waiting`.
        var taken = 0
        /// The position of each topic's waiting message, for messages behind the last other event.
        var waiting: [Topic: Int] = [:]
        var waiter: CheckedContinuation<SubscriberEvent?, Never>?
        var finished = false
    }

    private let state = Mutex(State())

    /// Adds an event, or lets it replace what it supersedes; returns how many waiting
    /// messages it superseded.
    @discardableResult
    func push(_ event: SubscriberEvent) -> Int {
        let (waiter, superseded) = state.withLock { state -> (CheckedContinuation<SubscriberEvent?, Never>?, Int) in
            if state.finished { return (nil, 0) }
            if let waiter = state.waiter {
                state.waiter = nil
                return (waiter, 0)
            }
            switch event {
            case .message(let message):
                if let position = state.waiting[message.topic] {
                    state.events[position - state.taken] = event
                    return (nil, 1)
                }
                state.waiting[message.topic] = state.taken + state.events.count
                state.events.append(event)
            case .snapshot:
                let superseded = state.events.count { if case .message = $0 { true } else { false } }
                state.events = [event]
                state.taken = 0
                state.waiting = [:]
                return (nil, superseded)
            case .unavailable:
                // Only the newest reason matters; and later messages queue behind it.
                if case .unavailable = state.events.last {
                    state.events[state.events.count - 1] = event
                } else {
                    state.events.append(event)
                }
                state.waiting = [:]
            }
            return (nil, 0)
        }
        waiter?.resume(returning: event)
        return superseded
    }

    /// Ends the sequence once the events already waiting are read.
    func finish() {
        let waiter = state.withLock { state in
            state.finished = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: nil)
    }

    /// The next event; waits for one. Nil when finished and drained, or when the task is cancelled.
    func next() async -> SubscriberEvent? {
        if let event = state.withLock({ Self.pop(&$0) }) { return event }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<SubscriberEvent?, Never>) in
                let immediate = state.withLock { state -> SubscriberEvent?? in
                    if let event = Self.pop(&state) { return .some(event) }
                    if state.finished || Task.isCancelled { return .some(nil) }
                    precondition(state.waiter == nil, "Subscriber.events read by two tasks at once")
                    state.waiter = continuation
                    return .none
                }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            let waiter = state.withLock { state in
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: nil)
        }
    }

    private static func pop(_ state: inout State) -> SubscriberEvent? {
        guard let event = state.events.popFirst() else { return nil }
        if case .message(let message) = event, state.waiting[message.topic] == state.taken {
            state.waiting[message.topic] = nil
        }
        state.taken += 1
        return event
    }
}
