/// A traded pair: an amount of `base` priced in `quote`, e.g. BTC priced in MXN.
public struct MarketPair: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The currency bought and sold, e.g. "BTC".
    public var base: String
    /// The currency its price is given in, e.g. "MXN".
    public var quote: String

    /// A pair of currency codes; both are upper-cased.
    public init(base: String, quote: String) {
        self.base = base.uppercased()
        self.quote = quote.uppercased()
    }

    /// Parses a symbol such as "BTC-MXN"; nil unless it is exactly two non-empty codes joined by "-".
    public init?(symbol: String) {
        let parts = symbol.split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(base: String(parts[0]), quote: String(parts[1]))
    }

    /// "BTC-MXN": the key used in topics and lookups.
    public var symbol: String { "\(base)-\(quote)" }

    /// "BTC MXN": the name shown to people.
    public var displayName: String { "\(base) \(quote)" }

    /// The symbol, "BTC-MXN".
    public var description: String { symbol }

    /// Orders pairs by symbol.
    public static func < (lhs: MarketPair, rhs: MarketPair) -> Bool { lhs.symbol < rhs.symbol }
}
