import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import ZeroMQ
import BusContract

/// A stream publisher: numbers messages per topic, keeps each topic's last value for
/// late joiners (``snapshot(prefix:)``), and sends a heartbeat every second.
///
/// `publish` is synchronous and cheap: it encodes, records and sends the message on the
/// caller's thread, through a PUB ``LockedSocket`` that never blocks. A subscriber that falls
/// a high-water mark behind loses messages; it notices the sequence gap and re-synchronises from
/// a snapshot. The socket has `ZMQ_XPUB_NODROP` set, so such a loss is not silent: it counts in
/// ``droppedMessages``, the heartbeats' `dropped` and `tickwire_bus_publisher_dropped_total`.
public final class Publisher: Service, Sendable {
    /// The service name, used in `heartbeat.<service>` and as the default envelope source.
    public let service: String
    /// A fresh identity for this run; subscribers re-synchronise when it changes.
    public let instance: String
    /// The endpoints the PUB socket is bound to.
    public let endpoints: [String]
    /// How often the heartbeat goes out.
    public let heartbeatInterval: Duration
    /// How many retracted topics' sequence numbers are kept at most (oldest retraction forgotten first).
    public let maxRetracted: Int

    private let socket: LockedSocket
    private let state = Mutex(State())
    private let logger: Logger
    private let published: Counter
    private let lost: Counter

    private struct State {
        var topics: [Topic: TopicState] = [:]
        var heartbeatSeq: UInt64 = 0
        /// How many ``publishingTogether(_:)`` calls are running; while any is, messages wait in `held`.
        var together = 0
        var held: [[Data]] = []
        /// The retractions in the order they were made, from `retractionsStart` on: the topic and its seq then.
        var retractions: [(topic: Topic, seq: UInt64)] = []
        var retractionsStart = 0

        /// Sends `frames` now, or holds them for the end of the running ``publishingTogether(_:)``.
        mutating func send(_ frames: [Data], by publisher: Publisher) {
            if together > 0 {
                held.append(frames)
            } else {
                publisher.send(frames)
            }
        }
    }

    /// What the publisher keeps of one topic, found with one hash look-up per message: its last sequence
    /// number, its first frame and default envelope fields made once, and its retained value.
    private struct TopicState {
        var seq: UInt64 = 0
        let frame: Data
        let kind: String
        let source: String?
        var retained: Retained?

        init(_ topic: Topic) {
            frame = Data(topic.rawValue.utf8)
            kind = String(topic.kind)
            source = topic.source.map(String.init)
        }
    }

    private struct Retained {
        var body: Data
        /// Kept only when published with `onlyIfChanged` (boxing a payload costs an allocation);
        /// without it the next such publish compares with nothing and goes out.
        var kept: ComparedPayload?
    }

    /// Binds a PUB socket to each of `endpoints`, with `security` (CURVE server, message size limit), keeping the
    /// sequence numbers of at most `maxRetracted` retracted topics.
    public init(
        context: ZMQContext,
        service: String,
        endpoints: [String],
        highWaterMark: Int32 = 100_000,
        heartbeatInterval: Duration = .seconds(1),
        security: SocketSecurity = SocketSecurity(),
        maxRetracted: Int = 10_000,
        logger: Logger
    ) throws {
        self.maxRetracted = maxRetracted
        self.service = service
        self.instance = UUID().uuidString.lowercased()
        self.endpoints = endpoints
        self.heartbeatInterval = heartbeatInterval
        self.logger = logger
        self.published = Counter(label: "tickwire_bus_published_total", dimensions: [("service", service)])
        self.lost = Counter(label: "tickwire_bus_publisher_dropped_total", dimensions: [("service", service)])
        socket = try LockedSocket(context: context, type: .pub) { socket in
            try socket.set(.sendHighWaterMark, highWaterMark)
            try security.apply(to: socket)
            try socket.set(.xpubNoDrop, true)
            for endpoint in endpoints { try socket.bind(endpoint) }
        }
    }

    /// Messages that did not reach every subscriber: published after the socket closed (they went
    /// nowhere), or while a subscriber they were for was a high-water mark behind (it lost them and
    /// sees a sequence gap). A message lost by several slow subscribers counts once.
    public var droppedMessages: Int { socket.droppedSends + socket.lossySends }

