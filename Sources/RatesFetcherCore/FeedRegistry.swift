import BusContract
import Foundation
import Market

/// A moment as the feed hub sees it: a monotonic instant to measure silences and rates by, and the wall-clock
/// date people read (`lastMessage`).
public struct IngestTime: Sendable, Hashable {
    /// For durations.
    public var instant: ContinuousClock.Instant
    /// For people.
    public var date: Date

    /// The moment `instant`, `date`.
    public init(instant: ContinuousClock.Instant, date: Date) {
        self.instant = instant
        self.date = date
    }

    /// Now.
    public static var now: IngestTime { IngestTime(instant: .now, date: Date()) }

    /// The moment `duration` later.
    public func advanced(by duration: Duration) -> IngestTime {
        let components = duration.components
        let seconds = Double(components.seconds) + Double(components.attoseconds) / 1e18
        return IngestTime(instant: instant + duration, date: date.addingTimeInterval(seconds))
    }
}

/// The feed hub's limits.
public struct IngestLimits: Sendable, Hashable {
    /// Messages a second each feed may send (its bucket refills at this rate and holds one second's worth).
    public var ratePerSecond: Int
    /// Heartbeat intervals without a message after which a plugin is `stale`.
    public var staleIntervals: Int
    /// The interval assumed until a plugin's first heartbeat says its own.
    public var defaultHeartbeat: Duration
    /// How long a plugin may be silent before it is `gone` and its topics are retracted.
    public var goneAfter: Duration
    /// How many feed names the hub keeps; past it, the name silent longest that is gone or never accepted is forgotten.
    public var maxFeeds: Int
    /// How many topics one feed may fill.
    public var maxTopicsPerFeed: Int

    /// The limits; by default 100,000 messages a second per feed, `stale` after 3 heartbeat intervals (1 s until
    /// a heartbeat says otherwise), `gone` after 30 s, 256 feeds of at most 10,000 topics.
    public init(
        ratePerSecond: Int = 100_000, staleIntervals: Int = 3, defaultHeartbeat: Duration = .seconds(1),
        goneAfter: Duration = .seconds(30), maxFeeds: Int = 256, maxTopicsPerFeed: Int = 10_000
    ) {
        self.ratePerSecond = ratePerSecond
        self.staleIntervals = staleIntervals
        self.defaultHeartbeat = defaultHeartbeat
        self.goneAfter = goneAfter
        self.maxFeeds = maxFeeds
        self.maxTopicsPerFeed = maxTopicsPerFeed
    }
}

/// What the hub decided about one message.
public enum IngestDecision: Sendable, Equatable {
    /// Accepted: republish it (heartbeats aside), and publish `status` when it is given (the feed's state changed,
    /// or the plugin reported its own status).
    case accepted(IngestMessage, status: FeedStatus?)
    /// Refused, counted under `feed` (the feed's name, or `-` when it names none the hub keeps).
    case refused(IngestRefused, feed: String)

    /// The label refusals of no known feed count under.
    public static let noFeed = "-"
}

/// What ``FeedRegistry/expire(at:)`` found: a plugin whose state changed with time, its new status, and the
/// topics to retract (when it is gone).
public struct IngestExpiry: Sendable, Equatable {
    /// The status to publish.
    public var status: FeedStatus
    /// The topics it filled, to retract now.
    public var retracted: [Topic]
}

/// The feed hub's memory of the plugins feeding it: who owns each name, each topic's last `seq`, each feed's rate
/// budget, state, and counts. A value with no clock, no socket and no publisher: every call says when it is, and
/// the hub does what the answers say.
public struct FeedRegistry: Sendable {
    /// The names no plugin may use: the hub's own feeds and the stack's services.
    public let reserved: Set<String>
    /// Its limits.
    public let limits: IngestLimits
    private var records: [String: Record] = [:]
    /// Refusals of messages naming a reserved name, by name (what `feeds` shows with the built-in feed).
    private var reservedRefusals: [String: [IngestRefusal: Int]] = [:]
    /// Refusals of messages naming no feed the hub keeps.
    private var unattributed: [IngestRefusal: Int] = [:]
    /// The topic frames read before, so a topic's text is read once rather than with every message (a plugin sends
    /// the same few topics again and again); forgotten all at once when it holds ``maxReadTopics``.
    private var readTopics: [Data: IngestTopic] = [:]

