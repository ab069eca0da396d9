import Foundation

/// Something an exchange's stream did wrong, or had to be recovered from: each is logged, counted in
/// `tickwire_exchange_errors_total{feed,reason}` and in the feed's `status.<feed>`, and the feed keeps running.
public struct ExchangeEvent: Error, Sendable, Hashable, CustomStringConvertible {
    /// What happened, as a metric label.
    public enum Reason: String, Sendable, Hashable, CaseIterable, Comparable {
        /// A message that is not JSON, or not in the exchange's shape.
        case malformed
        /// Data of a market the feed did not subscribe to (a diff for another book, a trade of another symbol).
        case otherMarket = "other-market"
        /// A trade or an order with a size below zero.
        case negativeSize = "negative-size"
        /// A price level the book refused: a price of zero or below, or one too precise to keep exactly.
        case badLevel = "bad-level"
        /// A sequence number skipped: messages were lost, so the book re-synchronises.
        case gap
        /// A Kraken book whose checksum does not match the exchange's: the book re-synchronises.
        case checksum
        /// A REST snapshot older than the diffs already received: it is fetched again.
        case staleSnapshot = "stale-snapshot"
        /// The REST snapshot could not be fetched.
        case snapshotFailed = "snapshot-failed"
        /// The exchange answered a request with an error.
        case exchangeError = "exchange-error"
        /// The connection failed or dropped (mid-message included): the feed reconnects.
        case disconnected
        /// The connection could not be opened.
        case connectFailed = "connect-failed"

        public static func < (lhs: Reason, rhs: Reason) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    /// What happened.
    public var reason: Reason
    /// What, for people: the market, the value or the sequence numbers concerned.
    public var message: String

    /// An event of `reason`, described by `message`.
    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    /// `reason: message`.
    public var description: String { "\(reason.rawValue): \(message)" }
}

/// What a feed has had to count since it started: reconnections, re-synchronisations and every ``ExchangeEvent``.
public struct ExchangeCounters: Sendable, Hashable {
    /// Connections opened again after one dropped or failed.
    public var reconnects = 0
    /// Books re-synchronised (a REST snapshot fetched again, or a Kraken book subscribed again).
    public var resyncs = 0
    /// Events by reason.
    public var events: [ExchangeEvent.Reason: Int] = [:]
    /// The last event.
    public var last: ExchangeEvent?

    /// No counts.
    public init() {}

    /// Counts `event`.
    public mutating func count(_ event: ExchangeEvent) {
        events[event.reason, default: 0] += 1
        last = event
    }

    /// How many events of `reason`.
    public subscript(reason: ExchangeEvent.Reason) -> Int { events[reason, default: 0] }

    /// The status line: "reconnects 1, resyncs 2, gap 1, checksum 0, ...; last: gap: ...".
    public var summary: String {
        var parts = ["reconnects \(reconnects)", "resyncs \(resyncs)"]
        parts += [ExchangeEvent.Reason.gap, .checksum].map { "\($0.rawValue) \(self[$0])" }
        parts += events.keys.filter { $0 != .gap && $0 != .checksum }.sorted().map { "\($0.rawValue) \(self[$0])" }
        return parts.joined(separator: ", ") + (last.map { "; last: \($0)" } ?? "")
    }
}