    /// Publishes `data` on `topic` in an envelope of `type` (default: the topic's kind).
    ///
    /// - Parameters:
    ///   - source: the envelope's source (default: the topic's source).
    ///   - onlyIfChanged: skip the message when it equals the topic's last retained payload that was also
    ///     published with `onlyIfChanged` (only those are kept to compare with).
    ///   - retain: keep it as the topic's last value for snapshots.
    /// - Returns: the envelope's sequence number, or `nil` when skipped as unchanged.
    ///
    /// The envelope carries the task's trace context (``TraceContext/current``), so a subscriber continues
    /// the trace it was published in; without a `ServiceContext` or a tracer it carries none.
    ///
    /// Inlinable: only the envelope's encoding is generic, and specialized where the payload's type is
    /// known it runs without conformance look-ups; the bookkeeping stays in ``publish(on:retain:comparing:encode:)``.
    @inlinable
    @discardableResult
    public func publish<Payload: Codable & Sendable & Equatable>(
        _ data: Payload, on topic: Topic, type: String? = nil, source: String? = nil,
        onlyIfChanged: Bool = false, retain: Bool = true
    ) throws -> UInt64? {
        // The trace context is read in `encode`, only once the publish goes ahead: an unchanged payload skips it.
        try publish(on: topic, retain: retain, comparing: onlyIfChanged ? ComparedPayload(data) : nil) { seq, kind, topicSource in
            try Wire.encode(Envelope(
                type: type ?? kind, seq: seq, time: Date(), source: source ?? topicSource ?? service, trace: .current, data: data))
        }
    }

    /// Publishes `data` on a topic of its stream: ``publish(_:on:type:source:onlyIfChanged:retain:)`` with the
    /// payload's type checked against the topic's stream.
    @inlinable
    @discardableResult
    public func publish<Payload: Codable & Sendable & Equatable>(
        _ data: Payload, on topic: StreamTopic<Payload>, type: String? = nil, source: String? = nil,
        onlyIfChanged: Bool = false, retain: Bool = true
    ) throws -> UInt64? {
        try publish(data, on: topic.topic, type: type, source: source, onlyIfChanged: onlyIfChanged, retain: retain)
    }

    /// A payload kept to compare the next one of its topic with (`onlyIfChanged`).
    @usableFromInline
    struct ComparedPayload: Sendable {
        @usableFromInline
        let payload: any Sendable
        /// Whether `payload` equals another topic value.
        @usableFromInline
        let equals: @Sendable (any Sendable) -> Bool

        @inlinable
        init<Payload: Equatable & Sendable>(_ payload: Payload) {
            self.payload = payload
            self.equals = { ($0 as? Payload) == payload }
        }
    }

    /// The bookkeeping of ``publish(_:on:type:source:onlyIfChanged:retain:)``: under the lock, skips an
    /// unchanged payload, numbers the message, has `encode` write its envelope (given the sequence number,
    /// the topic's kind and source), retains and sends it.
    @usableFromInline
    func publish(
        on topic: Topic, retain: Bool, comparing: ComparedPayload?,
        encode: (UInt64, String, String?) throws -> Data
    ) throws -> UInt64? {
        try state.withLock { state -> UInt64? in
            // One hash look-up: the entry is changed in place, made first for a new topic.
            guard let (seq, frames) = try send(on: &state.topics[topic, default: TopicState(topic)], retain: retain, comparing: comparing, encode: encode)
            else { return nil }
            state.send(frames, by: self)
            return seq
        }.map { seq in
            published.increment()
            return seq
        }
    }

    /// Under the lock, with `entry` the topic's state: see ``publish(on:retain:comparing:encode:)``; returns the
    /// sequence number and the frames to send.
    private func send(
        on entry: inout TopicState, retain: Bool, comparing: ComparedPayload?,
        encode: (UInt64, String, String?) throws -> Data
    ) throws -> (UInt64, [Data])? {
        if let comparing, let retained = entry.retained?.kept, comparing.equals(retained.payload) {
            return nil
        }
        let seq = entry.seq + 1
        let body = try encode(seq, entry.kind, entry.source)
        entry.seq = seq
        if retain { entry.retained = Retained(body: body, kept: comparing) }
        return (seq, [entry.frame, body])
    }

    /// Retracts `topic` (the Clone pattern's delete): drops its retained value, so snapshots leave it out of
    /// their entries (and list it, with its sequence number, in `retracted`), and publishes an envelope of type
    /// `deleted` with `null` data, numbered as the topic's next message, so subscribers that follow the stream
    /// forget it too. A later publish on the topic starts it again, numbered after the retraction; but only the
    /// last ``maxRetracted`` retractions' numbers are kept: a topic retracted longer ago than that is forgotten and
    /// starts again at 1, which a subscriber that saw its retraction takes as a gap (``ReplicaTracker``) and
    /// re-synchronises, so a publisher whose topics come and go by other names does not grow without end.
    ///
    /// - Returns: the envelope's sequence number, or `nil` when the topic held no value (nothing is sent).
    @discardableResult
    public func retract(_ topic: Topic, source: String? = nil) throws -> UInt64? {
        let trace = TraceContext.current
        return try state.withLock { state -> UInt64? in
            guard var entry = state.topics[topic], entry.retained != nil else { return nil }
            let seq = entry.seq + 1
            let none: String? = nil
            let body = try Wire.encode(Envelope(
                type: BusMessage.deletedType, seq: seq, time: Date(), source: source ?? entry.source ?? service, trace: trace, data: none))
            entry.seq = seq
            entry.retained = nil
            state.topics[topic] = entry
            state.send([entry.frame, body], by: self)
            forgetOldRetractions(after: (topic, seq), in: &state)
            return seq
        }.map { seq in
            published.increment()
            return seq
        }
    }

