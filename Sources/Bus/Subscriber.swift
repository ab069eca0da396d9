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
///
/// It conflates: every message carries the whole value of its topic, so when messages
/// come faster than they are read, only the newest of each topic is parsed and passed on
/// (``SubscriberEvents``), and the others are counted as superseded. Its work then grows
/// with the number of topics that change, not with the rate they change at.
public final class Subscriber: Service, Sendable {
    /// Everything the subscriber learns; finishes when it stops.
    public let events: SubscriberEvents
    /// The publisher's PUB endpoint.
    public let endpoint: String
    /// The topic prefixes subscribed to.
    public let prefixes: [String]

    private let queue = EventQueue()
    private let socket: OwnedSocket
    private let fetchSnapshot: @Sendable (String) async throws -> Snapshot
    private let heartbeatTimeout: Duration
    private let logger: Logger
    private let name: String
    /// Messages read off the socket (`tickwire_bus_received_total`), malformed ones included.
    private let received: Counter
    /// Messages skipped because a newer one of their topic came before they were read
    /// (`tickwire_bus_superseded_total`).
    private let superseded: Counter

    /// Connects a SUB socket to `endpoint`; nothing is read until ``run()``.
    ///
    /// - Parameters:
    ///   - receiveBuffer: how many messages may wait in the socket's queue for the subscriber.
    ///     One that falls further behind re-synchronises from a snapshot instead.
    ///   - snapshot: fetches the publisher's snapshot of one prefix, usually
    ///     its `snapshot` JSON-RPC method.
    public init(
        context: ZMQContext, name: String, endpoint: String, prefixes: [String],
        heartbeatTimeout: Duration = .seconds(3), receiveBuffer: Int = 20_000,
        snapshot: @escaping @Sendable (String) async throws -> Snapshot, logger: Logger
    ) throws {
        self.name = name
        self.endpoint = endpoint
        self.prefixes = prefixes
        self.heartbeatTimeout = heartbeatTimeout
        self.fetchSnapshot = snapshot
        self.logger = logger
        self.received = Counter(label: "tickwire_bus_received_total", dimensions: [("subscriber", name)])
        self.superseded = Counter(label: "tickwire_bus_superseded_total", dimensions: [("subscriber", name)])
        events = SubscriberEvents(
            queue: queue, lag: Metrics.Timer(label: "tickwire_bus_delivery_lag_seconds", dimensions: [("subscriber", name)]))
        socket = try OwnedSocket(context: context, type: .sub, name: "\(name)-sub", receiveBuffer: receiveBuffer) { socket in
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

    /// What the subscriber holds of the publisher: owned by the loop that follows it.
    private struct Replica {
        var tracker = ReplicaTracker()
        var synchronized = false
        var lastHeard = ContinuousClock.now
        var nextAttempt = ContinuousClock.now + .milliseconds(100)
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
        queue.finish()
    }

    /// The loop that owns the replica state.
    private func follow(_ inputs: AsyncStream<Input>) async {
        var replica = Replica()
        for await input in inputs {
            if Task.isCancelled { return }
            let now = ContinuousClock.now
            switch input {
            case .tick:
                if replica.synchronized, now - replica.lastHeard > heartbeatTimeout {
                    replica.synchronized = false
                    report(.unavailable(reason: "no heartbeat from \(endpoint) for \(heartbeatTimeout)"))
                }
            case .messages(let batch):
                receive(batch, into: &replica, at: now)
            }
            if !replica.synchronized, ContinuousClock.now >= replica.nextAttempt {
                replica.synchronized = await synchronize(&replica.tracker)
                replica.lastHeard = ContinuousClock.now
                replica.nextAttempt = ContinuousClock.now + .seconds(1)
            }
        }
    }

    /// Takes in a batch of messages: only the newest of each topic, unless the sequence numbers
    /// show that the older ones are not simply superseded (then each in turn).
    private func receive(_ batch: [[Data]], into replica: inout Replica, at now: ContinuousClock.Instant) {
        received.increment(by: batch.count)
        for (position, older) in Self.newestPerTopic(batch) {
            let newest = parse(batch[position])
            if let newest, receive(newest, superseding: older, into: &replica, at: now) { continue }
            let topic = batch[position].first
            for frames in batch[..<position] where frames.first == topic {
                if let message = parse(frames) { receive(message, superseding: 0, into: &replica, at: now) }
            }
            if let newest { receive(newest, superseding: 0, into: &replica, at: now) }
        }
    }

    /// Takes in `message`, standing for itself and the `older` messages of its topic before it;
    /// `false` when it cannot (the older ones must then be taken one by one).
    @discardableResult
    private func receive(
        _ message: BusMessage, superseding older: Int, into replica: inout Replica, at now: ContinuousClock.Instant
    ) -> Bool {
        replica.lastHeard = now
        if message.topic.kind == "heartbeat" {
            superseded.increment(by: older)
            if replica.synchronized, let beat = try? message.decode(Heartbeat.self).data, beat.instance != replica.tracker.instance {
                logger.info("publisher restarted", metadata: ["endpoint": "\(endpoint)", "instance": "\(beat.instance)"])
                replica.synchronized = false
                replica.nextAttempt = now
            }
            return true
        }
        guard replica.synchronized else { return true }
        switch replica.tracker.check(message, superseding: older) {
        case .apply:
            superseded.increment(by: older)
            report(.message(message))
        case .stale where older == 0:
            break
        case .gap(let expected, let received) where older == 0:
            Counter(label: "tickwire_bus_gaps_total", dimensions: [("subscriber", name)]).increment()
            logger.warning("sequence gap, re-synchronising", metadata: [
                "topic": "\(message.topic)", "expected": "\(expected)", "received": "\(received)"])
            replica.synchronized = false
            replica.nextAttempt = now
        case .stale, .gap:
            return false
        }
        return true
    }

    /// The position of each topic's newest message in `batch`, in the order they came, with how
    /// many older messages of the same topic it follows there.
    static func newestPerTopic(_ batch: [[Data]]) -> [(position: Int, older: Int)] {
        var counts: [Data: Int] = [:]
        for frames in batch { counts[frames.first ?? Data(), default: 0] += 1 }
        if counts.count == batch.count { return batch.indices.map { ($0, 0) } }
        var newest: [(position: Int, older: Int)] = []
        var seen: [Data: Int] = [:]
        for (position, frames) in batch.enumerated() {
            let topic = frames.first ?? Data()
            let count = seen[topic, default: 0] + 1
            seen[topic] = count
            if let total = counts[topic], count == total { newest.append((position, total - 1)) }
        }
        return newest
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
            report(.snapshot(publisher: publisher, instance: instance, messages: messages))
            return true
        } catch {
            report(.unavailable(reason: "snapshot from \(endpoint) failed: \(error)"))
            return false
        }
    }

    /// Passes an event on to the reader, counting the waiting messages it supersedes.
    private func report(_ event: SubscriberEvent) {
        superseded.increment(by: queue.push(event))
    }

    private func parse(_ frames: [Data]) -> BusMessage? {
        do {
            return try BusMessage(frames: frames)
        } catch {
            Counter(label: "tickwire_bus_malformed_total", dimensions: [("subscriber", name)]).increment()
            logger.warning("dropped a malformed stream message", metadata: ["error": "\(error)"])
            return nil
        }
    }
}
