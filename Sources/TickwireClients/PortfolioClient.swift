import Bus
import Market
import TickwireContract
import TickwireStack
import BusContract

/// The portfolio: activities (trades) and their history, holdings and gains, the watch list, wallets and product sales.
public struct PortfolioClient: Sendable {
    /// `trades.add`: records an activity (buy, sell, fee, transfer) once per `requestId`.
    public var addTrade: @Sendable (AddTradeRequest) async throws -> Trade
    /// `trades.edit`: replaces an activity's fields once per `requestId`.
    public var editTrade: @Sendable (EditTradeRequest) async throws -> Trade
    /// `trades.remove`.
    public var removeTrade: @Sendable (RemoveTradeRequest) async throws -> Bool
    /// `trades.list`: the activities of one portfolio.
    public var trades: @Sendable (TradesRequest) async throws -> [Trade]
    /// `trades.history`: the audit history of one activity, or of all.
    public var tradeHistory: @Sendable (TradeHistoryRequest) async throws -> [TradeRevision]
    /// `portfolios.list`: every portfolio with how many activities it has.
    public var portfolios: @Sendable () async throws -> PortfolioList
    /// `holdings`: the portfolio valued in one currency.
    public var holdings: @Sendable (HoldingsRequest) async throws -> Valuation
    /// `gains`: realized and unrealized gains per asset and in total.
    public var gains: @Sendable (GainsRequest) async throws -> PortfolioGains
    /// `performance`: the value over time and the time-weighted return per range.
    public var performance: @Sendable (PerformanceRequest) async throws -> PortfolioPerformance
    /// `watchlist.add`: answers the watch list.
    public var watch: @Sendable (WatchlistRequest) async throws -> [String]
    /// `watchlist.remove`: answers the watch list.
    public var unwatch: @Sendable (WatchlistRequest) async throws -> [String]
    /// `watchlist.list`.
    public var watchlist: @Sendable () async throws -> [String]
    /// `wallets`: every wallet, grouped and sorted.
    public var wallets: @Sendable () async throws -> WalletGroups
    /// `assets`: the masterdata.
    public var assets: @Sendable () async throws -> Masterdata
    /// `products`: every GNB product.
    public var products: @Sendable () async throws -> [ProductSummary]
    /// `product`: one product's transactions and their total.
    public var product: @Sendable (ProductRequest) async throws -> ProductDetail
    /// `activities.import`: a Ghostfolio file previewed line by line, its new activities added all at once unless a dry run.
    public var importActivities: @Sendable (ImportActivitiesRequest) async throws -> ImportPreview
    /// `activities.export`: every activity as a Ghostfolio file.
    public var exportActivities: @Sendable (ExportActivitiesRequest) async throws -> ExportedActivities
    /// `health`.
    public var health: @Sendable () async throws -> Health
    /// `portfolio.changed`: the trades or the watch list changed.
    public var changes: @Sendable () -> StreamEvents<PortfolioChange>

    /// A client from its closures.
    public init(
        addTrade: @escaping @Sendable (AddTradeRequest) async throws -> Trade,
        editTrade: @escaping @Sendable (EditTradeRequest) async throws -> Trade,
        removeTrade: @escaping @Sendable (RemoveTradeRequest) async throws -> Bool,
        trades: @escaping @Sendable (TradesRequest) async throws -> [Trade],
        tradeHistory: @escaping @Sendable (TradeHistoryRequest) async throws -> [TradeRevision],
        portfolios: @escaping @Sendable () async throws -> PortfolioList,
        holdings: @escaping @Sendable (HoldingsRequest) async throws -> Valuation,
        gains: @escaping @Sendable (GainsRequest) async throws -> PortfolioGains,
        performance: @escaping @Sendable (PerformanceRequest) async throws -> PortfolioPerformance,
        watch: @escaping @Sendable (WatchlistRequest) async throws -> [String],
        unwatch: @escaping @Sendable (WatchlistRequest) async throws -> [String],
        watchlist: @escaping @Sendable () async throws -> [String],
        wallets: @escaping @Sendable () async throws -> WalletGroups,
        assets: @escaping @Sendable () async throws -> Masterdata,
        products: @escaping @Sendable () async throws -> [ProductSummary],
        product: @escaping @Sendable (ProductRequest) async throws -> ProductDetail,
        importActivities: @escaping @Sendable (ImportActivitiesRequest) async throws -> ImportPreview,
        exportActivities: @escaping @Sendable (ExportActivitiesRequest) async throws -> ExportedActivities,
        health: @escaping @Sendable () async throws -> Health,
        changes: @escaping @Sendable () -> StreamEvents<PortfolioChange>
    ) {
        self.addTrade = addTrade
        self.editTrade = editTrade
        self.removeTrade = removeTrade
        self.trades = trades
        self.tradeHistory = tradeHistory
        self.portfolios = portfolios
        self.holdings = holdings
        self.gains = gains
        self.performance = performance
        self.watch = watch
        self.unwatch = unwatch
        self.watchlist = watchlist
        self.wallets = wallets
        self.assets = assets
        self.products = products
        self.product = product
        self.importActivities = importActivities
        self.exportActivities = exportActivities
        self.health = health
        self.changes = changes
    }
}

