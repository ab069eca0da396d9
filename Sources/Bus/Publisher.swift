import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import ZeroMQ
import BusContract
import WireJSON

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

    private struct State: ~Copyable {
        var topics: [Topic: TopicState] = [:]
        var heartbeatSeq: UInt64 = 0
        var outbox = Outbox()
        /// Where a direct payload's envelope is written, message after message.
        var buffer = WireBuffer()
        /// The text of the current minute, for the envelopes' times.
        var dates = WireDateCache()
        /// The retractions in the order they were made, from `retractionsStart` on: the topic and its seq then.
        var retractions: [(topic: Topic, seq: UInt64)] = []
        var retractionsStart = 0

        /// Under the lock: see ``Publisher/publish(on:retain:onlyIfChanged:unchanged:keep:write:)``. `encode` writes the
        /// envelope into the buffer (given the date cache, the sequence number, the topic's kind and source) and returns
        /// nil, or returns it as `Data`.
        mutating func publish(
            on topic: Topic, retain: Bool, onlyIfChanged: Bool, unchanged: @Sendable (any AnyObject & Sendable) -> Bool, keep: @Sendable (inout (any AnyObject & Sendable)?) -> Void,
            encode: @Sendable (inout WireBuffer, inout WireDateCache, UInt64, String, String?) throws -> Data?, by publisher: Publisher
        ) throws -> UInt64? {
            // One hash look-up: the entry is changed in place, made first for a new topic.
            let seq = try Self.publish(
                on: &topics[topic, default: TopicState(topic)], outbox: &outbox, buffer: &buffer, dates: &dates, retain: retain,
                onlyIfChanged: onlyIfChanged, unchanged: unchanged, keep: keep, encode: encode, by: publisher)
            // One large message does not keep its size for the rest of the run.
            if buffer.capacity > 64 * 1024 { buffer = WireBuffer() }
            return seq
        }

        /// ``publish(on:retain:onlyIfChanged:unchanged:keep:encode:by:)`` with `entry` the topic's state.
        private static func publish(
            on entry: inout TopicState, outbox: inout Outbox, buffer: inout WireBuffer, dates: inout WireDateCache, retain: Bool,
            onlyIfChanged: Bool, unchanged: @Sendable (any AnyObject & Sendable) -> Bool, keep: @Sendable (inout (any AnyObject & Sendable)?) -> Void,
            encode: @Sendable (inout WireBuffer, inout WireDateCache, UInt64, String, String?) throws -> Data?, by publisher: Publisher
        ) throws -> UInt64? {
            if onlyIfChanged, entry.isCompared, let kept = entry.kept, unchanged(kept) { return nil }
            let seq = entry.seq + 1
            buffer.removeAll()
            let encoded = try encode(&buffer, &dates, seq, entry.kind, entry.source)
            entry.seq = seq
            if retain {
                entry.isCompared = onlyIfChanged
                if onlyIfChanged { keep(&entry.kept) }
            }
            func send(_ bytes: UnsafeRawBufferPointer) {
                if retain { entry.retain(bytes) }
                outbox.send(frame: entry.frame, body: bytes, by: publisher)
            }
            if let encoded {
                encoded.withUnsafeBytes(send)
            } else {
                buffer.withBytes(send)
            }
            return seq
        }
    }

    /// Where messages go: to the socket, or held while a ``publishingTogether(_:)`` runs.
    private struct Outbox {
        /// How many ``publishingTogether(_:)`` calls are running; while any is, messages wait in `held`.
        var together = 0
        /// The held messages' frames, end to end: no allocation per message once it has the burst's size.
        var held: [UInt8] = []
        /// Where each held message's topic frame and body end in `held`.
        var ends: [(topic: Int, body: Int)] = []

        /// Sends a message now, or holds it for the end of the running ``publishingTogether(_:)``.
        mutating func send(frame: Data, body: UnsafeRawBufferPointer, by publisher: Publisher) {
            if together > 0 {
                held.append(contentsOf: frame)
                let topicEnd = held.count
                held.append(contentsOf: body)
                ends.append((topicEnd, held.count))
            } else {
                frame.withUnsafeBytes { publisher.send($0, body) }
            }
        }

        /// Sends the held messages, in order, and empties the outbox (keeping its capacity).
        mutating func sendHeld(by publisher: Publisher) {
            held.withUnsafeBytes { bytes in
                var start = 0
                for end in ends {
                    publisher.send(UnsafeRawBufferPointer(rebasing: bytes[start..<end.topic]), UnsafeRawBufferPointer(rebasing: bytes[end.topic..<end.body]))
                    start = end.body
                }
            }
            held.removeAll(keepingCapacity: true)
            ends.removeAll(keepingCapacity: true)
        }
    }

    /// What the publisher keeps of one topic, found with one hash look-up per message: its last sequence
    /// number, its first frame and default envelope fields made once, and its retained value.
    private struct TopicState {
        var seq: UInt64 = 0
        let frame: Data
        let kind: String
        let source: String?
        /// Whether `body` is the topic's retained value: false before one, and once retracted.
        var isRetained = false
        /// The retained envelope, overwritten in place by the next one (no allocation once it has the size).
        var body: [UInt8] = []
        /// The payload the next `onlyIfChanged` publish compares with, a ``Kept`` made on the topic's first such
        /// publish and updated in place; it counts only while `isCompared`.
        var kept: (any AnyObject & Sendable)?
        /// Whether the retained value was published with `onlyIfChanged`, so `kept` is its payload; without it the
        /// next such publish compares with nothing and goes out.
        var isCompared = false

        init(_ topic: Topic) {
            frame = Data(topic.rawValue.utf8)
            kind = String(topic.kind)
            source = topic.source.map(String.init)
        }

        /// Keeps `bytes` as the retained value.
        mutating func retain(_ bytes: UnsafeRawBufferPointer) {
            body.removeAll(keepingCapacity: true)
            body.append(contentsOf: bytes)
            isRetained = true
        }

        /// Drops the retained value.
        mutating func retract() {
            body = []
            isRetained = false
            isCompared = false
            kept = nil
        }
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
    /// known it runs without conformance look-ups; the bookkeeping stays in ``publish(on:retain:onlyIfChanged:unchanged:keep:encode:)``.
    @inlinable
    @discardableResult
    public func publish<Payload: Codable & Sendable & Equatable>(
        _ data: Payload, on topic: Topic, type: String? = nil, source: String? = nil,
        onlyIfChanged: Bool = false, retain: Bool = true
    ) throws -> UInt64? {
        // The trace context is read in `encode`, only once the publish goes ahead: an unchanged payload skips it.
        try publish(
            on: topic, retain: retain, onlyIfChanged: onlyIfChanged,
            unchanged: { Kept<Payload>.holds(data, in: $0) }, keep: { Kept.keep(data, in: &$0) }
        ) { seq, kind, topicSource in
            try Wire.encode(Envelope(
                type: type ?? kind, seq: seq, time: Date(), source: source ?? topicSource ?? service, trace: .current, data: data))
        }
    }

    /// Publishes `data`, a payload with a direct wire codec, as ``publish(_:on:type:source:onlyIfChanged:retain:)``
    /// does, writing its envelope straight into the publisher's buffer: the same bytes, with no Codable container
    /// and no `Data` on the way to the socket. More specific, so such a payload takes it wherever its type is known.
    @inlinable
    @discardableResult
    public func publish<Payload: DirectWireEncodable & Codable & Sendable & Equatable>(
        _ data: Payload, on topic: Topic, type: String? = nil, source: String? = nil,
        onlyIfChanged: Bool = false, retain: Bool = true
    ) throws -> UInt64? {
        // The trace context is read in `write`, only once the publish goes ahead: an unchanged payload skips it.
        publish(
            on: topic, retain: retain, onlyIfChanged: onlyIfChanged,
            unchanged: { Kept<Payload>.holds(data, in: $0) }, keep: { Kept.keep(data, in: &$0) }
        ) { out, dates, seq, kind, topicSource in
            Envelope(type: type ?? kind, seq: seq, time: Date(), source: source ?? topicSource ?? service, trace: .current, data: data)
                .writeWire(to: &out, dates: &dates)
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

    /// Publishes `data`, a payload with a direct wire codec, on a topic of its stream (see the overload for a ``Topic``).
    @inlinable
    @discardableResult
    public func publish<Payload: DirectWireEncodable & Codable & Sendable & Equatable>(
        _ data: Payload, on topic: StreamTopic<Payload>, type: String? = nil, source: String? = nil,
        onlyIfChanged: Bool = false, retain: Bool = true
    ) throws -> UInt64? {
        try publish(data, on: topic.topic, type: type, source: source, onlyIfChanged: onlyIfChanged, retain: retain)
    }

    /// The payload a topic's next `onlyIfChanged` publish compares with: one box per topic, made on its first such
    /// publish and updated in place (no allocation per publish). Only read and written under the publisher's lock.
    @usableFromInline
    final class Kept<Payload: Equatable & Sendable>: @unchecked Sendable {
        @usableFromInline
        var value: Payload

        @usableFromInline
        init(_ value: Payload) { self.value = value }

        /// Whether `kept` is a box of this payload type holding a value equal (`==`) to `payload`.
        @inlinable
        static func holds(_ payload: Payload, in kept: any AnyObject & Sendable) -> Bool {
            (kept as? Kept<Payload>)?.value == payload
        }

        /// Puts `payload` in `kept`, in place when it is a box of this payload type.
        @inlinable
        static func keep(_ payload: Payload, in kept: inout (any AnyObject & Sendable)?) {
            if let box = kept as? Kept<Payload> {
                box.value = payload
            } else {
                kept = Kept(payload)
            }
        }
    }

    /// The bookkeeping of ``publish(_:on:type:source:onlyIfChanged:retain:)``: under the lock, skips a payload
    /// that `unchanged` finds equal to the topic's kept one (with `onlyIfChanged`), numbers the message, has `encode`
    /// write its envelope (given the sequence number, the topic's kind and source), retains it (with `keep` putting
    /// the payload in the topic's box) and sends it.
    @usableFromInline
    func publish(
        on topic: Topic, retain: Bool, onlyIfChanged: Bool, unchanged: @Sendable (any AnyObject & Sendable) -> Bool, keep: @Sendable (inout (any AnyObject & Sendable)?) -> Void,
        encode: @Sendable (UInt64, String, String?) throws -> Data
    ) throws -> UInt64? {
        try state.withLock { state -> UInt64? in
            try state.publish(
                on: topic, retain: retain, onlyIfChanged: onlyIfChanged, unchanged: unchanged, keep: keep,
                encode: { _, _, seq, kind, source in try encode(seq, kind, source) }, by: self)
        }.map { seq in
            published.increment()
            return seq
        }
    }

    /// ``publish(on:retain:onlyIfChanged:unchanged:keep:encode:)`` for a direct payload: `write` writes the envelope
    /// into the publisher's buffer (given its date cache, the sequence number, the topic's kind and source), from which
    /// it is retained and sent with no `Data` made.
    @usableFromInline
    func publish(
        on topic: Topic, retain: Bool, onlyIfChanged: Bool, unchanged: @Sendable (any AnyObject & Sendable) -> Bool, keep: @Sendable (inout (any AnyObject & Sendable)?) -> Void,
        write: @Sendable (inout WireBuffer, inout WireDateCache, UInt64, String, String?) -> Void
    ) -> UInt64? {
        state.withLock { state -> UInt64? in
            // Nothing in it throws: `encode` writes and returns nil.
            try? state.publish(
                on: topic, retain: retain, onlyIfChanged: onlyIfChanged, unchanged: unchanged, keep: keep,
                encode: { buffer, dates, seq, kind, source in
                    write(&buffer, &dates, seq, kind, source)
                    return nil
                }, by: self)
        }.map { seq in
            published.increment()
            return seq
        }
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
            guard var entry = state.topics[topic], entry.isRetained else { return nil }
            let seq = entry.seq + 1
            let none: String? = nil
            let body = try Wire.encode(Envelope(
                type: BusMessage.deletedType, seq: seq, time: Date(), source: source ?? entry.source ?? service, trace: trace, data: none))
            entry.seq = seq
            entry.retract()
            state.topics[topic] = entry
            body.withUnsafeBytes { state.outbox.send(frame: entry.frame, body: $0, by: self) }
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
            if let entry = state.topics[oldest.topic], !entry.isRetained, entry.seq == oldest.seq {
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
                if entry.isRetained {
                    // The topic's own seq, not the retained message's: messages published with `retain: false`
                    // since are covered, so a subscriber reset to this entry takes the next message as the next.
                    entries.append(Snapshot.Entry(topic: topic, seq: entry.seq, body: String(decoding: entry.body, as: UTF8.self)))
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
            return (state.heartbeatSeq, state.topics.values.reduce(0) { $0 + ($1.isRetained ? 1 : 0) })
        }
        let heartbeat = Heartbeat(
            service: service, instance: instance, topics: topics, dropped: droppedMessages,
            intervalMilliseconds: Int(heartbeatInterval.components.seconds * 1000
                + heartbeatInterval.components.attoseconds / 1_000_000_000_000_000))
        let envelope = Envelope(type: "heartbeat", seq: seq, time: Date(), source: service, data: heartbeat)
        if let body = try? Wire.encode(envelope) {
            Data(topic.rawValue.utf8).withUnsafeBytes { frame in body.withUnsafeBytes { send(frame, $0) } }
        }
    }

    /// Runs `body`, holding the messages published meanwhile (by any caller) and sending them together, in order,
    /// when it ends (the outermost call, when nested). For a caller that publishes a burst: libzmq's I/O thread is then
    /// woken once for the burst and writes it in few system calls, rather than being woken, and writing, per message
    /// (the feed hub republishing what it read in one go).
    public func publishingTogether<T>(_ body: () throws -> T) rethrows -> T {
        state.withLock { $0.outbox.together += 1 }
        defer {
            state.withLock { state in
                state.outbox.together -= 1
                // Under the lock, so that nothing published after them is sent before them.
                if state.outbox.together == 0 { state.outbox.sendHeld(by: self) }
            }
        }
        return try body()
    }

    /// Sends the message of topic frame `frame` and envelope `body`, counting it in `tickwire_bus_publisher_dropped_total`
    /// when a subscriber lost it.
    fileprivate func send(_ frame: UnsafeRawBufferPointer, _ body: UnsafeRawBufferPointer) {
        if socket.sendReportingLoss(parts: frame, body) != .sent { lost.increment() }
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
