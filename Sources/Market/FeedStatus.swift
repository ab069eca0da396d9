import Foundation

/// How one outside feed is doing.
public struct FeedStatus: Sendable, Hashable, Codable {
    /// The feed's health.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// The last fetch succeeded.
        case ok
        /// The last fetch failed.
        case error
        /// No successful fetch for longer than the feed's refresh period allows; for a plugin, 3 heartbeats missed.
        case stale
        /// A plugin feeding the hub, its heartbeats on time.
        case live
        /// A plugin silent for so long that its topics were retracted.
        case gone
    }

    /// Where a feed runs.
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// Polled inside rates-fetcher.
        case builtIn = "built-in"
        /// A process of its own publishing into rates-fetcher's ingest endpoint.
        case plugin
    }

    /// The feed's name, e.g. "bitso".
    public var feed: String
    /// Its health.
    public var state: State
    /// What went wrong, or other detail for people.
    public var message: String?
    /// When a fetch last succeeded.
    public var lastSuccess: Date?
    /// When a fetch was last tried.
    public var lastAttempt: Date?
    /// Where it runs; absent from a rates-fetcher older than plugins (then built in).
    public var kind: Kind?
    /// For a plugin: when its last message arrived.
    public var lastMessage: Date?
    /// For a plugin: how many of its messages the hub accepted and republished.
    public var accepted: Int?
    /// For a plugin: how many of its messages the hub refused, by reason (`seq`, `value`, `rate-limit`, ...).
    public var refused: [String: Int]?

    /// A status.
    public init(feed: String, state: State, message: String? = nil, lastSuccess: Date? = nil, lastAttempt: Date? = nil) {
        self.feed = feed
        self.state = state
        self.message = message
        self.lastSuccess = lastSuccess
        self.lastAttempt = lastAttempt
    }
}