    /// Records the retraction `latest` and forgets the oldest ones past ``maxRetracted`` (a topic published again
    /// since is kept: its seq moved on).
    private func forgetOldRetractions(after latest: (topic: Topic, seq: UInt64), in state: inout State) {
        state.retractions.append(latest)
        while state.retractions.count - state.retractionsStart > maxRetracted {
            let oldest = state.retractions[state.retractionsStart]
            state.retractionsStart += 1
            if let entry = state.topics[oldest.topic], entry.retained == nil, entry.seq == oldest.seq {
                state.topics[oldest.topic] = nil
            }
        }
        if state.retractionsStart > 1024, state.retractionsStart * 2 > state.retractions.count {
            state.retractions.removeFirst(state.retractionsStart)
            state.retractionsStart = 0
        }
    }

    /// The endpoint the socket bound last: with `tcp://127.0.0.1:*`, the port it picked.
    public func boundEndpoint() async throws -> String {
        try socket.withSocket { try $0.lastEndpoint() }
    }

    /// Every retained topic under `prefix` with its last envelope and sequence number, and every other topic
    /// under it (retracted, or published only without `retain`) with its sequence number alone, so a
    /// subscriber reset to the snapshot takes the topic's next message, its return, as the next.
    public func snapshot(prefix: String) -> Snapshot {
        var entries: [Snapshot.Entry] = []
        var retracted: [Topic: UInt64] = [:]
        state.withLock { state in
            for (topic, entry) in state.topics where entry.seq > 0 && topic.rawValue.hasPrefix(prefix) {
                if let retained = entry.retained {
                    // The topic's own seq, not the retained message's: messages published with `retain: false`
                    // since are covered, so a subscriber reset to this entry takes the next message as the next.
                    entries.append(Snapshot.Entry(topic: topic, seq: entry.seq, body: String(decoding: retained.body, as: UTF8.self)))
                } else {
                    retracted[topic] = entry.seq
                }
            }
        }
        return Snapshot(publisher: service, instance: instance, entries: entries.sorted { $0.topic < $1.topic }, retracted: retracted)
    }

    /// Sends heartbeats until graceful shutdown, then closes the socket.
    public func run() async throws {
        let topic = try Topic(kind: "heartbeat", source: service)
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                self.sendHeartbeat(on: topic)
                try? await Task.sleep(for: self.heartbeatInterval)
            }
        }
        socket.close()
        logger.info("publisher closed", metadata: ["service": "\(service)"])
    }

    /// Publishes one heartbeat now.
    func sendHeartbeat(on topic: Topic) {
        let (seq, topics) = state.withLock { state in
            state.heartbeatSeq += 1
            return (state.heartbeatSeq, state.topics.values.reduce(0) { $0 + ($1.retained == nil ? 0 : 1) })
        }
        let heartbeat = Heartbeat(
            service: service, instance: instance, topics: topics, dropped: droppedMessages,
            intervalMilliseconds: Int(heartbeatInterval.components.seconds * 1000
                + heartbeatInterval.components.attoseconds / 1_000_000_000_000_000))
        let envelope = Envelope(type: "heartbeat", seq: seq, time: Date(), source: service, data: heartbeat)
        if let body = try? Wire.encode(envelope) {
            send([Data(topic.rawValue.utf8), body])
        }
    }

    /// Runs `body`, holding the messages published meanwhile (by any caller) and sending them together, in order,
    /// when it ends (the outermost call, when nested). For a caller that publishes a burst: libzmq's I/O thread is then
    /// woken once for the burst and writes it in few system calls, rather than being woken, and writing, per message
    /// (the feed hub republishing what it read in one go).
    public func publishingTogether<T>(_ body: () throws -> T) rethrows -> T {
        state.withLock { $0.together += 1 }
        defer {
            state.withLock { state in
                state.together -= 1
                guard state.together == 0 else { return }
                // Under the lock, so that nothing published after them is sent before them.
                for frames in state.held { send(frames) }
                state.held.removeAll(keepingCapacity: true)
            }
        }
        return try body()
    }

    /// Sends a message, counting it in `tickwire_bus_publisher_dropped_total` when a subscriber lost it.
    fileprivate func send(_ frames: [Data]) {
        if socket.sendReportingLoss(frames) != .sent { lost.increment() }
    }

    /// Closes the socket without waiting for shutdown (tests and error paths).
    public func close() async { socket.close() }
}

extension BusMessage {
    /// The envelope type of a retraction: the topic's value is gone (``Publisher/retract(_:source:)``).
    public static let deletedType = "deleted"

    /// Whether this message retracts its topic (type `deleted`, `null` data) rather than carrying a value.
    public var isRetraction: Bool { header.type == Self.deletedType }
}
