/// A feed's source name as the hub takes it: 1 to 32 characters, a lower-case letter first, then lower-case letters,
/// digits, `-` and `_` (`kraken`, `bitso2`, `my_feed`).
public enum FeedName {
    /// The longest name a hub takes.
    public static let maxLength = 32

    /// Whether `name` is a valid feed name.
    public static func isValid(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...maxLength).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    /// `name` if valid, else ``FeedError/invalidName(_:)``.
    public static func checked(_ name: String) throws(FeedError) -> String {
        guard isValid(name) else { throw .invalidName(name) }
        return name
    }
}

/// What a feed cannot do.
public enum FeedError: Error, Equatable, CustomStringConvertible {
    /// A name outside ``FeedName``'s grammar.
    case invalidName(String)
    /// A publication whose topic names another feed than the connection's (the hub refuses it as `topic`).
    case topicOfAnotherFeed(topic: String, feed: String)
    /// The connection's socket is closed.
    case closed(String)

    public var description: String {
        switch self {
        case .invalidName(let name):
            "invalid feed name \(name.debugDescription): 1-\(FeedName.maxLength) characters, a lower-case letter first, "
                + "then lower-case letters, digits, - and _"
        case .topicOfAnotherFeed(let topic, let feed):
            "topic \(topic) is not feed \(feed)'s: its second component must be \(feed)"
        case .closed(let feed):
            "feed \(feed)'s connection is closed"
        }
    }
}
