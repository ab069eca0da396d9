import BusContract
import Feeds
import Foundation
import Logging
import Market
import TickwireContract
import TickwireFeeds

/// rates-fetcher's logic without a socket: the built-in feeds on their runners, the histories, the daily fiat rates,
/// the coin list, and the checks and messages of `feeds`, `refresh`, `history`, `rates.history` and `coins.*`. The
/// service (RatesFetcherCore) serves it over JSON-RPC with its publisher as the sink; the mock client runs the same
/// engine on the mock feed clients with an in-memory store, so each message and walk is defined once.
public final class FetcherEngine: Sendable {
    /// Each running built-in feed's runner (``FeedSelection/running``), in ``BuiltInFeed/all``'s order.
    public let runners: [FeedRunner]
    /// The CoinGecko coins polled.
    public let coins: CoinTracker
    private let values: PublishedValues
    private let histories: HistoryCache
    private let fiatHistories: FiatHistoryCache
    private let catalog: CoinCatalog

    /// The longest `coin` text `coins.add` and `coins.remove` take: longer than any CoinGecko id, symbol or name.
    public static let maxCoinLength = 100

    /// An engine running each built-in feed `selection` runs with the clients of `environment` at `selection`'s periods into the sink
    /// `sink` makes for its name (its `status.<feed>` after every poll), the values held in `values`, CoinGecko polling `coins`; `plugins` answers histories of
    /// feed plugins' markets (the hub's series).
    public init(
        environment: FetcherEnvironment, selection: FeedSelection, coins: CoinTracker, values: PublishedValues,
        sink: @Sendable (_ feed: String) -> FeedSink, plugins: PluginSeries? = nil, logger: Logger
    ) {
        let context = FeedJobContext(logger: logger, coins: { await coins.ids }, polled: { await coins.learn($0) })
        runners = selection.running.map { feed in
            FeedRunner(
                sink: sink(feed.name), job: feed.job(every: selection.period(of: feed), environment, context), statusEveryPoll: true,
                logger: logger)
        }
        self.coins = coins
        self.values = values
        histories = HistoryCache(coingecko: environment.coingecko, quoteHistory: environment.quoteHistory, plugins: plugins, values: values)
        fiatHistories = FiatHistoryCache(client: environment.fiatHistory)
        catalog = CoinCatalog(coingecko: environment.coingecko)
    }

    /// The runner of the built-in feed called `name`.
    public func runner(named name: String) -> FeedRunner? { runners.first { $0.name == name } }

    /// `feeds`: every running built-in feed's status, kind `built-in`, by ``BuiltInFeed/all``'s order.
    public func feeds() async -> [FeedStatus] {
        var statuses: [FeedStatus] = []
        for runner in runners {
            var status = await runner.status
            status.kind = .builtIn
            statuses.append(status)
        }
        return statuses
    }

    /// `refresh`: polls the built-in feed now (or joins its poll under way) and answers its status; an unknown or
    /// stopped feed is invalid params naming the running ones.
    public func refresh(_ request: RefreshRequest) async throws -> FeedStatus {
        guard let runner = runner(named: request.feed) else {
            let running = runners.map(\.name).joined(separator: ", ")
            throw RPCError.invalidParams("unknown feed \"\(request.feed)\"; running feeds: \(running.isEmpty ? "none" : running)")
        }
        return await runner.poll()
    }

    /// `history`: CoinGecko's (kept five minutes), else a plugin's series, else a mock feed's walked history.
    public func history(_ request: HistoryRequest) async throws -> PriceHistory { try await histories.history(request) }

    /// `rates.history`: the fiat source's daily rates (kept an hour).
    public func ratesHistory(_ request: RatesHistoryRequest) async throws -> FiatRateHistory { try await fiatHistories.history(request) }

    /// `coins.list`.
    public func listCoins() async -> [KnownCoin] { await coins.coins }

    /// `coins.known`: CoinGecko's listed coins matching the query, else its top coins.
    public func knownCoins(_ request: KnownCoinsRequest) async throws -> [KnownCoin] { try await catalog.search(request) }

