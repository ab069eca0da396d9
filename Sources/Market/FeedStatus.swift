import Foundation

/// How one outside feed is doing.
public struct FeedStatus: Sendable, Hashable, Codable {
    /// The feed's health.
    public enum State: String, Sendable, Hashable, Codable, CaseIterable {
        /// The last fetch succeeded.
        case ok
        /// The last fetch failed.
        case error
        /// No successful fetch for longer than the feed's refresh period allows.
        case stale
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

    /// A status.
    public init(feed: String, state: State, message: String? = nil, lastSuccess: Date? = nil, lastAttempt: Date? = nil) {
        self.feed = feed
        self.state = state
        self.message = message
        self.lastSuccess = lastSuccess
        self.lastAttempt = lastAttempt
    }
}
