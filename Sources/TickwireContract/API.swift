import BusContract
import Market
import Money

/// rates-fetcher's methods and streams: where the outside world enters Tickwire.
public enum RatesFetcherAPI {
    /// `history {asset, currency?, days?}`: an asset's price history.
    public static let history = RPCMethod<HistoryRequest, PriceHistory>("history")
    /// `refresh {feed}`: poll a feed now; answers its status.
    public static let refresh = RPCMethod<RefreshRequest, FeedStatus>("refresh", changesState: true)
    /// `feeds`: every feed's status.
    public static let feeds = RPCMethod<NoParams, [FeedStatus]>("feeds")
    /// `rates.history {start, end}`: the fiat source's rates of every day it published in a span.
    public static let ratesHistory = RPCMethod<RatesHistoryRequest, FiatRateHistory>("rates.history")
    /// `coins.list`: the CoinGecko coins polled, in the order they were added.
    public static let listCoins = RPCMethod<NoParams, [KnownCoin]>("coins.list")
    /// `coins.add {coin}`: polls one more CoinGecko coin (checked against CoinGecko's list), priced at once.
    public static let addCoin = RPCMethod<CoinRequest, CoinsChange>("coins.add", changesState: true)
    /// `coins.remove {coin}`: stops polling a coin and retracts its CoinGecko quote and coin topics.
    public static let removeCoin = RPCMethod<CoinRequest, CoinsChange>("coins.remove", changesState: true)
    /// `coins.known {query?, limit?}`: coins CoinGecko lists that match, for suggestions.
    public static let knownCoins = RPCMethod<KnownCoinsRequest, [KnownCoin]>("coins.known")
    /// `candles {market, interval, source?, start?, end?}`: a market's stored candles in a span.
    public static let candles = RPCMethod<CandlesRequest, CandleSeries>("candles")

    /// `quote.<feed>.<BASE>-<QUOTE>`.
    public static let quotes = TopicSpec<Quote>(kind: "quote")
    /// `rate.<source>.<FROM>-<TO>`.
    public static let rates = TopicSpec<ExchangeRate>(kind: "rate")
    /// `book.<feed>.<BASE>-<QUOTE>`: the top levels of a market's order book.
    public static let books = TopicSpec<BookDepth>(kind: "book")
    /// `limits.<feed>.<book>`: an exchange book's order limits.
    public static let limits = TopicSpec<BookInfo>(kind: "limits")
    /// `trade.<feed>.<BASE>-<QUOTE>`: every trade of a market.
    public static let trades = TopicSpec<MarketTrade>(kind: "trade")
    /// `candle.<interval>.<feed>.<BASE>-<QUOTE>`: a market's candle, when it closes.
    public static let candleStream = TopicSpec<Candle>(kind: "candle")
    /// `coin.<feed>.<SYMBOL>`.
    public static let coins = TopicSpec<CoinInfo>(kind: "coin")
    /// `status.<feed>`.
    public static let statuses = TopicSpec<FeedStatus>(kind: "status")
    /// `assets.masterdata`.
    public static let assets = TopicSpec<[Asset]>(kind: "assets")
    /// `wallets.masterdata`.
    public static let wallets = TopicSpec<[Wallet]>(kind: "wallets")
    /// `transactions.gnb`.
    public static let transactions = TopicSpec<[GNBTransaction]>(kind: "transactions")

    /// Every method it answers, the standard ones included.
    public static let methods = StandardAPI.methods(publishes: true) + [
        AnyRPCMethod(history), AnyRPCMethod(refresh), AnyRPCMethod(feeds), AnyRPCMethod(ratesHistory),
        AnyRPCMethod(listCoins), AnyRPCMethod(addCoin), AnyRPCMethod(removeCoin), AnyRPCMethod(knownCoins),
        AnyRPCMethod(candles),
    ]
    /// Every stream it publishes, heartbeats included.
    public static let streams = [
        AnyTopicSpec(quotes), AnyTopicSpec(rates), AnyTopicSpec(books), AnyTopicSpec(limits), AnyTopicSpec(trades),
        AnyTopicSpec(candleStream), AnyTopicSpec(coins), AnyTopicSpec(statuses), AnyTopicSpec(assets), AnyTopicSpec(wallets), AnyTopicSpec(transactions), AnyTopicSpec(StandardStreams.heartbeat),
    ]
}

/// The converter's methods and streams: exact conversion, and asset prices in display currencies.
public enum ConverterAPI {
    /// `convert {amount, from, to, source?}`.
    public static let convert = RPCMethod<ConvertRequest, ConvertResult>("convert")
    /// `total {items, to, source?}`: the GNB rule over many amounts.
    public static let total = RPCMethod<TotalRequest, TotalResult>("total")
    /// `rates {base, source?}`: every currency reachable from `base`.
    public static let rates = RPCMethod<RatesRequest, RatesResult>("rates")
    /// `sources`: the rate sources held.
    public static let sources = RPCMethod<NoParams, [RateSourceInfo]>("sources")
    /// `convert.series {history, to}`: a price history converted point by point at each day's rate.
    public static let convertSeries = RPCMethod<ConvertSeriesRequest, ConvertSeriesResult>("convert.series")

