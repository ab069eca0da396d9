/// A coin as CoinGecko names it.
public struct CoinInfo: Sendable, Hashable, Codable {
    /// CoinGecko's id, e.g. "bitcoin".
    public var id: String
    /// Ticker symbol, upper-cased, e.g. "BTC".
    public var symbol: String
    /// Display name, e.g. "Bitcoin".
    public var name: String
    /// URL of the coin's logo.
    public var image: String

    /// A coin.
    public init(id: String, symbol: String, name: String, image: String) {
        self.id = id
        self.symbol = symbol
        self.name = name
        self.image = image
    }
}

/// A coin together with its latest market data.
public struct CoinMarket: Sendable, Hashable, Codable {
    /// Which coin.
    public var coin: CoinInfo
    /// Its market data, priced in the requested currency.
    public var quote: Quote

    /// A coin and its quote.
    public init(coin: CoinInfo, quote: Quote) {
        self.coin = coin
        self.quote = quote
    }
}
