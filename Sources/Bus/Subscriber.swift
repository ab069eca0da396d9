import Foundation
import Logging
import Metrics
import ServiceLifecycle
import ZeroMQ

/// What a ``Subscriber`` reports, in order.
public enum SubscriberEvent: Sendable {
    /// The publisher's whole state under the subscribed prefixes: replace what you hold.
    case snapshot(publisher: String, instance: String, messages: [BusMessage])
    /// One newer value of a topic.
    case message(BusMessage)
    /// The publisher is silent or unreachable; the last values stand, re-synchronisation is under way.
    case unavailable(reason: String)
}

/// A late-joining, self-healing subscriber (the ZeroMQ guide's Clone pattern).
///
/// It subscribes to `prefixes` (and the publisher's heartbeats), asks for a snapshot
/// of each prefix, and from then on applies only messages newer than what it holds.
/// A sequence gap, three missed heartbeats (`heartbeatTimeout`), a publisher restart
/// (a new instance in its heartbeat) or a backlog it could not keep make it fetch a
/// new snapshot; so a subscriber that joins late or reconnects ends with the same
/// state as one that was there from the start.
public final class Subscriber: Service, Sendable {
    /// Everything the subscriber learns; finishes when it stops.
    public let events: AsyncStream<SubscriberEvent>
    /// The publisher's PUB endpoint.
    public let endpoint: String
    /// The topic prefixes subscribed to.
    public let prefixes: [String]

    private let continuation: AsyncStream<SubscriberEvent>.Continuation
    private let socket: OwnedSocket
    private let fetchSnapshot: @Sendable (String) async throws -> Snapshot
    private let heartbeatTimeout: Duration
    private let logger: Logger
    private let name: String
    private let received: Counter

    /// Connects a SUB socket to `endpoint`; nothing is read until ``run()``.
    ///
    /// - Parameters:
    ///   - eventBuffer: how many messages may wait for the reader of ``events``, and as many
    ///     again in the socket's queue. A reader that falls further behind re-synchronises from
    ///     a snapshot instead: a cheaper way back than a long backlog, in which every message
    ///     holds its body and its parse (about 1 KB for a price).
    ///   - snapshot: fetches the publisher's snapshot of one prefix, usually
    ///     its `snapshot` JSON-RPC method.
    public init(
        context: ZMQContext, name: String, endpoint: String, prefixes: [String],
        heartbeatTimeout: Duration = .seconds(3), eventBuffer: Int = 20_000,
        snapshot: @escaping @Sendable (String) async throws -> Snapshot, logger: Logger
    ) throws {
        self.name = name
        self.endpoint = endpoint
        self.prefixes = prefixes
        self.heartbeatTimeout = heartbeatTimeout
        self.fetchSnapshot = snapshot
        self.logger = logger
        self.received = Counter(label: "tickwire_bus_received_total", dimensions: [("subscriber", name)])
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingOldest(eventBuffer))
        socket = try OwnedSocket(context: context, type: .sub, name: "\(name)-sub", receiveBuffer: eventBuffer) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            for prefix in prefixes + ["heartbeat."] { try socket.subscribe(prefix) }
            try socket.connect(endpoint)
        }
    }

    private enum Input: Sendable {
        /// Messages as the socket read them, several at a time when they come fast.
        case messages([[Data]])
        case tick
    }

    /// Follows the publisher until graceful shutdown.
    public func run() async {
        await cancelWhenGracefulShutdown {
            let (inputs, feed) = AsyncStream<Input>.makeStream()
            await withDiscardingTaskGroup { group in
                group.addTask {
                    while let batch = await self.socket.incoming.nextBatch() { feed.yield(.messages(batch)) }
                    feed.finish()
                }
                group.addTask {
                    while !Task.isCancelled {
                        try? await Task.sleep(for: .milliseconds(250))
                        feed.yield(.tick)
                    }
                }
                await self.follow(inputs)
                group.cancelAll()
            }
        }
        await socket.close()
        continuation.finish()
    }

    /// The loop that owns the replica state.
    private func follow(_ inputs: AsyncStream<Input>) async {
        var tracker = ReplicaTracker()
        var synchronized = false
        var lastHeard = ContinuousClock.now
        var nextAttempt = ContinuousClock.now + .milliseconds(100)
        for await input in inputs {
            if Task.isCancelled { return }
            let now = ContinuousClock.now
            switch input {
            case .tick:
                if synchronized, now - lastHeard > heartbeatTimeout {
                    synchronized = false
                    report(.unavailable(reason: "no heartbeat from \(endpoint) for \(heartbeatTimeout)"))
                }
            case .messages(let batch):
                for frames in batch {
                    guard let message = parse(frames) else { continue }
                    lastHeard = now
                    if message.topic.kind == "heartbeat" {
                        if synchronized, let beat = try? message.decode(Heartbeat.self).data, beat.instance != tracker.instance {
                            logger.info("publisher restarted", metadata: ["endpoint": "\(endpoint)", "instance": "\(beat.instance)"])
                            synchronized = false
                            nextAttempt = now
                        }
                    } else if synchronized {
                        switch tracker.check(message) {
                        case .apply:
                            if !report(.message(message)) { synchronized = false }
                        case .stale:
                            break
                        case .gap(let expected, let received):
                            Counter(label: "tickwire_bus_gaps_total", dimensions: [("subscriber", name)]).increment()
                            logger.warning("sequence gap, re-synchronising", metadata: [
                                "topic": "\(message.topic)", "expected": "\(expected)", "received": "\(received)"])
                            synchronized = false
                            nextAttempt = now
                        }
                    }
                }
            }
            if !synchronized, ContinuousClock.now >= nextAttempt {
                synchronized = await synchronize(&tracker)
                lastHeard = ContinuousClock.now
                nextAttempt = ContinuousClock.now + .seconds(1)
            }
        }
    }

    /// Fetches a snapshot of every prefix and reports it; `false` when that failed.
    private func synchronize(_ tracker: inout ReplicaTracker) async -> Bool {
        do {
            var entries: [Snapshot.Entry] = []
            var publisher = "", instance = ""
            for prefix in prefixes {
                let snapshot = try await fetchSnapshot(prefix)
                publisher = snapshot.publisher
                instance = snapshot.instance
                entries += snapshot.entries
            }
            let messages = entries.compactMap { entry in
                parse([Data(entry.topic.rawValue.utf8), Data(entry.body.utf8)])
            }
            tracker.reset(instance: instance, entries: entries)
            logger.debug("synchronized", metadata: ["endpoint": "\(endpoint)", "topics": "\(messages.count)"])
            return report(.snapshot(publisher: publisher, instance: instance, messages: messages))
        } catch {
            report(.unavailable(reason: "snapshot from \(endpoint) failed: \(error)"))
            return false
        }
    }

    /// Passes an event on; `false` when the reader fell so far behind that it was dropped.
    @discardableResult
    private func report(_ event: SubscriberEvent) -> Bool {
        if case .dropped = continuation.yield(event) {
            Counter(label: "tickwire_bus_dropped_total", dimensions: [("subscriber", name)]).increment()
            return false
        }
        return true
    }

    private func parse(_ frames: [Data]) -> BusMessage? {
        do {
            let message = try BusMessage(frames: frames)
            received.increment()
            return message
        } catch {
            Counter(label: "tickwire_bus_malformed_total", dimensions: [("subscriber", name)]).increment()
            logger.warning("dropped a malformed stream message", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
