import Market

/// The coins the feeds describe (`coin.<feed>.<SYMBOL>`), by symbol. CoinGecko's are the coins rates-fetcher
/// polls, which the Coins screen can remove; a plugin's coin names an asset of its own (its `image` may be
/// empty: the presenter then serves a monogram).
public struct CoinDirectory: Sendable, Equatable {
    /// The feed whose coins rates-fetcher tracks (`coins.list`, `coins.add`, `coins.remove`).
    public static let trackedFeed = "coingecko"

    private var bySymbol: [String: [String: CoinInfo]] = [:]

    /// No coins.
    public init() {}

    /// The coin `symbol` (any case) is shown as: CoinGecko's, else the one of the feed first by name.
    public subscript(symbol: String) -> CoinInfo? {
        guard let byFeed = bySymbol[symbol.uppercased()] else { return nil }
        return byFeed[Self.trackedFeed] ?? byFeed.min { $0.key < $1.key }?.value
    }

    /// The symbols of the coins rates-fetcher polls on CoinGecko.
    public var tracked: Set<String> {
        Set(bySymbol.compactMap { symbol, byFeed in byFeed[Self.trackedFeed] == nil ? nil : symbol })
    }

    /// Every symbol some feed describes.
    public var symbols: Set<String> { Set(bySymbol.keys) }

    /// Keeps `coin` as `feed` describes it.
    public mutating func set(_ coin: CoinInfo, feed: String) {
        bySymbol[coin.symbol.uppercased(), default: [:]][feed] = coin
    }

    /// Forgets `feed`'s coin `symbol` (its topic was retracted); other feeds' descriptions stay.
    public mutating func remove(symbol: String, feed: String) {
        let key = symbol.uppercased()
        bySymbol[key]?[feed] = nil
        if bySymbol[key]?.isEmpty == true { bySymbol[key] = nil }
    }
}