extension PortfolioClient {
    /// The portfolio at `rep` (JSON-RPC) and `pub` (changes), by default where the stack puts it
    /// (`TICKWIRE_PORTFOLIO_REP`, `TICKWIRE_PORTFOLIO_PUB`).
    ///
    /// `performance` reads a price history per held asset from rates-fetcher, in another currency through the
    /// converter's `convert.series` as well, so it has `performanceTimeout` (one attempt, like rates-fetcher's history
    /// calls), not the connection's timeout: on a loaded machine 2 s ran out before the last asset's history came
    /// (its return showed as unknown). It goes on a socket of its own, so the other calls never queue behind it.
    public static func live(
        _ connection: LiveConnection,
        rep: String = DefaultEndpoint.portfolioRep.resolve(nil), pub: String = DefaultEndpoint.portfolioPub.resolve(nil),
        performanceTimeout: Duration = .seconds(5)
    ) throws -> Self {
        let rpc = try connection.rpc(rep, service: "portfolio")
        let performanceTimeout = max(connection.timeout, performanceTimeout)
        let performanceRPC = try connection.rpc(rep, service: "portfolio", timeout: performanceTimeout)
        let changes = try connection.stream("portfolio", pub: pub, rep: rep, prefixes: [PortfolioAPI.changes.prefix]) {
            try $0.decode(PortfolioAPI.changes)?.data
        }
        var client = Self.live(rpc, changes: changes)
        client.performance = { request in
            try await performanceRPC.call(PortfolioAPI.performance, request, deadline: .now + performanceTimeout)
        }
        return client
    }

    /// The portfolio's methods through `rpc`, and `changes` for its stream.
    public static func live(_ rpc: some RPCCaller, changes: StreamEvents<PortfolioChange> = .failing("no change stream")) -> Self {
        Self(
            addTrade: { try await rpc.call(PortfolioAPI.addTrade, $0) },
            editTrade: { try await rpc.call(PortfolioAPI.editTrade, $0) },
            removeTrade: { try await rpc.call(PortfolioAPI.removeTrade, $0) },
            trades: { try await rpc.call(PortfolioAPI.trades, $0) },
            tradeHistory: { try await rpc.call(PortfolioAPI.tradeHistory, $0) },
            portfolios: { try await rpc.call(PortfolioAPI.portfolios) },
            holdings: { try await rpc.call(PortfolioAPI.holdings, $0) },
            gains: { try await rpc.call(PortfolioAPI.gains, $0) },
            performance: { try await rpc.call(PortfolioAPI.performance, $0) },
            watch: { try await rpc.call(PortfolioAPI.watch, $0) },
            unwatch: { try await rpc.call(PortfolioAPI.unwatch, $0) },
            watchlist: { try await rpc.call(PortfolioAPI.watchlist) },
            wallets: { try await rpc.call(PortfolioAPI.wallets) },
            assets: { try await rpc.call(PortfolioAPI.assets) },
            products: { try await rpc.call(PortfolioAPI.products) },
            product: { try await rpc.call(PortfolioAPI.product, $0) },
            importActivities: { try await rpc.call(PortfolioAPI.importActivities, $0) },
            exportActivities: { try await rpc.call(PortfolioAPI.exportActivities, $0) },
            health: { try await rpc.call(StandardAPI.health) },
            changes: { changes })
    }

    /// Every closure throws, naming itself; the stream says it is unavailable.
    public static let failing = Self(
        addTrade: unimplemented("PortfolioClient.addTrade"),
        editTrade: unimplemented("PortfolioClient.editTrade"),
        removeTrade: unimplemented("PortfolioClient.removeTrade"),
        trades: unimplemented("PortfolioClient.trades"),
        tradeHistory: unimplemented("PortfolioClient.tradeHistory"),
        portfolios: unimplemented("PortfolioClient.portfolios"),
        holdings: unimplemented("PortfolioClient.holdings"),
        gains: unimplemented("PortfolioClient.gains"),
        performance: unimplemented("PortfolioClient.performance"),
        watch: unimplemented("PortfolioClient.watch"),
        unwatch: unimplemented("PortfolioClient.unwatch"),
        watchlist: unimplemented("PortfolioClient.watchlist"),
        wallets: unimplemented("PortfolioClient.wallets"),
        assets: unimplemented("PortfolioClient.assets"),
        products: unimplemented("PortfolioClient.products"),
        product: unimplemented("PortfolioClient.product"),
        importActivities: unimplemented("PortfolioClient.importActivities"),
        exportActivities: unimplemented("PortfolioClient.exportActivities"),
        health: unimplemented("PortfolioClient.health"),
        changes: { .failing("PortfolioClient.changes is not implemented here") })
}
