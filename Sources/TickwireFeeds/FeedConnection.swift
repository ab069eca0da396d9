import Bus
import BusContract
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// A feed's connection to a hub's ingest endpoint (rates-fetcher's `--ingest`): a socket that connects there and
/// sends each publication as `[topic, envelope]`, the envelope numbered per topic and signed with the feed's name
/// as `source`, and `heartbeat.<feed>` once a second with an instance new on every start.
///
/// The socket is an XPUB, so it learns when the hub's subscription arrives: at first, and again after the hub
/// restarted. Each time it sends every topic's last value again (numbered on), so what a poll published before the
/// hub listened, and values that have not changed since, still reach it. Like ``Publisher``, `publish` is synchronous
/// and never blocks; a message no hub listens to is lost, not queued. The socket has `ZMQ_XPUB_NODROP` set, so a
/// message the hub's queue (the send high-water mark) has no room for is not lost silently: it counts in
/// ``droppedMessages``, the heartbeats' `dropped` and `tickwire_feed_dropped_total{feed}`.
public final class FeedConnection: Service, Sendable {
    /// The feed's source name: every topic's second component and every envelope's `source`.
    public let name: String
    /// Every name it publishes under: ``name`` and the `otherNames` it was made with (a replay of several feeds
    /// carries them all on one connection, in one order). Each has its own heartbeat.
    public let names: [String]
    /// A fresh identity for this run (the heartbeat's `instance`): a hub starts this feed's topics afresh when it changes.
    public let instance: String
    /// The hub's ingest endpoint.
    public let endpoint: String
    /// How often the heartbeat goes out.
    public let heartbeatInterval: Duration

    private let socket: OwnedSocket
    private let state = Mutex(State())
    private let logger: Logger
    private let unsent = Atomic<Int>(0)
    private let lost: Counter

    private struct State {
        var topics: [Topic: TopicState] = [:]
        var heartbeatSeqs: [String: UInt64] = [:]
        var subscriptions = 0
    }

    private struct TopicState {
        var seq: UInt64 = 0
        let frame: Data
        var last: FeedPublication?

        init(_ topic: Topic) { frame = Data(topic.rawValue.utf8) }
    }

    /// Connects to the hub at `endpoint` as feed `name` (and `otherNames`), with `security` (a CURVE client: the
    /// feed's writer certificate and the hub's public key); throws for a name outside ``FeedName``'s grammar.
    public init(
        context: ZMQContext, name: String, otherNames: [String] = [], endpoint: String, security: SocketSecurity = SocketSecurity(),
        heartbeatInterval: Duration = .seconds(1), highWaterMark: Int32 = 100_000, logger: Logger
    ) throws {
        self.name = try FeedName.checked(name)
        var names = [self.name]
        for other in otherNames where !names.contains(other) { names.append(try FeedName.checked(other)) }
        self.names = names
        self.instance = UUID().uuidString.lowercased()
        self.endpoint = endpoint
        self.heartbeatInterval = heartbeatInterval
        self.logger = logger
        lost = Counter(label: "tickwire_feed_dropped_total", dimensions: [("feed", name)])
        socket = try OwnedSocket(context: context, type: .xpub, name: "feed-\(name)", receiveBuffer: 1_000) { socket in
            try socket.set(.sendHighWaterMark, highWaterMark)
            try socket.set(.xpubVerbose, true)
            try socket.set(.xpubNoDrop, true)
            try security.apply(to: socket)
            try socket.connect(endpoint)
        }
    }

    /// Publishes `publication`, numbered as its topic's next message; with `onlyIfChanged`, skips it when it equals
    /// the topic's last value.
    ///
    /// - Returns: its sequence number, or nil when skipped as unchanged.
    /// - Throws: ``FeedError/topicOfAnotherFeed(topic:feed:)`` for a topic of another feed, ``FeedError/closed(_:)``
    ///   once the connection is closed, or the payload's encoding error.
    @discardableResult
    public func publish(_ publication: FeedPublication, onlyIfChanged: Bool = true) throws -> UInt64? {
        let source = try sourceName(of: publication)
        return try state.withLock { state -> UInt64? in
            try send(publication, source: source, entry: &state.topics[publication.topic, default: TopicState(publication.topic)], onlyIfChanged: onlyIfChanged)
        }
    }