    /// At most this many topic frames are kept read.
    static let maxReadTopics = 65_536

    /// A registry refusing the names in `reserved`, within `limits`.
    public init(reserved: Set<String>, limits: IngestLimits = IngestLimits()) {
        self.reserved = reserved
        self.limits = limits
    }

    /// One plugin name's record.
    private struct Record: Sendable {
        let name: String
        /// Whether a message of it was ever accepted (since it was last `gone`); until then its state is shown as error.
        var registered = false
        var state: FeedStatus.State = .live
        /// The heartbeat instance that owns the name.
        var instance: String?
        /// With keys: the ZAP User-Id that owns the name.
        var userID: String?
        /// Without keys: when a heartbeat of another instance than the owner was last refused `name-taken`.
        var contended: ContinuousClock.Instant?
        var interval: Duration
        var lastAccepted: ContinuousClock.Instant?
        var lastMessage: Date?
        /// When any message naming it last came, accepted or not (which forgotten first).
        var lastSeen: ContinuousClock.Instant
        var accepted = 0
        var refused: [IngestRefusal: Int] = [:]
        var seqs: [Topic: UInt64] = [:]
        /// The topics it filled with values, to retract when it is gone.
        var filled: Set<Topic> = []
        var bucket: TokenBucket
        /// Its own last `status.<feed>`.
        var reported: FeedStatus?

        init(name: String, limits: IngestLimits, at now: IngestTime) {
            self.name = name
            interval = limits.defaultHeartbeat
            lastSeen = now.instant
            bucket = TokenBucket(at: now.instant)
        }

        /// Forgets what a new run of the plugin starts afresh: its topics' sequence numbers, its instance and the
        /// interval its heartbeats announced.
        mutating func restart(limits: IngestLimits) {
            seqs = [:]
            instance = nil
            contended = nil
            interval = limits.defaultHeartbeat
        }
    }

    /// A token bucket of one second's worth of messages, refilled at `ratePerSecond`, kept exactly as the one moment
    /// it would be full again (the generic cell rate algorithm): each message moves that moment on by its share of a
    /// second, and a message that would move it more than a second past now is refused.
    struct TokenBucket: Sendable {
        var fullAgain: ContinuousClock.Instant

        init(at now: ContinuousClock.Instant) { fullAgain = now }

        /// Takes a token if there is one.
        mutating func take(ratePerSecond: Int, at now: ContinuousClock.Instant) -> Bool {
            let next = max(fullAgain, now) + .seconds(1) / ratePerSecond
            guard next - now <= .seconds(1) else { return false }
            fullAgain = next
            return true
        }
    }

    // MARK: Receiving

    /// Decides about one message: its frames `[topic, envelope]` and, with keys, the User-Id of the connection it
    /// came on. Counts a refusal; records an acceptance (the feed registered or live again, the topic's `seq`).
    ///
    /// The checks run cheapest first: the frames and topic, the name (reserved, owned by another key), the feed's
    /// rate, then the envelope, its values, the owner's instance and the topic's `seq`.
    public mutating func receive(_ frames: [Data], userID: String?, at now: IngestTime) -> IngestDecision {
        guard frames.count == 2 else {
            return refuse(IngestRefused(.malformed, feed: nil, "\(frames.count) frames: a message is two frames [topic, envelope]"), at: now)
        }
        let topic: IngestTopic
        if let read = readTopics[frames[0]] {
            topic = read
        } else {
            do {
                topic = try IngestValidation.topic(frames[0])
            } catch {
                return refuse(error, at: now)
            }
            if readTopics.count >= Self.maxReadTopics { readTopics = [:] }
            readTopics[frames[0]] = topic
        }
        let feed = topic.feed
        guard !reserved.contains(feed) else {
            return refuse(IngestRefused(.reserved, feed: feed, "\(feed) is the name of one of the hub's own feeds or of a service"), at: now)
        }
        guard var record = takeRecord(feed, at: now) else {
            return refuse(IngestRefused(.topic, feed: nil, "\(feed): the hub keeps \(limits.maxFeeds) feeds, none of them gone: try again later"), at: now)
        }
        defer { records[feed] = record }
        record.lastSeen = now.instant
        if let userID, let owner = record.userID, owner != userID {
            return refuse(IngestRefused(.nameTaken, feed: feed, "\(feed) belongs to \(owner); this connection is \(userID)"), in: &record)
        }
        guard record.bucket.take(ratePerSecond: limits.ratePerSecond, at: now.instant) else {
            return refuse(IngestRefused(.rateLimit, feed: feed, "\(feed) sends more than \(limits.ratePerSecond) messages a second"), in: &record)
        }
        let message: IngestMessage
        do {
            message = try IngestValidation.message(on: topic, body: frames[1])
        } catch {
            return refuse(error, in: &record)
        }
        return accept(message, userID: userID, in: &record, at: now)
    }

