import BusContract
import Market
import PresenterViews
import TickwireContract

/// One method with the schemas of its params and result.
public struct MethodSchema: Sendable {
    /// The method as its service lists it (name, types, whether it changes state).
    public let method: AnyRPCMethod
    /// What it does, in a sentence.
    public let summary: String
    /// Its params' schema (an object; its members are the by-name params).
    public let params: JSONSchema
    /// Its result's schema.
    public let result: JSONSchema

    /// `method` described by its types' schemas.
    public init<Params: JSONSchemaDescribable, Result: JSONSchemaDescribable>(_ method: RPCMethod<Params, Result>, _ summary: String) {
        self.method = AnyRPCMethod(method)
        self.summary = summary
        params = .ref(Params.self)
        result = .ref(Result.self)
    }
}

/// One stream with its topics' address pattern and its payload's schema.
public struct StreamSchema: Sendable {
    /// The stream as its service lists it (kind and payload type).
    public let stream: AnyTopicSpec
    /// Its topics, e.g. `quote.{feed}.{market}`: each `{name}` is one component.
    public let address: String
    /// What each `{name}` of `address` is.
    public let parameters: KeyValuePairs<String, String>
    /// What it carries, in a sentence.
    public let summary: String
    /// The payload's schema (the envelope's `data`).
    public let payload: JSONSchema

    /// `spec`'s stream on topics `address`.
    public init<Payload: JSONSchemaDescribable>(
        _ spec: TopicSpec<Payload>, address: String, parameters: KeyValuePairs<String, String> = [:], _ summary: String
    ) {
        stream = AnyTopicSpec(spec)
        self.address = address
        self.parameters = parameters
        self.summary = summary
        payload = .ref(Payload.self)
    }

    /// Whether `topic` is one of the stream's topics.
    public func matches(_ topic: String) -> Bool {
        let pattern = address.split(separator: ".", omittingEmptySubsequences: false)
        let components = topic.split(separator: ".", maxSplits: pattern.count - 1, omittingEmptySubsequences: false)
        guard components.count == pattern.count else { return false }
        return zip(pattern, components).allSatisfy { part, component in
            (part.hasPrefix("{") && !component.isEmpty) || part == component
        }
    }
}

/// One service: where it answers and publishes, its methods and its streams.
public struct ServiceSchema: Sendable {
    /// Its name, e.g. `converter`.
    public let name: String
    /// What it does, in a sentence.
    public let summary: String
    /// Its default REP endpoint.
    public let requests: String
    /// Its default PUB endpoint, if it publishes.
    public let publishes: String?
    /// Every method it answers, the standard ones included, in its API's order.
    public let methods: [MethodSchema]
    /// Every stream it publishes, heartbeats included, in its API's order.
    public let streams: [StreamSchema]
}

/// Every service's methods and streams with their schemas: what the documents in docs/contract are made from.
///
/// The lists repeat each service's API (`RatesFetcherAPI.methods`, ...) with the types' schemas; a test
/// checks that they list the same methods and streams with the same types.
public enum ContractCatalog {
    /// The methods every service answers.
    static func standard(publishes: Bool) -> [MethodSchema] {
        [
            MethodSchema(StandardAPI.health, "How the service and its upstreams are."),
            MethodSchema(StandardAPI.metrics, "The Prometheus text of its metrics."),
        ] + (publishes ? [MethodSchema(StandardAPI.snapshot, "Every retained topic under a prefix, with its sequence number (Clone pattern).")] : [])
    }

    /// `heartbeat.<service>`, which every publisher sends once a second.
    static let heartbeat = StreamSchema(
        StandardStreams.heartbeat, address: "heartbeat.{service}", parameters: ["service": "The publishing service."],
        "The publisher is alive, once a second; a subscriber that misses three re-synchronises.")

    /// The four services, then what any plugin answers (`plugin`: its panel).
    public static let services: [ServiceSchema] = [ratesFetcher, converter, portfolio, presenter, plugin]

