import DequeModule
import Foundation
import Metrics
import ReaderQueue
import BusContract

/// The events of a ``Subscriber`` as its reader takes them: in order, except that once the reader is
/// behind (more than the subscriber's `backlog` events wait for it), a newer message of a topic replaces,
/// in its place, the one of that topic still waiting (conflation).
///
/// Every stream message carries the whole value of its topic, so a reader that falls behind loses
/// nothing by skipping values that were superseded before it got to them: it does work in proportion
/// to the topics that changed, not to the rate they changed at, and what waits for it is at most
/// `backlog` events, plus one message per topic. A reader that keeps up (a few messages waiting after a
/// late wake-up) gets every message. A snapshot replaces everything still waiting (it holds the newer state).
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
    private struct Buffer: ReaderQueueBuffer {
        /// More events than this waiting: the reader is behind, and messages conflate.
        let backlog: Int
        var events = Deque<SubscriberEvent>()
        /// How many events were taken since the queue was last emptied by a snapshot:
        /// the position of `events.first` in the positions of `waiting`.
        var taken = 0
        /// The position of each topic's newest waiting message, for messages behind the last other event.
        var waiting: [Topic: Int] = [:]

        init(backlog: Int) { self.backlog = backlog }

        mutating func take() -> SubscriberEvent? {
            guard let event = events.popFirst() else { return nil }
            if case .message(let message) = event, let index = waiting.index(forKey: message.topic), waiting.values[index] == taken {
                waiting.remove(at: index)
            }
            taken += 1
            return event
        }

        /// Adds `event` or lets it replace what it supersedes; returns how many waiting messages it superseded.
        mutating func add(_ event: SubscriberEvent) -> Int {
            switch event {
            case .message(let message):
                if events.count > backlog, let position = waiting[message.topic] {
                    events[position - taken] = event
                    return 1
                }
                waiting[message.topic] = taken + events.count
                events.append(event)
            case .snapshot:
                let superseded = events.count { if case .message = $0 { true } else { false } }
                events = [event]
                taken = 0
                waiting = [:]
                return superseded
            case .unavailable:
                // Only the newest reason matters; and later messages queue behind it.
                if case .unavailable = events.last {
                    events[events.count - 1] = event
                } else {
                    events.append(event)
                }
                waiting = [:]
            }
            return 0
        }
    }

    private let queue: ReaderQueue<Buffer>

    /// An empty queue whose reader is behind when more than `backlog` events wait (0: whenever one waits).
    init(backlog: Int) { queue = ReaderQueue(Buffer(backlog: backlog)) }

    /// Adds an event, or lets it replace what it supersedes; returns how many
    /// waiting messages it superseded.
    @discardableResult
    func push(_ event: SubscriberEvent) -> Int { queue.write { $0.add(event) } ?? 0 }

    /// Ends the sequence once the events already waiting are read.
    func finish() { queue.finish() }

    /// How many events wait for the reader.
    var count: Int { queue.read { $0.events.count } }

    /// The next event; waits for one. Nil when finished and drained, or when the task is cancelled.
    func next() async -> SubscriberEvent? { await queue.next() }
}
