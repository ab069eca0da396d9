import Foundation
import Logging
import Metrics
import ServiceLifecycle
import ZeroMQ
import BusContract

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
/// A SUB socket connects in the background, so a snapshot fetched at once could be
/// answered before the publisher has taken the subscriptions: a message published in
/// between would reach neither the snapshot nor the stream. A heartbeat proves they were
/// taken (it is subscribed with the prefixes, which libzmq sends in one go), so the
/// subscriber fetches its first snapshot after the first heartbeat (or, from a publisher
/// that sends none, after `heartbeatTimeout`). A snapshot fetched without a heartbeat in
/// the last `heartbeatTimeout` (the publisher was away) is provisional: the next heartbeat
/// brings another.
///
/// It conflates where it is behind, and only there: every message carries the whole value of its
/// topic, so when more than `backlog` messages wait to be taken in, or more than `backlog` events wait
/// for the reader, only the newest of each topic is passed on (``SubscriberEvents``) and the others are
/// counted as superseded; of a topic's run read in one such go only the first (for its sequence number)
/// and the newest are parsed. Its work then grows with the number of topics that change, not with the
/// rate they change at. A subscriber that keeps up passes on every message, even two of a topic that
/// came together.
public final class Subscriber: Service, Sendable {
    /// Everything the subscriber learns; finishes when it stops.
    public let events: SubscriberEvents
    /// The publisher's PUB endpoint.
    public let endpoint: String
    /// The topic prefixes subscribed to.
    public let prefixes: [String]

    private let queue: EventQueue
    /// More messages than this waiting at once: the subscriber is behind, and conflates.
    private let backlog: Int
    private let socket: OwnedSocket
    /// The loop that reads the socket and runs the subscriber's tasks; nil: a thread of the socket's own and the pool.
    private let loop: ServiceLoop?
    private let fetchSnapshot: @Sendable (String) async throws -> Snapshot
    private let heartbeatTimeout: Duration
    private let logger: Logger
    private let name: String
    /// Messages read off the socket (`tickwire_bus_received_total`), malformed ones included.
    private let received: Counter
    /// Messages skipped because a newer one of their topic came before they were read
    /// (`tickwire_bus_superseded_total`).
    private let superseded: Counter
    /// Messages the socket's queue dropped because the subscriber fell behind (`tickwire_bus_dropped_total`).
    private let dropped: Counter
    /// Events waiting for the reader (`tickwire_bus_reader_queue_depth`) and messages that waited in the socket's
    /// queue (`tickwire_bus_socket_queue_depth`), as of the last batch read: set once a batch, at least every 250 ms.
    private let readerDepth: Gauge
    private let socketDepth: Gauge

