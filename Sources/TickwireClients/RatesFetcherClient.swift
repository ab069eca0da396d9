import Bus
import Market
import Money
import TickwireContract
import TickwireStack
import BusContract

/// rates-fetcher: quotes, rates, books, coins, feed status, masterdata and transactions from the outside APIs.
public struct RatesFetcherClient: Sendable {
    /// `history`: an asset's price history.
    public var history: @Sendable (HistoryRequest) async throws -> PriceHistory
    /// `refresh`: poll a feed now.
    public var refresh: @Sendable (RefreshRequest) async throws -> FeedStatus
    /// `feeds`: every feed's status.
    public var feeds: @Sendable () async throws -> [FeedStatus]
    /// `rates.history`: the fiat source's daily rates over a span of days.
    public var ratesHistory: @Sendable (RatesHistoryRequest) async throws -> FiatRateHistory
    /// `coins.list`: the CoinGecko coins polled.
    public var coins: @Sendable () async throws -> [KnownCoin]
    /// `coins.add`: poll one more CoinGecko coin, by id, symbol or name.
    public var addCoin: @Sendable (CoinRequest) async throws -> CoinsChange
    /// `coins.remove`: stop polling a coin; its CoinGecko topics are retracted.
    public var removeCoin: @Sendable (CoinRequest) async throws -> CoinsChange
    /// `coins.known`: coins CoinGecko lists that match a query, for suggestions.
    public var knownCoins: @Sendable (KnownCoinsRequest) async throws -> [KnownCoin]
    /// `candles`: a market's stored candles of one interval in a span.
    public var candles: @Sendable (CandlesRequest) async throws -> CandleSeries
    /// `health`.
    public var health: @Sendable () async throws -> Health
    /// The streams of the given kinds, as they change.
    public var updates: @Sendable (Set<FetcherUpdate.Kind>) -> StreamEvents<FetcherUpdate>

    /// A client from its closures.
    public init(
        history: @escaping @Sendable (HistoryRequest) async throws -> PriceHistory,
        refresh: @escaping @Sendable (RefreshRequest) async throws -> FeedStatus,
        feeds: @escaping @Sendable () async throws -> [FeedStatus],
        ratesHistory: @escaping @Sendable (RatesHistoryRequest) async throws -> FiatRateHistory,
        coins: @escaping @Sendable () async throws -> [KnownCoin],
        addCoin: @escaping @Sendable (CoinRequest) async throws -> CoinsChange,
        removeCoin: @escaping @Sendable (CoinRequest) async throws -> CoinsChange,
        knownCoins: @escaping @Sendable (KnownCoinsRequest) async throws -> [KnownCoin],
        candles: @escaping @Sendable (CandlesRequest) async throws -> CandleSeries,
        health: @escaping @Sendable () async throws -> Health,
        updates: @escaping @Sendable (Set<FetcherUpdate.Kind>) -> StreamEvents<FetcherUpdate>
    ) {
        self.history = history
        self.refresh = refresh
        self.feeds = feeds
        self.ratesHistory = ratesHistory
        self.coins = coins
        self.addCoin = addCoin
        self.removeCoin = removeCoin
        self.knownCoins = knownCoins
        self.candles = candles
        self.health = health
        self.updates = updates
    }
}

extension RatesFetcherClient {
    /// rates-fetcher at `rep` (JSON-RPC) and `pub` (streams), by default where the stack puts it
    /// (`TICKWIRE_RATES_FETCHER_REP`, `TICKWIRE_RATES_FETCHER_PUB`). Its history answers can take a while
    /// (a live feed is asked): requests wait `historyTimeout`.
    public static func live(
        _ connection: LiveConnection,
        rep: String = DefaultEndpoint.ratesFetcherRep.resolve(nil), pub: String = DefaultEndpoint.ratesFetcherPub.resolve(nil),
        historyTimeout: Duration = .seconds(5)
    ) throws -> Self {
        let rpc = try connection.rpc(rep, service: "rates-fetcher", timeout: max(connection.timeout, historyTimeout))
        return .live(rpc) { kinds in
            do {
                let prefixes = FetcherUpdate.Kind.allCases.filter(kinds.contains).map(\.prefix)
                return try connection.stream("rates-fetcher", pub: pub, rep: rep, prefixes: prefixes, decode: FetcherUpdate.init(message:))
            } catch {
                return .failing("cannot follow rates-fetcher at \(pub): \(error)")
            }
        }
    }