    /// Publishes `publication` numbered as its topic's next message, waiting while the hub's queue is full: the calling
    /// thread, a dedicated one (never a thread of Swift's cooperative pool), sleeps until the socket's own thread sees
    /// libzmq's signal that the hub took queued messages (or anything else changed on the socket), tries again, and so on.
    /// Each wait ends after `timeout` at the latest (a safety net), and at once on ``wakeWaiters()``: then, and before
    /// every try, `stop` says whether to give up. Never skips an unchanged value.
    /// - Returns: its sequence number and whether it waited, or nil when `stop` said to give up (nothing sent).
    /// - Throws: as ``publish(_:onlyIfChanged:)``.
    public func publish(
        waitingForRoom publication: FeedPublication, timeout: Duration = .seconds(1), stop: () -> Bool = { false }
    ) throws -> (seq: UInt64, waited: Bool)? {
        let source = try sourceName(of: publication)
        var waited = false
        while !stop() {
            let attempt = try state.withLock { state -> Attempt in
                try attemptSend(publication, source: source, entry: &state.topics[publication.topic, default: TopicState(publication.topic)])
            }
            switch attempt {
            case .sent(let seq):
                return (seq, waited)
            case .full(let mark):
                waited = true
                if stop() { return nil }
                socket.waitForChange(after: mark, timeout: timeout)
            }
        }
        return nil
    }

    /// Ends every wait of ``publish(waitingForRoom:timeout:stop:)`` now (a sender being stopped: its `stop` then says so).
    public func wakeWaiters() { socket.wakeWaiters() }

    /// The name of ``names`` that `publication`'s topic gives, else ``FeedError/topicOfAnotherFeed(topic:feed:)``.
    private func sourceName(of publication: FeedPublication) throws(FeedError) -> String {
        guard let source = publication.topic.source.map(String.init), names.contains(source) else {
            throw FeedError.topicOfAnotherFeed(topic: publication.topic.rawValue, feed: name)
        }
        return source
    }

    /// Publishes `payload` on `topic`: ``publish(_:onlyIfChanged:)``.
    @discardableResult
    public func publish<Payload: Codable & Sendable & Equatable>(
        _ payload: Payload, on topic: StreamTopic<Payload>, onlyIfChanged: Bool = true
    ) throws -> UInt64? {
        try publish(FeedPublication(payload, on: topic), onlyIfChanged: onlyIfChanged)
    }

    /// Messages the hub did not get because its queue was full (the send high-water mark reached), heartbeats included.
    public var droppedMessages: Int { unsent.load(ordering: .relaxed) + socket.droppedSends }

    /// Under the lock: numbers, encodes and sends `publication` as `source`, and keeps it as its topic's last value. A
    /// message the hub's full queue refused is counted (its number is used: the hub sees a gap, which it accepts).
    private func send(_ publication: FeedPublication, source: String, entry: inout TopicState, onlyIfChanged: Bool) throws -> UInt64? {
        if onlyIfChanged, let last = entry.last, last.hasSamePayload(as: publication) { return nil }
        let seq = entry.seq + 1
        let body = try publication.envelope(seq: seq, time: Date(), source: source)
        let sent: Bool
        do {
            sent = try socket.send([entry.frame, body])
        } catch {
            throw FeedError.closed(name)
        }
        if !sent {
            unsent.add(1, ordering: .relaxed)
            lost.increment()
        }
        entry.seq = seq
        entry.last = publication
        return seq
    }