    /// `coins.add`: checked against CoinGecko's list, then polled at once. Idempotent: adding a tracked coin answers
    /// `changed: false`. A coin whose symbol cannot form a topic, or that another tracked coin has, is not added.
    public func addCoin(_ request: CoinRequest) async throws -> CoinsChange {
        let coin = try await lookUp(request.coin)
        let changed = try await coins.add(coin)
        if changed, let poller = runner(named: BuiltInFeed.coingecko.name) {
            // A poll already under way read the list before this coin: wait for it, then poll with it.
            await poller.settle()
            await poller.poll()
        }
        return CoinsChange(coin: coin, changed: changed, coins: await coins.coins)
    }

    /// `coins.remove`: no longer polled, its CoinGecko topics retracted. Idempotent: removing an untracked coin
    /// answers `changed: false`.
    public func removeCoin(_ request: CoinRequest) async throws -> CoinsChange {
        let coin = try await lookUp(request.coin)
        let changed = try await coins.remove(id: coin.id)
        if changed {
            // A poll under way may still publish the coin: let it, then retract.
            await runner(named: BuiltInFeed.coingecko.name)?.settle()
            try retractCoin(coin.id)
        }
        return CoinsChange(coin: coin, changed: changed, coins: await coins.coins)
    }

    /// A tracked coin by its id, symbol or name; else whatever CoinGecko's list calls so (for a removal: a coin
    /// tracked by id whose symbol no poll has brought yet, or one not tracked, and then nothing changes). A `coin`
    /// longer than ``maxCoinLength`` is refused.
    private func lookUp(_ text: String) async throws -> KnownCoin {
        guard text.count <= Self.maxCoinLength else {
            throw RPCError.invalidParams("coin must be at most \(Self.maxCoinLength) characters (a CoinGecko id, symbol or name), got \(text.count)")
        }
        if let tracked = await coins.tracked(matching: text) { return tracked }
        return try await catalog.resolve(text)
    }

    /// Retracts CoinGecko's `coin.coingecko.<SYMBOL>` of the coin with `id` and its `quote.coingecko.<SYMBOL>-*`;
    /// other feeds' quotes of the symbol (Bitso's BTC-MXN) stay.
    func retractCoin(_ id: String) throws {
        let coinPrefix = RatesFetcherAPI.coins.prefix + BuiltInFeed.coingecko.name + "."
        let symbols = values.decoded(RatesFetcherAPI.coins, under: coinPrefix).filter { $0.value.id == id }
            .map { String($0.topic.rawValue.dropFirst(coinPrefix.count)) }
        for symbol in symbols {
            let quotes = values.held(RatesFetcherAPI.quotes.prefix + "\(BuiltInFeed.coingecko.name).\(symbol)-").map(\.topic)
            for topic in quotes + [try Topic(coinPrefix + symbol)] { try values.retract(topic) }
        }
    }

    /// Each built-in feed's health: `ok`, else why not.
    public func upstreams() async -> [String: String] {
        var upstreams: [String: String] = [:]
        for runner in runners {
            let status = await runner.status
            upstreams[status.feed] = status.state == .ok ? "ok" : status.message ?? status.state.rawValue
        }
        return upstreams
    }
}

extension FetcherEngine {
    /// An engine over the recorded clients (``FetcherEnvironment/test``) whose CoinGecko lists exactly `coins` and that
    /// tracks them all, into `values` and the sinks of `sink`: what a recorded client's coin methods answer from.
    public static func recorded(
        coins: [KnownCoin], values: PublishedValues, sink: @Sendable (_ feed: String) -> FeedSink,
        logger: Logger = Logger(label: "tickwire.rates-fetcher.recorded")
    ) -> FetcherEngine {
        var environment = FetcherEnvironment.test
        let listed = coins.map { CoinGeckoCoin(id: $0.id, symbol: ($0.symbol ?? $0.id).lowercased(), name: $0.name ?? $0.id) }
        environment.coingecko.coinList = { listed }
        return FetcherEngine(
            environment: environment, selection: FeedSelection(defaultVariant: .test), coins: CoinTracker(coins: coins), values: values,
            sink: sink, logger: logger)
    }
}