    /// rates-fetcher's methods through `rpc`, and `updates` for its streams.
    public static func live(
        _ rpc: some RPCCaller,
        updates: @escaping @Sendable (Set<FetcherUpdate.Kind>) -> StreamEvents<FetcherUpdate> = { _ in .failing("no stream") }
    ) -> Self {
        Self(
            history: { try await rpc.call(RatesFetcherAPI.history, $0) },
            refresh: { try await rpc.call(RatesFetcherAPI.refresh, $0) },
            feeds: { try await rpc.call(RatesFetcherAPI.feeds) },
            ratesHistory: { try await rpc.call(RatesFetcherAPI.ratesHistory, $0) },
            coins: { try await rpc.call(RatesFetcherAPI.listCoins) },
            addCoin: { try await rpc.call(RatesFetcherAPI.addCoin, $0) },
            removeCoin: { try await rpc.call(RatesFetcherAPI.removeCoin, $0) },
            knownCoins: { try await rpc.call(RatesFetcherAPI.knownCoins, $0) },
            candles: { try await rpc.call(RatesFetcherAPI.candles, $0) },
            health: { try await rpc.call(StandardAPI.health) },
            updates: updates)
    }

    /// Every closure throws, naming itself; the streams say they are unavailable.
    public static let failing = Self(
        history: unimplemented("RatesFetcherClient.history"),
        refresh: unimplemented("RatesFetcherClient.refresh"),
        feeds: unimplemented("RatesFetcherClient.feeds"),
        ratesHistory: unimplemented("RatesFetcherClient.ratesHistory"),
        coins: unimplemented("RatesFetcherClient.coins"),
        addCoin: unimplemented("RatesFetcherClient.addCoin"),
        removeCoin: unimplemented("RatesFetcherClient.removeCoin"),
        knownCoins: unimplemented("RatesFetcherClient.knownCoins"),
        candles: unimplemented("RatesFetcherClient.candles"),
        health: unimplemented("RatesFetcherClient.health"),
        updates: { _ in .failing("RatesFetcherClient.updates is not implemented here") })
}

extension FetcherUpdate {
    /// The value a stream message carries, through its stream's spec; nil for a topic of no stream of rates-fetcher's.
    public init?(message: BusMessage) throws {
        switch message.topic.kind {
        case RatesFetcherAPI.quotes.kind: self = .quote(try message.decode(Quote.self).data)
        case RatesFetcherAPI.rates.kind: self = .rate(try message.decode(ExchangeRate.self).data)
        case RatesFetcherAPI.limits.kind: self = .book(try message.decode(BookInfo.self).data)
        case RatesFetcherAPI.books.kind: self = .depth(try message.decode(BookDepth.self).data)
        case RatesFetcherAPI.trades.kind: self = .trade(try message.decode(MarketTrade.self).data)
        case RatesFetcherAPI.candleStream.kind: self = .candle(try message.decode(Candle.self).data)
        case RatesFetcherAPI.coins.kind: self = .coin(try message.decode(CoinInfo.self).data)
        case RatesFetcherAPI.statuses.kind: self = .status(try message.decode(FeedStatus.self).data)
        case RatesFetcherAPI.assets.kind: self = .assets(try message.decode([Asset].self).data)
        case RatesFetcherAPI.wallets.kind: self = .wallets(try message.decode([Wallet].self).data)
        case RatesFetcherAPI.transactions.kind: self = .transactions(try message.decode([GNBTransaction].self).data)
        default: return nil
        }
    }
}

extension StreamEvents<FetcherUpdate> {
    /// Only the updates of `kinds`.
    package func filter(_ kinds: Set<FetcherUpdate.Kind>) -> Self {
        let base = self
        return Self {
            let source = base.makeAsyncIterator().source
            return Source(next: {
                while true {
                    guard let event = await source.next() else { return nil }
                    switch event {
                    case .snapshot(let updates): return .snapshot(updates.filter { kinds.contains($0.value.kind) })
                    case .update(let update) where kinds.contains(update.value.kind): return .update(update)
                    case .update: continue
                    case .removed(let topic) where kinds.contains { topic.rawValue.hasPrefix($0.prefix) }: return event
                    case .removed: continue
                    case .unavailable: return event
                    }
                }
            })
        }
    }
}