    static let ratesFetcher = ServiceSchema(
        name: "rates-fetcher", summary: "The feed hub: where the outside world enters Tickwire.",
        requests: "tcp://127.0.0.1:7102", publishes: "tcp://127.0.0.1:7101",
        methods: standard(publishes: true) + [
            MethodSchema(RatesFetcherAPI.history, "An asset's price history."),
            MethodSchema(RatesFetcherAPI.refresh, "Polls a feed now; answers its status."),
            MethodSchema(RatesFetcherAPI.feeds, "Every feed's status."),
            MethodSchema(RatesFetcherAPI.ratesHistory, "The fiat source's rates of every day it published in a span."),
            MethodSchema(RatesFetcherAPI.listCoins, "The CoinGecko coins polled, in the order they were added."),
            MethodSchema(RatesFetcherAPI.addCoin, "Polls one more CoinGecko coin (checked against CoinGecko's list), priced at once."),
            MethodSchema(RatesFetcherAPI.removeCoin, "Stops polling a coin and retracts its CoinGecko quote and coin topics."),
            MethodSchema(RatesFetcherAPI.knownCoins, "Coins CoinGecko lists that match, for suggestions."),
            MethodSchema(RatesFetcherAPI.candles, "A market's stored candles of one interval in a span, oldest first."),
        ],
        streams: [
            StreamSchema(RatesFetcherAPI.quotes, address: "quote.{feed}.{market}",
                         parameters: ["feed": "The feed, e.g. `bitso`.", "market": "The market `BASE-QUOTE`, e.g. `BTC-MXN`."],
                         "One market's quote from one feed."),
            StreamSchema(RatesFetcherAPI.rates, address: "rate.{source}.{pair}",
                         parameters: ["source": "The rate source, e.g. `ecb`.", "pair": "`FROM-TO`, e.g. `EUR-USD`."],
                         "One exchange rate as a source gives it."),
            StreamSchema(RatesFetcherAPI.books, address: "book.{feed}.{market}",
                         parameters: ["feed": "The feed keeping the book, e.g. `bitso-ws`.", "market": "The market `BASE-QUOTE`, e.g. `BTC-MXN`."],
                         "The top levels of one market's order book, on every change."),
            StreamSchema(RatesFetcherAPI.limits, address: "limits.{feed}.{book}",
                         parameters: ["feed": "The exchange, e.g. `bitso`.", "book": "The book, e.g. `btc_mxn`."],
                         "One exchange book's order limits (until issue 32 on `book.{feed}.{book}`)."),
            StreamSchema(RatesFetcherAPI.trades, address: "trade.{feed}.{market}",
                         parameters: ["feed": "The feed, e.g. `bitso-ws`.", "market": "The market `BASE-QUOTE`, e.g. `BTC-MXN`."],
                         "Every trade of one market; the snapshot keeps the last."),
            StreamSchema(RatesFetcherAPI.candleStream, address: "candle.{interval}.{feed}.{market}",
                         parameters: ["interval": "`1m`, `5m`, `1h` or `1d`.", "feed": "The feed whose trades (or quotes) it was built from, e.g. `bitso-ws`.",
                                      "market": "The market `BASE-QUOTE`, e.g. `BTC-MXN`."],
                         "One market's candle of one interval, when it closes."),
            StreamSchema(RatesFetcherAPI.coins, address: "coin.{feed}.{symbol}",
                         parameters: ["feed": "The feed, e.g. `coingecko`.", "symbol": "The coin's symbol, e.g. `BTC`."],
                         "A coin's identity (name, image) from a feed."),
            StreamSchema(RatesFetcherAPI.statuses, address: "status.{feed}", parameters: ["feed": "The feed or plugin."],
                         "How a feed is doing."),
            StreamSchema(RatesFetcherAPI.assets, address: "assets.masterdata", "Every asset of the masterdata."),
            StreamSchema(RatesFetcherAPI.wallets, address: "wallets.masterdata", "Every wallet of the masterdata."),
            StreamSchema(RatesFetcherAPI.transactions, address: "transactions.gnb", "Every GNB product transaction."),
            heartbeat,
        ])

    static let converter = ServiceSchema(
        name: "converter", summary: "Exact conversion, and asset prices re-priced into display currencies.",
        requests: "tcp://127.0.0.1:7201", publishes: "tcp://127.0.0.1:7202",
        methods: standard(publishes: true) + [
            MethodSchema(ConverterAPI.convert, "Converts an amount, through derived rates where needed."),
            MethodSchema(ConverterAPI.total, "The GNB rule over many amounts: each converted and rounded half-even, then added."),
            MethodSchema(ConverterAPI.rates, "Every currency reachable from `base`."),
            MethodSchema(ConverterAPI.sources, "The rate sources held."),
            MethodSchema(ConverterAPI.convertSeries, "A price history converted point by point at each day's rate."),
        ],
        streams: [
            StreamSchema(ConverterAPI.prices, address: "price.{asset}.{currency}",
                         parameters: ["asset": "The asset, e.g. `BTC`.", "currency": "The display currency, e.g. `SEK`."],
                         "An asset re-priced into a display currency."),
            heartbeat,
        ])