    /// What one try of ``publish(waitingForRoom:timeout:stop:)`` did.
    private enum Attempt {
        /// Sent, with this number.
        case sent(UInt64)
        /// The hub's queue was full: nothing sent, numbered or kept; the socket's state at the refusal.
        case full(OwnedSocket.StateMark)
    }

    /// Under the lock: numbers, encodes and sends `publication` as `source` if the hub's queue has room, and keeps it as
    /// its topic's last value.
    private func attemptSend(_ publication: FeedPublication, source: String, entry: inout TopicState) throws -> Attempt {
        let seq = entry.seq + 1
        let body = try publication.envelope(seq: seq, time: Date(), source: source)
        let refusal: OwnedSocket.StateMark?
        do {
            refusal = try socket.sendOrMark([entry.frame, body])
        } catch {
            throw FeedError.closed(name)
        }
        if let refusal { return .full(refusal) }
        entry.seq = seq
        entry.last = publication
        return .sent(seq)
    }

    /// How many times a hub's subscription arrived (the first connection, and each reconnection of a restarted hub).
    public var subscriptions: Int { state.withLock { $0.subscriptions } }

    /// Waits until a hub has subscribed, so what is published next reaches it; false if none did within `timeout`.
    public func waitForHub(within timeout: Duration) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while subscriptions == 0 {
            guard ContinuousClock.now < deadline, !Task.isCancelled else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Sends heartbeats and follows the hub's subscriptions until graceful shutdown (or cancellation), then closes
    /// the socket.
    public func run() async throws {
        let incoming = socket.incoming
        let reader = Task { for await frames in incoming { self.received(frames) } }
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled {
                self.sendHeartbeat()
                try? await Task.sleep(for: self.heartbeatInterval)
            }
        }
        await socket.close()
        await reader.value
        logger.info("feed connection closed", metadata: ["feed": "\(name)", "ingest": "\(endpoint)"])
    }

    /// A message from the hub's side: a subscription (first byte 1) makes every topic's last value go out again.
    private func received(_ frames: [Data]) {
        guard let frame = frames.first, frame.first == 1 else { return }
        let resent = state.withLock { state -> Int in
            state.subscriptions += 1
            var resent = 0
            for topic in Array(state.topics.keys) {
                guard var entry = state.topics[topic], let last = entry.last, let source = topic.source.map(String.init) else { continue }
                if (try? send(last, source: source, entry: &entry, onlyIfChanged: false)) != nil { resent += 1 }
                state.topics[topic] = entry
            }
            return resent
        }
        sendHeartbeat()
        logger.info("hub subscribed", metadata: ["feed": "\(name)", "ingest": "\(endpoint)", "resent": "\(resent)"])
    }

    /// Publishes one `heartbeat.<feed>` now for each of ``names``. Numbered and sent under the lock, so heartbeats from
    /// the interval's loop and from a subscription arriving go out in the order of their numbers.
    public func sendHeartbeat() {
        let milliseconds = heartbeatInterval.components.seconds * 1000 + heartbeatInterval.components.attoseconds / 1_000_000_000_000_000
        state.withLock { state in
            for name in names {
                let seq = state.heartbeatSeqs[name, default: 0] + 1
                state.heartbeatSeqs[name] = seq
                let topics = names.count == 1 ? state.topics.count : state.topics.keys.count { $0.source.map(String.init) == name }
                let heartbeat = Heartbeat(service: name, instance: instance, topics: topics, dropped: droppedMessages,
                                          intervalMilliseconds: Int(milliseconds))
                let envelope = Envelope(type: "heartbeat", seq: seq, time: Date(), source: name, data: heartbeat)
                guard let body = try? Wire.encode(envelope) else { continue }
                if (try? socket.send([Data("heartbeat.\(name)".utf8), body])) != true {
                    unsent.add(1, ordering: .relaxed)
                    lost.increment()
                }
            }
        }
    }

    /// Closes the socket without waiting for shutdown (tests and error paths); later publications throw.
    public func close() async { await socket.close() }
}