    /// Connects a SUB socket to `endpoint`; nothing is read until ``run()``.
    ///
    /// - Parameters:
    ///   - receiveBuffer: how many messages may wait in the socket's queue for the subscriber.
    ///     One that falls further behind re-synchronises from a snapshot instead.
    ///   - backlog: how many messages may wait, read off the socket or for the reader, before the
    ///     subscriber counts as behind and conflates (0: whenever two of a topic wait).
    ///   - security: CURVE (as a client of the publisher) and the message size limit.
    ///   - snapshot: fetches the publisher's snapshot of one prefix, usually
    ///     its `snapshot` JSON-RPC method.
    ///   - loop: the service's loop: its thread reads the socket, and ``run()``'s tasks (the loop that follows the
    ///     publisher, its snapshot fetches, the heartbeat check's clock) prefer it as their executor, so a batch read
    ///     resumes its reader with no thread wake-up. Nil: the socket has a thread of its own, the tasks run on the pool.
    public init(
        context: ZMQContext, name: String, endpoint: String, prefixes: [String],
        heartbeatTimeout: Duration = .seconds(3), receiveBuffer: Int = 20_000, backlog: Int = 64,
        security: SocketSecurity = SocketSecurity(),
        snapshot: @escaping @Sendable (String) async throws -> Snapshot, logger: Logger, loop: ServiceLoop? = nil
    ) throws {
        self.name = name
        self.loop = loop
        self.endpoint = endpoint
        self.prefixes = prefixes
        self.heartbeatTimeout = heartbeatTimeout
        self.fetchSnapshot = snapshot
        self.logger = logger
        self.backlog = backlog
        queue = EventQueue(backlog: backlog)
        self.received = Counter(label: "tickwire_bus_received_total", dimensions: [("subscriber", name)])
        self.superseded = Counter(label: "tickwire_bus_superseded_total", dimensions: [("subscriber", name)])
        self.dropped = Counter(label: "tickwire_bus_dropped_total", dimensions: [("subscriber", name)])
        self.readerDepth = Gauge(label: "tickwire_bus_reader_queue_depth", dimensions: [("subscriber", name)])
        self.socketDepth = Gauge(label: "tickwire_bus_socket_queue_depth", dimensions: [("subscriber", name)])
        events = SubscriberEvents(
            queue: queue, lag: Metrics.Timer(label: "tickwire_bus_delivery_lag_seconds", dimensions: [("subscriber", name)]))
        socket = try OwnedSocket(context: context, type: .sub, name: "\(name)-sub", receiveBuffer: receiveBuffer, loop: loop) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try security.apply(to: socket)
            for prefix in prefixes + ["heartbeat."] { try socket.subscribe(prefix) }
            try socket.connect(endpoint)
        }
    }

    /// What the subscriber holds of the publisher: owned by the loop that follows it.
    struct Replica {
        var tracker = ReplicaTracker()
        var synchronized = false
        let started: ContinuousClock.Instant
        /// When the last heartbeat came; `nil` before the first.
        var lastHeartbeat: ContinuousClock.Instant?
        /// The state comes from a snapshot fetched without a recent heartbeat; the next one replaces it.
        var provisional = false
        var lastHeard: ContinuousClock.Instant
        var nextAttempt: ContinuousClock.Instant
        /// The dropped messages already noticed.
        var dropped = 0

        init(started: ContinuousClock.Instant = .now) {
            self.started = started
            lastHeard = started
            nextAttempt = started
        }

        /// Whether to fetch a snapshot now: once a heartbeat has come, or `timeout` after the start
        /// without one (a publisher that sends none).
        func snapshotDue(at now: ContinuousClock.Instant, timeout: Duration) -> Bool {
            !synchronized && now >= nextAttempt && (lastHeartbeat != nil || now - started >= timeout)
        }

        /// Notes that a snapshot is being fetched: provisional unless a heartbeat came within `timeout`.
        mutating func fetchingSnapshot(at now: ContinuousClock.Instant, timeout: Duration) {
            provisional = lastHeartbeat.map { now - $0 > timeout } ?? true
        }

        /// Notes a heartbeat; `true` when the state came from a provisional snapshot, which must
        /// then be fetched again (the replica is no longer synchronized).
        mutating func heardHeartbeat(at now: ContinuousClock.Instant) -> Bool {
            lastHeartbeat = now
            guard synchronized, provisional else { return false }
            synchronized = false
            nextAttempt = now
            return true
        }
    }

    /// Follows the publisher until graceful shutdown (on the subscriber's loop, when it has one).
    public func run() async {
        await cancelWhenGracefulShutdown {
            // Nil (no loop) keeps the task's own preference; the group's tasks inherit the loop.
            await withTaskExecutorPreference(self.loop) {
                await withDiscardingTaskGroup { group in
                    group.addTask {
                        // The heartbeat check's clock: an empty batch every 250 ms when nothing comes.
                        while !Task.isCancelled {
                            try? await Task.sleep(for: .milliseconds(250))
                            self.socket.incoming.wake()
                        }
                    }
                    await self.follow()
                    group.cancelAll()
                }
            }
        }
        await socket.close()
        queue.finish()
    }

    /// The loop that owns the replica state: it reads the socket's batches itself, so what waits for
    /// it is bounded by the socket's `receiveBuffer`.
    private func follow() async {
        var replica = Replica()
        while let batch = await socket.incoming.nextBatch() {
            if Task.isCancelled { return }
            let now = ContinuousClock.now
            socketDepth.record(batch.count)
            if batch.isEmpty {
                if replica.synchronized, now - replica.lastHeard > heartbeatTimeout {
                    replica.synchronized = false
                    report(.unavailable(reason: "no heartbeat from \(endpoint) for \(heartbeatTimeout)"))
                }
            } else {
                receive(batch, into: &replica, at: now)
                noticeDrops(socket.droppedReceives, in: &replica, at: now)
            }
            readerDepth.record(queue.count)
            if replica.snapshotDue(at: ContinuousClock.now, timeout: heartbeatTimeout) {
                replica.fetchingSnapshot(at: ContinuousClock.now, timeout: heartbeatTimeout)
                replica.synchronized = await synchronize(&replica.tracker)
                replica.lastHeard = ContinuousClock.now
                replica.nextAttempt = ContinuousClock.now + .seconds(1)
            }
        }
    }

    /// Takes in `batches` as ``run()`` takes in what the socket reads, from a fresh replica: synchronizes
    /// first, and again after each batch that loses the state (a gap, a publisher restart), without the
    /// loop's waits. Returns the events reported. The socket is not read: this is what the fuzzer
    /// (Tests/FuzzTargets) drives with arbitrary frames.
    package func takeIn(_ batches: [[[Data]]]) async -> [SubscriberEvent] {
        var replica = Replica()
        replica.synchronized = await synchronize(&replica.tracker)
        for batch in batches {
            receive(batch, into: &replica, at: .now)
            if !replica.synchronized { replica.synchronized = await synchronize(&replica.tracker) }
        }
        let end = "end of the batches \(UUID())"
        queue.push(.unavailable(reason: end))
        var events: [SubscriberEvent] = []
        while let event = await queue.next() {
            if case .unavailable(let reason) = event, reason == end { break }
            events.append(event)
        }
        return events
    }

    /// Messages the socket's queue dropped so far, because the subscriber fell `receiveBuffer` behind,
    /// are lost updates: count them and re-synchronise at once, without waiting for a later gap to show it.
    private func noticeDrops(_ dropped: Int, in replica: inout Replica, at now: ContinuousClock.Instant) {
        guard dropped > replica.dropped else { return }
        self.dropped.increment(by: dropped - replica.dropped)
        logger.warning("fell behind, messages dropped; re-synchronising", metadata: [
            "endpoint": "\(endpoint)", "dropped": "\(dropped - replica.dropped)"])
        replica.dropped = dropped
        replica.synchronized = false
        replica.nextAttempt = now
    }

    /// Takes in a batch of messages: each in turn when the subscriber keeps up (at most `backlog` of them);
    /// when it is behind, each topic's run of messages by its newest alone where the sequence numbers show
    /// the older ones are only superseded, else each in turn.
    ///
    /// The older messages of a run taken whole are not parsed: a malformed one among them counts as
    /// superseded, not as malformed.
    private func receive(_ batch: [[Data]], into replica: inout Replica, at now: ContinuousClock.Instant) {
        received.increment(by: batch.count)
        let runs = batch.count > backlog ? Self.runsPerTopic(batch) : batch.indices.map { (first: $0, newest: $0, older: 0) }
        for run in runs {
            guard let newest = parse(batch[run.newest]) else {
                receiveEach(batch[run.first..<run.newest], of: batch[run.newest].first, into: &replica, at: now)
                continue
            }
            if run.older == 0 {
                receive(newest, into: &replica, at: now)
                continue
            }
            let first = parse(batch[run.first])
            if let first, receiveWhole(first: first, newest: newest, older: run.older, into: &replica, at: now) { continue }
            if let first { receive(first, into: &replica, at: now) }
            receiveEach(batch[run.first + 1..<run.newest], of: batch[run.newest].first, into: &replica, at: now)
            receive(newest, into: &replica, at: now)
        }
    }

    /// Takes in, one by one, the messages of `slice` whose topic frame is `topic`.
    private func receiveEach(_ slice: ArraySlice<[Data]>, of topic: Data?, into replica: inout Replica, at now: ContinuousClock.Instant) {
        for frames in slice where frames.first == topic {
            if let message = parse(frames) { receive(message, into: &replica, at: now) }
        }
    }

    /// Takes in a topic's run of `older + 1` messages, from `first` to `newest`, by `newest` alone if
    /// the sequence numbers allow it: `first` is the next one expected and `newest` is `older` past it
    /// (a publisher's numbers only grow, so nothing between is missing), or `newest` is already held
    /// (then so is every one before it). `false` when they must be taken one by one.
    private func receiveWhole(
        first: BusMessage, newest: BusMessage, older: Int, into replica: inout Replica, at now: ContinuousClock.Instant
    ) -> Bool {
        if Self.isHeartbeat(newest.topic) || !replica.synchronized {
            superseded.increment(by: older)
            receive(newest, into: &replica, at: now)
            return true
        }
        let last = replica.tracker.seq(of: newest.topic)
        if newest.header.seq <= last, !replica.tracker.isRetracted(newest.topic) {
            replica.lastHeard = now
            return true
        }
        guard first.header.seq > last, first.header.seq - last == 1, replica.tracker.check(newest, superseding: older) == .apply else {
            return false
        }
        replica.lastHeard = now
        superseded.increment(by: older)
        report(.message(newest))
        return true
    }

    /// Takes in one message: a heartbeat, or the next value of its topic if it is one.
    private func receive(_ message: BusMessage, into replica: inout Replica, at now: ContinuousClock.Instant) {
        replica.lastHeard = now
        if Self.isHeartbeat(message.topic) {
            if replica.heardHeartbeat(at: now) {
                logger.debug("replacing a snapshot fetched without a heartbeat", metadata: ["endpoint": "\(endpoint)"])
                return
            }
            if replica.synchronized, let beat = try? message.decode(Heartbeat.self).data, beat.instance != replica.tracker.instance {
                logger.info("publisher restarted", metadata: ["endpoint": "\(endpoint)", "instance": "\(beat.instance)"])
                replica.synchronized = false
                replica.nextAttempt = now
            }
            return
        }
        guard replica.synchronized else { return }
        switch replica.tracker.check(message) {
        case .apply:
            report(.message(message))
        case .stale:
            break
        case .gap(let expected, let received):
            Counter(label: "tickwire_bus_gaps_total", dimensions: [("subscriber", name)]).increment()
            logger.warning("sequence gap, re-synchronising", metadata: [
                "topic": "\(message.topic)", "expected": "\(expected)", "received": "\(received)"])
            replica.synchronized = false
            replica.nextAttempt = now
        }
    }

    /// Whether `topic`'s kind is `heartbeat`: its text's first component, read as bytes (every message asks).
    private static func isHeartbeat(_ topic: Topic) -> Bool {
        let text = topic.rawValue.utf8
        return text.starts(with: "heartbeat".utf8) && (text.count == 9 || text.dropFirst(9).first == UInt8(ascii: "."))
    }

    /// Each topic's run of messages in `batch`: the positions of its first and newest message,
    /// with how many come before the newest. In the order of the newest messages.
    static func runsPerTopic(_ batch: [[Data]]) -> [(first: Int, newest: Int, older: Int)] {
        var runs: [Data: (first: Int, count: Int)] = [:]
        for (position, frames) in batch.enumerated() {
            runs[frames.first ?? Data(), default: (position, 0)].count += 1
        }
        if runs.count == batch.count { return batch.indices.map { (first: $0, newest: $0, older: 0) } }
        var result: [(first: Int, newest: Int, older: Int)] = []
        var seen: [Data: Int] = [:]
        for (position, frames) in batch.enumerated() {
            let topic = frames.first ?? Data()
            let count = seen[topic, default: 0] + 1
            seen[topic] = count
            if let run = runs[topic], count == run.count { result.append((run.first, position, run.count - 1)) }
        }
        return result
    }

    /// Fetches a snapshot of every prefix and reports it; `false` when that failed.
    private func synchronize(_ tracker: inout ReplicaTracker) async -> Bool {
        do {
            var entries: [Snapshot.Entry] = []
            var retracted: [Topic: UInt64] = [:]
            var publisher = "", instance = ""
            for prefix in prefixes {
                let snapshot = try await fetchSnapshot(prefix)
                publisher = snapshot.publisher
                instance = snapshot.instance
                entries += snapshot.entries
                retracted.merge(snapshot.retracted, uniquingKeysWith: max)
            }
            // Retracted topics are not values: only their sequence numbers are kept, so that their return, numbered
            // after the retraction, is the next message and not a gap. (Of overlapping prefixes' snapshots, a
            // value a later one saw retracted is gone.)
            let messages = entries.filter { entry in retracted[entry.topic].map { $0 < entry.seq } ?? true }.compactMap { entry in
                parse([Data(entry.topic.rawValue.utf8), Data(entry.body.utf8)])
            }
            tracker.reset(instance: instance, entries: entries, retracted: retracted)
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