    /// `price.<ASSET>.<FIAT>`.
    public static let prices = TopicSpec<AssetPrice>(kind: "price")

    /// Every method it answers, the standard ones included.
    public static let methods = StandardAPI.methods(publishes: true)
        + [AnyRPCMethod(convert), AnyRPCMethod(total), AnyRPCMethod(rates), AnyRPCMethod(sources), AnyRPCMethod(convertSeries)]
    /// Every stream it publishes, heartbeats included.
    public static let streams = [AnyTopicSpec(prices), AnyTopicSpec(StandardStreams.heartbeat)]
}

/// The portfolio's methods and streams: activities (trades), holdings and gains, the watch list, wallets and product sales.
public enum PortfolioAPI {
    /// `trades.add`: records an activity (buy, sell, fee, transfer) once per `requestId`.
    public static let addTrade = RPCMethod<AddTradeRequest, Trade>("trades.add", changesState: true)
    /// `trades.edit {id, ...}`: replaces an activity's fields once per `requestId`, keeping the change in its history.
    public static let editTrade = RPCMethod<EditTradeRequest, Trade>("trades.edit", changesState: true)
    /// `trades.remove {id, requestId?, by?}`: removes an activity, keeping the removal in its history.
    public static let removeTrade = RPCMethod<RemoveTradeRequest, Bool>("trades.remove", changesState: true)
    /// `trades.list {portfolio?}`: every activity of one portfolio (`main` by default), oldest first.
    public static let trades = RPCMethod<TradesRequest, [Trade]>("trades.list")
    /// `trades.history {id?, portfolio?}`: the audit history of one activity, or of all (of one portfolio), oldest first.
    public static let tradeHistory = RPCMethod<TradeHistoryRequest, [TradeRevision]>("trades.history")
    /// `portfolios.list`: every portfolio with an activity, and `main`, with how many activities each has.
    public static let portfolios = RPCMethod<NoParams, PortfolioList>("portfolios.list")
    /// `holdings {currency?, portfolio?}`: one portfolio valued in one currency.
    public static let holdings = RPCMethod<HoldingsRequest, Valuation>("holdings")
    /// `gains {currency?, method?, portfolio?}`: realized and unrealized gains per asset and in total.
    public static let gains = RPCMethod<GainsRequest, PortfolioGains>("gains")
    /// `performance {currency?, range?, portfolio?}`: the value over time and the time-weighted return per range.
    public static let performance = RPCMethod<PerformanceRequest, PortfolioPerformance>("performance")
    /// `watchlist.add {asset}`: answers the watch list.
    public static let watch = RPCMethod<WatchlistRequest, [String]>("watchlist.add", changesState: true)
    /// `watchlist.remove {asset}`: answers the watch list.
    public static let unwatch = RPCMethod<WatchlistRequest, [String]>("watchlist.remove", changesState: true)
    /// `watchlist.list`.
    public static let watchlist = RPCMethod<NoParams, [String]>("watchlist.list")
    /// `wallets`: every wallet, grouped and sorted.
    public static let wallets = RPCMethod<NoParams, WalletGroups>("wallets")
    /// `assets`: the masterdata.
    public static let assets = RPCMethod<NoParams, Masterdata>("assets")
    /// `products`: every GNB product with its transaction count.
    public static let products = RPCMethod<NoParams, [ProductSummary]>("products")
    /// `product {sku, currency?}`: one product's transactions and their total.
    public static let product = RPCMethod<ProductRequest, ProductDetail>("product")
    /// `activities.import {format, content, dryRun?, by?, portfolio?}`: a Ghostfolio CSV or JSON file previewed line by line,
    /// and its new activities added to one portfolio all at once (none when any line has an error, none on a dry run, the default).
    public static let importActivities = RPCMethod<ImportActivitiesRequest, ImportPreview>("activities.import", changesState: true)
    /// `activities.export {format, portfolio?}`: every activity of one portfolio as a Ghostfolio CSV or JSON file.
    public static let exportActivities = RPCMethod<ExportActivitiesRequest, ExportedActivities>("activities.export")

    /// `portfolio.changed`.
    public static let changes = TopicSpec<PortfolioChange>(kind: "portfolio")

    /// Every method it answers, the standard ones included.
    public static let methods = StandardAPI.methods(publishes: true) + [
        AnyRPCMethod(addTrade), AnyRPCMethod(editTrade), AnyRPCMethod(removeTrade), AnyRPCMethod(trades), AnyRPCMethod(tradeHistory),
        AnyRPCMethod(portfolios), AnyRPCMethod(holdings), AnyRPCMethod(gains), AnyRPCMethod(performance), AnyRPCMethod(watch), AnyRPCMethod(unwatch), AnyRPCMethod(watchlist),
        AnyRPCMethod(wallets), AnyRPCMethod(assets), AnyRPCMethod(products), AnyRPCMethod(product),
        AnyRPCMethod(importActivities), AnyRPCMethod(exportActivities),
    ]
    /// Every stream it publishes, heartbeats included.
    public static let streams = [AnyTopicSpec(changes), AnyTopicSpec(StandardStreams.heartbeat)]
}
