import Foundation

/// The order in which the converter prefers feeds when several quote one market (`--sources`,
/// `TICKWIRE_CONVERTER_SOURCES`): the listed feeds first, in the order given; any other feed after them,
/// the freshest quote first.
public struct FeedRanking: Sendable, Equatable, CustomStringConvertible {
    /// The listed feeds, most preferred first.
    public let feeds: [String]
    private let places: [String: Int]

    /// The default ranking: CoinGecko, then Bitso, then WazirX.
    public static let standard = FeedRanking(checked: ["coingecko", "bitso", "wazirx"])

    /// A ranking of `feeds`, most preferred first; throws ``FeedRankingError`` for an empty list, a name that
    /// is not a feed name (1 to 32 characters: a lower-case letter, then lower-case letters, digits, `-`, `_`)
    /// or a feed listed twice.
    public init(_ feeds: [String]) throws(FeedRankingError) {
        guard !feeds.isEmpty else { throw .empty }
        var places: [String: Int] = [:]
        for (place, feed) in feeds.enumerated() {
            guard Self.isFeedName(feed) else { throw .invalidName(feed) }
            guard places[feed] == nil else { throw .duplicate(feed) }
            places[feed] = place
        }
        self.feeds = feeds
        self.places = places
    }

    /// A ranking of names known to be valid and distinct.
    private init(checked feeds: [String]) {
        self.feeds = feeds
        places = Dictionary(uniqueKeysWithValues: feeds.enumerated().map { ($1, $0) })
    }

    /// A ranking from its comma-separated text, e.g. `coingecko,bitso,wazirx` (blanks around a name are
    /// ignored); throws ``FeedRankingError`` as ``init(_:)`` does, and for an empty entry.
    public init(parsing text: String) throws(FeedRankingError) {
        let names = text.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
        if text.trimmingCharacters(in: .whitespaces).isEmpty { throw .empty }
        if let blank = names.firstIndex(where: \.isEmpty) { throw .emptyEntry(position: blank + 1) }
        try self.init(names)
    }

    /// The ranking as `--sources` takes it.
    public var description: String { feeds.joined(separator: ",") }

    /// `feed`'s place among the listed feeds (0 first), nil when it is not listed.
    public func place(of feed: String) -> Int? { places[feed] }

    /// Whether `name` can name a feed: 1 to 32 characters, a lower-case ASCII letter first, then lower-case
    /// ASCII letters, digits, `-` and `_`.
    public static func isFeedName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(bytes[0]) else { return false }
        return bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }
}

/// Why a feed ranking was refused.
public enum FeedRankingError: Error, Equatable, CustomStringConvertible {
    /// No feed was listed.
    case empty
    /// The entry at this position (1 first) is empty, e.g. `bitso,,wazirx`.
    case emptyEntry(position: Int)
    /// Not a feed name.
    case invalidName(String)
    /// A feed listed twice.
    case duplicate(String)

    /// The reason in a sentence.
    public var description: String {
        switch self {
        case .empty:
            "the feed ranking lists no feed; give feed names separated by commas, e.g. coingecko,bitso,wazirx"
        case .emptyEntry(let position):
            "the feed ranking's entry \(position) is empty; give feed names separated by commas, e.g. coingecko,bitso,wazirx"
        case .invalidName(let name):
            "\(name.debugDescription) is not a feed name: 1 to 32 characters, a lower-case letter first, then lower-case letters, digits, - or _"
        case .duplicate(let name):
            "the feed ranking lists \(name.debugDescription) twice"
        }
    }
}