    static let portfolio = ServiceSchema(
        name: "portfolio", summary: "Activities (buys, sells, fees, transfers) and their history, holdings and gains, the watch list, wallets and product sales.",
        requests: "tcp://127.0.0.1:7301", publishes: "tcp://127.0.0.1:7302",
        methods: standard(publishes: true) + [
            MethodSchema(PortfolioAPI.addTrade, "Records an activity (a buy unless `kind` says otherwise) once per `requestId`; a sell or transfer out of more than is held at its date is refused."),
            MethodSchema(PortfolioAPI.editTrade, "Replaces an activity's fields once per `requestId`, keeping the change in its history; refused if it or a later sell would take more than is held."),
            MethodSchema(PortfolioAPI.removeTrade, "Removes an activity, keeping the removal in its history; refused if a later sell would take more than is held."),
            MethodSchema(PortfolioAPI.trades, "Every activity of one portfolio (`main` by default), oldest first."),
            MethodSchema(PortfolioAPI.tradeHistory, "The audit history (added, edited, removed: who, when, before and after) of one activity or of all (of one portfolio), oldest first."),
            MethodSchema(PortfolioAPI.portfolios, "Every portfolio (named account) with an activity, and `main` always, with how many activities each has; `main` first, then by name."),
            MethodSchema(PortfolioAPI.holdings, "One portfolio valued in one currency."),
            MethodSchema(PortfolioAPI.gains, "Realized and unrealized gains per asset and in total, exact, in one currency, by FIFO or average cost."),
            MethodSchema(PortfolioAPI.performance, "The value over a range and the time-weighted return of 1D, 7D, 30D, YTD, 1Y and Max, exact, in one currency; a range whose prices are missing says so."),
            MethodSchema(PortfolioAPI.watch, "Adds an asset to the watch list; answers the watch list."),
            MethodSchema(PortfolioAPI.unwatch, "Removes an asset from the watch list; answers the watch list."),
            MethodSchema(PortfolioAPI.watchlist, "The watch list."),
            MethodSchema(PortfolioAPI.wallets, "Every wallet, grouped and sorted."),
            MethodSchema(PortfolioAPI.assets, "The masterdata."),
            MethodSchema(PortfolioAPI.products, "Every GNB product with its transaction count."),
            MethodSchema(PortfolioAPI.product, "One product's transactions and their total."),
            MethodSchema(PortfolioAPI.importActivities, "A Ghostfolio CSV or JSON file previewed line by line (new, duplicate, or its errors by line and column); "
                + "unless a dry run (the default), its new activities added all at once, none when any line has an error; a file imported twice adds nothing."),
            MethodSchema(PortfolioAPI.exportActivities, "Every activity of one portfolio as a Ghostfolio CSV or JSON file, which `activities.import` reads back to the same activities."),
        ],
        streams: [
            StreamSchema(PortfolioAPI.changes, address: "portfolio.changed", "The portfolio's activities or watch list changed."),
            heartbeat,
        ])

    static let presenter = ServiceSchema(
        name: "presenter", summary: "Display-ready views of every screen, for any locale and currency.",
        requests: "tcp://127.0.0.1:7401", publishes: nil,
        methods: standard(publishes: false) + [MethodSchema(PresenterAPI.view, "One screen's view.")],
        streams: [])

    /// Not a service: the method any plugin may answer, on its own REP endpoint, so the dashboard shows it as a page
    /// of its own while it is live (docs/protocol.md, "Plugin panels"). A plugin's other methods and streams are its own
    /// contract, in its own package.
    static let plugin = ServiceSchema(
        name: "plugin", summary: "What any plugin answers so the dashboard shows it: its panel, a page the presenter renders while the plugin is live.",
        requests: pluginEndpoint, publishes: nil,
        methods: [MethodSchema(PluginAPI.panel, "The plugin's page now: title, sections of text, tables (rows with an action) and forms that call its methods, and the topics of its stream that change the page.")],
        streams: [])

    /// Where a plugin answers: its own REP endpoint, which the presenter is given with `--plugin NAME=REP[,PUB]`.
    public static let pluginEndpoint = "tcp://{host}:{port}"
}