    /// The record of `feed`, made if it is new; nil when the hub keeps as many feeds as it may and none can be forgotten.
    private mutating func takeRecord(_ feed: String, at now: IngestTime) -> Record? {
        if let record = records.removeValue(forKey: feed) { return record }
        if records.count >= limits.maxFeeds {
            let forgettable = records.values.filter { !$0.registered || $0.state == .gone }
            guard let oldest = forgettable.min(by: { $0.lastSeen < $1.lastSeen }) else { return nil }
            records[oldest.name] = nil
        }
        return Record(name: feed, limits: limits, at: now)
    }

    /// The checks that need the record's past (the owner's instance, the topic's `seq`), then the acceptance.
    private func accept(_ message: IngestMessage, userID: String?, in record: inout Record, at now: IngestTime) -> IngestDecision {
        let feed = record.name
        if !record.registered || record.state == .gone {
            // The first message since the name was free: whoever sends it registers it, afresh.
            record.restart(limits: limits)
        }
        if case .heartbeat(let heartbeat) = message.payload, let owner = record.instance, owner != heartbeat.instance {
            // A second instance of the name: with keys, the owner's own key restarted; without, another process,
            // which takes over once the owner is stale (a plugin restarted without keys is not locked out) but not
            // while it is live. Either way its topics start afresh.
            guard userID != nil || record.state == .stale else {
                record.contended = now.instant
                return refuse(IngestRefused(.nameTaken, feed: feed, "\(feed) belongs to instance \(owner) while it is live; heartbeat of instance \(heartbeat.instance)"), in: &record)
            }
            record.restart(limits: limits)
        }
        if userID == nil, message.topic.kind != .heartbeat, let contended = record.contended {
            // Without keys the hub cannot tell whose data this is while another instance heartbeats for the live
            // name (within 3 of the owner's intervals): refused, so an impostor's data reaches no one.
            if now.instant - contended < record.interval * 3 {
                return refuse(IngestRefused(.nameTaken, feed: feed, "\(feed) is contested: instance \(record.instance ?? "?") owns it and another instance's heartbeats came; data without keys cannot be told apart"), in: &record)
            }
            record.contended = nil
        }
        let topic = message.topic.topic
        if let last = record.seqs[topic], message.seq <= last {
            return refuse(IngestRefused(.seq, feed: feed, "\(topic): seq \(message.seq) after \(last) (it must grow)"), in: &record)
        }
        let fills = message.topic.kind != .heartbeat && message.topic.kind != .status
        if fills, !record.filled.contains(topic), record.filled.count >= limits.maxTopicsPerFeed {
            return refuse(IngestRefused(.topic, feed: feed, "\(topic): \(feed) already fills \(limits.maxTopicsPerFeed) topics"), in: &record)
        }
        if fills { record.filled.insert(topic) }
        record.seqs[topic] = message.seq
        if case .heartbeat(let heartbeat) = message.payload {
            record.instance = heartbeat.instance
            record.interval = .milliseconds(heartbeat.intervalMilliseconds)
        }
        let reported: Bool
        if case .status(let status) = message.payload {
            record.reported = status
            reported = true
        } else {
            reported = false
        }
        let changed = !record.registered || record.state != .live
        record.registered = true
        record.state = .live
        if let userID, record.userID == nil { record.userID = userID }
        record.accepted += 1
        record.lastAccepted = now.instant
        record.lastMessage = now.date
        return .accepted(message, status: changed || reported ? Self.status(of: record, limits: limits) : nil)
    }

    private func refuse(_ refusal: IngestRefused, in record: inout Record) -> IngestDecision {
        record.refused[refusal.reason, default: 0] += 1
        return .refused(refusal, feed: record.name)
    }

