import Bus
import BusContract
import Foundation
import Logging
import Market
import Metrics
import Synchronization
import TickwireContract

/// rates-fetcher as the feed hub: what plugins publish into its ingest endpoint is checked (``FeedRegistry``),
/// counted, and what is accepted republished on its own stream with its own sequence numbers and the plugin's name
/// as the source, and kept in its snapshot; each plugin's state change is published on `status.<feed>`, and a plugin
/// that is gone has its topics retracted.
///
/// Counts: `tickwire_ingest_accepted_total{feed}` and `tickwire_ingest_refused_total{feed,reason}` (`feed` is `-`
/// for a message that names no registered plugin or reserved name, so refused names make no series). Each kind of refusal is logged at most once a second per feed,
/// with how many like it were not logged.
public final class IngestHub: Sendable {
    /// Where accepted messages are republished.
    public let publisher: Publisher
    /// The plugins' price series, for `history`.
    public let history: PluginHistory
    private let state: Mutex<State>
    private let logger: Logger
    private let clock: @Sendable () -> IngestTime

    /// The registry, and the counters and log times kept per label so the hot path makes none.
    private struct State {
        var registry: FeedRegistry
        var accepted: [String: Counter] = [:]
        var refused: [String: Counter] = [:]
        /// When each feed and reason was last logged, and how many refusals were not logged since.
        var logged: [String: (at: ContinuousClock.Instant, skipped: Int)] = [:]
    }

    /// At most this many labels' counters and log times are kept (more names than that come and go: start again).
    private static let maxCached = 4096

    /// The names no plugin may take, whichever built-in feeds run: the stack's services and the sources its services
    /// publish under (the converter's `market` rates). The built-in feeds' names and sources (`bitso`, fiat's `ecb`)
    /// are reserved only while those feeds run (``FeedSelection/reservedNames``).
    public static let serviceNames: Set<String> = [
        "rates-fetcher", "converter", "portfolio", "presenter", "market", "frankfurter",
        "tickwire", "tickwire-proxy", "tickwire-probe", "proxy", "probe", "hub", "ingest", "plugin",
    ]

    /// A hub republishing on `publisher`, refusing the names in `reserved`, within `limits`, keeping plugin quotes
    /// in `history`; `clock` tells the time (a test's clock can stand in).
    public init(
        publisher: Publisher, reserved: Set<String>, limits: IngestLimits = IngestLimits(), history: PluginHistory = PluginHistory(),
        logger: Logger, clock: @escaping @Sendable () -> IngestTime = { .now }
    ) {
        self.publisher = publisher
        self.history = history
        self.logger = logger
        self.clock = clock
        state = Mutex(State(registry: FeedRegistry(reserved: reserved, limits: limits)))
    }

    /// Handles one message: its frames `[topic, envelope]`, and with keys the User-Id of its connection.
    @discardableResult
    public func receive(_ frames: [Data], userID: String? = nil) -> IngestDecision {
        let now = clock()
        return state.withLock { handle(frames, userID: userID, at: now, in: &$0) }
    }

    /// Handles messages as the ingest socket received them; with `userIDFirst`, each one's first frame is the
    /// User-Id of its connection. What it accepts is republished together at the end (``Publisher/publishingTogether(_:)``).
    public func receive(batch: [[Data]], userIDFirst: Bool) {
        let now = clock()
        publisher.publishingTogether { receive(batch: batch, userIDFirst: userIDFirst, at: now) }
    }

    private func receive(batch: [[Data]], userIDFirst: Bool, at now: IngestTime) {
        state.withLock { state in
            for frames in batch {
                if userIDFirst, let userID = frames.first {
                    handle(Array(frames.dropFirst()), userID: String(decoding: userID, as: UTF8.self), at: now, in: &state)
                } else {
                    handle(frames, userID: nil, at: now, in: &state)
                }
            }
        }
    }

    /// Publishes the state of each plugin whose silence made it `stale` or `gone`, and retracts a gone plugin's topics.
    public func expire() {
        let now = clock()
        state.withLock { state in
            for expiry in state.registry.expire(at: now) {
                let feed = expiry.status.feed
                for topic in expiry.retracted {
                    do {
                        try publisher.retract(topic, source: feed)
                    } catch {
                        logger.error("could not retract a plugin's topic", metadata: ["feed": "\(feed)", "topic": "\(topic)", "error": "\(error)"])
                    }
                }
                logger.warning("plugin \(expiry.status.state.rawValue)", metadata: [
                    "feed": "\(feed)", "reason": "\(expiry.status.message ?? "")", "retracted": "\(expiry.retracted.count)"])
                publish(expiry.status)
            }
        }
    }

    /// The `feed reason` pairs of the refusal series made so far.
    var refusedSeries: Set<String> { state.withLock { Set($0.refused.keys) } }

