import Bus
import Market

/// Every topic the services publish, built in one place so publishers and
/// subscribers cannot disagree on a name.
public enum Topics {
    /// `quote.<feed>.<BASE>-<QUOTE>`: one market's quote from one feed.
    public static func quote(feed: String, market: MarketPair) throws -> Topic {
        try Topic(kind: "quote", source: feed, key: market.symbol)
    }

    /// `rate.<source>.<FROM>-<TO>`: one exchange rate as a source gives it.
    public static func rate(source: String, from: String, to: String) throws -> Topic {
        try Topic(kind: "rate", source: source, key: "\(from)-\(to)")
    }

    /// `book.bitso.<book>`: one exchange book's limits.
    public static func book(feed: String, book: String) throws -> Topic {
        try Topic(kind: "book", source: feed, key: book)
    }

    /// `coin.<feed>.<SYMBOL>`: a coin's identity (name, image) from a feed.
    public static func coin(feed: String, symbol: String) throws -> Topic {
        try Topic(kind: "coin", source: feed, key: symbol)
    }

    /// `status.<feed>`: how a feed is doing.
    public static func status(feed: String) throws -> Topic {
        try Topic(kind: "status", source: feed)
    }

    /// `price.<ASSET>.<FIAT>`: an asset re-priced into a display currency.
    public static func price(asset: String, currency: String) throws -> Topic {
        try Topic(kind: "price", source: asset, key: currency)
    }

    /// `assets.masterdata`: every asset of the masterdata.
    public static let assets = Topic(constant: "assets.masterdata")
    /// `wallets.masterdata`: every wallet of the masterdata.
    public static let wallets = Topic(constant: "wallets.masterdata")
    /// `transactions.gnb`: every GNB product transaction.
    public static let transactions = Topic(constant: "transactions.gnb")
    /// `portfolio.changed`: the portfolio's trades or watch list changed.
    public static let portfolioChanged = Topic(constant: "portfolio.changed")
}
