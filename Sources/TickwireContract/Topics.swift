import BusContract
import Market
import Money

/// Every topic the services publish, built from their streams' specs in one place, so publishers and
/// subscribers cannot disagree on a name or a payload.
public enum Topics {
    /// `quote.<feed>.<BASE>-<QUOTE>`: one market's quote from one feed.
    public static func quote(feed: String, market: MarketPair) throws -> StreamTopic<Quote> {
        try RatesFetcherAPI.quotes.topic(source: feed, key: market.symbol)
    }

    /// `rate.<source>.<FROM>-<TO>`: one exchange rate as a source gives it.
    public static func rate(source: String, from: String, to: String) throws -> StreamTopic<ExchangeRate> {
        try RatesFetcherAPI.rates.topic(source: source, key: "\(from)-\(to)")
    }

    /// `limits.<feed>.<book>`: one exchange book's order limits.
    public static func limits(feed: String, book: String) throws -> StreamTopic<BookInfo> {
        try RatesFetcherAPI.limits.topic(source: feed, key: book)
    }

    /// `book.<feed>.<BASE>-<QUOTE>`: the top levels of one market's order book.
    public static func book(feed: String, market: MarketPair) throws -> StreamTopic<BookDepth> {
        try RatesFetcherAPI.books.topic(source: feed, key: market.symbol)
    }

    /// `trade.<feed>.<BASE>-<QUOTE>`: one market's trades.
    public static func trade(feed: String, market: MarketPair) throws -> StreamTopic<MarketTrade> {
        try RatesFetcherAPI.trades.topic(source: feed, key: market.symbol)
    }

    /// `candle.<interval>.<feed>.<BASE>-<QUOTE>`: one market's closed candles of one interval.
    public static func candle(interval: CandleInterval, feed: String, market: MarketPair) throws -> StreamTopic<Candle> {
        try RatesFetcherAPI.candleStream.topic(source: interval.rawValue, key: "\(feed).\(market.symbol)")
    }

    /// `coin.<feed>.<SYMBOL>`: a coin's identity (name, image) from a feed.
    public static func coin(feed: String, symbol: String) throws -> StreamTopic<CoinInfo> {
        try RatesFetcherAPI.coins.topic(source: feed, key: symbol)
    }

    /// `status.<feed>`: how a feed is doing.
    public static func status(feed: String) throws -> StreamTopic<FeedStatus> {
        try RatesFetcherAPI.statuses.topic(source: feed)
    }

    /// `price.<ASSET>.<FIAT>`: an asset re-priced into a display currency.
    public static func price(asset: String, currency: String) throws -> StreamTopic<AssetPrice> {
        try ConverterAPI.prices.topic(source: asset, key: currency)
    }

    /// `assets.masterdata`: every asset of the masterdata.
    public static let assets = RatesFetcherAPI.assets.constant("assets.masterdata")
    /// `wallets.masterdata`: every wallet of the masterdata.
    public static let wallets = RatesFetcherAPI.wallets.constant("wallets.masterdata")
    /// `transactions.gnb`: every GNB product transaction.
    public static let transactions = RatesFetcherAPI.transactions.constant("transactions.gnb")
    /// `portfolio.changed`: the portfolio's trades or watch list changed.
    public static let portfolioChanged = PortfolioAPI.changes.constant("portfolio.changed")
}