    /// Every plugin's status, by name.
    public var statuses: [FeedStatus] { state.withLock { $0.registry.statuses } }

    /// The refusals of messages that gave `feed`, one of the hub's own feeds, as their source; nil for none.
    public func refusals(ofReserved feed: String) -> [String: Int]? {
        state.withLock { $0.registry.refusals(ofReserved: feed) }
    }

    /// The refusals of messages that named no feed the hub keeps, by reason.
    public var unattributedRefusals: [String: Int] { state.withLock { $0.registry.unattributedRefusals } }

    // MARK: Under the lock

    @discardableResult
    private func handle(_ frames: [Data], userID: String?, at now: IngestTime, in state: inout State) -> IngestDecision {
        let decision = state.registry.receive(frames, userID: userID, at: now)
        switch decision {
        case .accepted(let message, let status):
            republish(message, at: now)
            if let status {
                if message.topic.kind != .status {
                    logger.info("plugin \(status.state.rawValue)", metadata: ["feed": "\(message.topic.feed)", "accepted": "\(status.accepted ?? 0)"])
                }
                publish(status)
            }
            counter(&state.accepted, feed: message.topic.feed) {
                Counter(label: "tickwire_ingest_accepted_total", dimensions: [("feed", message.topic.feed)])
            }.increment()
        case .refused(let refusal, let feed):
            let label = state.registry.metricLabel(feed)
            let key = "\(label) \(refusal.reason.rawValue)"
            counter(&state.refused, feed: key) {
                Counter(label: "tickwire_ingest_refused_total", dimensions: [("feed", label), ("reason", refusal.reason.rawValue)])
            }.increment()
            log(refusal, feed: feed, key: key, at: now, in: &state)
        }
        return decision
    }

    /// The cached counter of `feed`, made by `make` the first time.
    private func counter(_ counters: inout [String: Counter], feed: String, _ make: () -> Counter) -> Counter {
        if let counter = counters[feed] { return counter }
        if counters.count >= Self.maxCached { counters = [:] }
        let counter = make()
        counters[feed] = counter
        return counter
    }

    /// Logs `refusal` unless one of its feed and reason was logged less than a second ago (then it is only counted
    /// as skipped, and the next line says how many were).
    private func log(_ refusal: IngestRefused, feed: String, key: String, at now: IngestTime, in state: inout State) {
        if let last = state.logged[key], now.instant - last.at < .seconds(1) {
            state.logged[key]?.skipped += 1
            return
        }
        let skipped = state.logged[key]?.skipped ?? 0
        if state.logged.count >= Self.maxCached { state.logged = [:] }
        state.logged[key] = (now.instant, 0)
        logger.warning("refused a plugin's message (logged at most once a second per feed and reason)", metadata: [
            "feed": "\(feed)", "reason": "\(refusal.reason.rawValue)", "detail": "\(refusal.detail)", "notLogged": "\(skipped)"])
    }

    /// Republishes an accepted message on its topic with the plugin's name as its source (a heartbeat is not), in a
    /// span continuing the trace the plugin published it in, if any, so its quote's trace goes on to the converter.
    private func republish(_ message: IngestMessage, at now: IngestTime) {
        TraceContext.withSpan("ingest", continuing: message.trace) { republishInSpan(message, at: now) }
    }

    private func republishInSpan(_ message: IngestMessage, at now: IngestTime) {
        let topic = message.topic.topic, feed = message.topic.feed
        do {
            switch message.payload {
            case .quote(let quote):
                try publisher.publish(quote, on: topic, source: feed)
                history.record(quote, feed: feed, at: now.date)
            case .rate(let rate):
                try publisher.publish(rate, on: topic, source: feed)
            case .limits(let limits):
                try publisher.publish(limits, on: topic, source: feed)
            case .book(let book):
                try publisher.publish(book, on: topic, source: feed)
            case .trade(let trade):
                // An event, kept like any value: the snapshot holds each market's last trade.
                try publisher.publish(trade, on: topic, source: feed)
            case .coin(let coin):
                try publisher.publish(coin, on: topic, source: feed)
            case .status, .heartbeat:
                // A plugin's own status goes out merged with the hub's view of it (``publish(_:)``).
                break
            }
        } catch {
            logger.error("could not republish a plugin's message", metadata: ["feed": "\(feed)", "topic": "\(topic)", "error": "\(error)"])
        }
    }

    /// Publishes a plugin's status on `status.<feed>`.
    private func publish(_ status: FeedStatus) {
        do {
            try publisher.publish(status, on: Topics.status(feed: status.feed))
        } catch {
            logger.error("could not publish a plugin's status", metadata: ["feed": "\(status.feed)", "error": "\(error)"])
        }
    }
}