    /// Counts a refusal that came before the message's record was taken: under a reserved name, a kept feed, or `-`.
    private mutating func refuse(_ refusal: IngestRefused, at now: IngestTime) -> IngestDecision {
        guard let feed = refusal.feed else {
            unattributed[refusal.reason, default: 0] += 1
            return .refused(refusal, feed: IngestDecision.noFeed)
        }
        if reserved.contains(feed) {
            reservedRefusals[feed, default: [:]][refusal.reason, default: 0] += 1
            return .refused(refusal, feed: feed)
        }
        guard var record = takeRecord(feed, at: now) else {
            unattributed[refusal.reason, default: 0] += 1
            return .refused(refusal, feed: IngestDecision.noFeed)
        }
        record.lastSeen = now.instant
        defer { records[feed] = record }
        return refuse(refusal, in: &record)
    }

    // MARK: Time

    /// Moves each plugin silent long enough to `stale` (``IngestLimits/staleIntervals`` heartbeat intervals) or
    /// `gone` (``IngestLimits/goneAfter``; its topics to retract, its name free again, its sequence numbers forgotten).
    public mutating func expire(at now: IngestTime) -> [IngestExpiry] {
        var expiries: [IngestExpiry] = []
        for name in records.keys.sorted() {
            guard var record = records[name], record.registered, record.state != .gone, let last = record.lastAccepted else { continue }
            let silence = now.instant - last
            if silence >= limits.goneAfter {
                let retracted = record.filled.sorted()
                record.state = .gone
                record.filled = []
                record.restart(limits: limits)
                records[name] = record
                expiries.append(IngestExpiry(status: Self.status(of: record, limits: limits), retracted: retracted))
            } else if record.state == .live, silence >= record.interval * limits.staleIntervals {
                record.state = .stale
                records[name] = record
                expiries.append(IngestExpiry(status: Self.status(of: record, limits: limits), retracted: []))
            }
        }
        return expiries
    }

    // MARK: Reading

    /// Every plugin's status, by name.
    public var statuses: [FeedStatus] {
        records.keys.sorted().compactMap { records[$0].map { Self.status(of: $0, limits: limits) } }
    }

    /// The refusals of messages that gave `name`, a reserved name (one of the hub's own feeds), by reason; nil for none.
    public func refusals(ofReserved name: String) -> [String: Int]? {
        reservedRefusals[name].map(Self.counts)
    }

    /// The `feed` label a refusal counted under `feed` gets in the metrics: the name itself for a registered plugin or
    /// a reserved name, else `-`, so names only ever refused (garbage on random names) make no series.
    public func metricLabel(_ feed: String) -> String {
        reserved.contains(feed) || records[feed]?.registered == true ? feed : IngestDecision.noFeed
    }

    /// The refusals of messages that named no feed the hub keeps, by reason.
    public var unattributedRefusals: [String: Int] { Self.counts(unattributed) }

    /// The state and counts of a plugin, as `feeds` lists it and `status.<feed>` carries it: `live`, `stale` or
    /// `gone`; `error` while nothing of it was accepted, or while it is live and its own status reports an error.
    private static func status(of record: Record, limits: IngestLimits) -> FeedStatus {
        var state = record.state
        var message: String?
        if !record.registered {
            state = .error
            message = "nothing of it accepted yet: every message was refused"
        } else {
            switch record.state {
            case .stale:
                message = "no message for \(limits.staleIntervals) heartbeat intervals of \(milliseconds(record.interval)) ms"
            case .gone:
                message = "no message for \(milliseconds(limits.goneAfter) / 1000) s: its topics were retracted"
            default:
                message = record.reported?.message
                if record.reported?.state == .error { state = .error }
            }
        }
        var status = FeedStatus(
            feed: record.name, state: state, message: message,
            lastSuccess: record.reported?.lastSuccess, lastAttempt: record.reported?.lastAttempt)
        status.kind = .plugin
        status.lastMessage = record.lastMessage
        status.accepted = record.accepted
        status.refused = counts(record.refused)
        return status
    }

    private static func counts(_ refused: [IngestRefusal: Int]) -> [String: Int] {
        Dictionary(uniqueKeysWithValues: refused.map { ($0.key.rawValue, $0.value) })
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}
