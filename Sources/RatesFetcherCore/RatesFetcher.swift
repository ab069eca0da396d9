import Bus
import Foundation
import Logging
import Market
import TickwireContract
import ServiceLifecycle
import ServiceSupport
import BusContract

/// The rates-fetcher's settings.
public struct FetcherConfiguration: Sendable {
    /// Where its stream binds.
    public var pub: String
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// Which feeds use which clients, and how often they poll.
    public var selection: FeedSelection
    /// The CoinGecko coins polled when no saved list exists.
    public var coinIDs: [String]
    /// Where the coin list is saved (`coins.json`), so coins added or removed outlive a restart; nil: not saved.
    public var stateDirectory: String?
    /// Where the ingest endpoint binds: the SUB socket feed plugins' PUB sockets connect to.
    public var ingest: String
    /// How many messages a second each feed plugin may send (the excess is refused, `rate-limit`).
    public var ingestRate: Int

    /// Where the ingest endpoint binds unless told otherwise.
    public static let defaultIngest = "tcp://127.0.0.1:7103"
    /// The environment variable that overrides ``defaultIngest`` (`--ingest`).
    public static let ingestEnvironmentVariable = "TICKWIRE_RATES_FETCHER_INGEST"
    /// How many messages a second a plugin may send unless told otherwise.
    public static let defaultIngestRate = 100_000

    /// The coins polled unless told otherwise.
    public static let defaultCoinIDs = ["bitcoin", "ethereum", "ripple", "litecoin", "cardano", "solana", "dogecoin"]

    /// A configuration.
    public init(
        pub: String, rep: String, selection: FeedSelection, coinIDs: [String] = defaultCoinIDs, stateDirectory: String? = nil,
        ingest: String = defaultIngest, ingestRate: Int = defaultIngestRate
    ) {
        self.pub = pub
        self.rep = rep
        self.selection = selection
        self.coinIDs = coinIDs
        self.stateDirectory = stateDirectory
        self.ingest = ingest
        self.ingestRate = ingestRate
    }

    /// The coin list this configuration starts from: the saved one in ``stateDirectory`` if there is one, else ``coinIDs``.
    public func coinTracker() throws -> CoinTracker {
        guard let stateDirectory else { return CoinTracker(ids: coinIDs) }
        return try CoinTracker(file: URL(fileURLWithPath: stateDirectory).appendingPathComponent(CoinTracker.fileName), initial: coinIDs)
    }
}

/// The rates-fetcher: polls every feed, publishes quotes, rates, books, masterdata,
/// transactions and feed status, and answers `snapshot`, `history`, `refresh`, `feeds`, `rates.history`
/// and the `coins.*` methods that change which CoinGecko coins it polls. As the feed hub, it also republishes
/// what feed plugins publish into its ingest endpoint (``IngestHub``).
public enum RatesFetcher {
    /// The services of one rates-fetcher process; throws when the saved coin list cannot be read.
    public static func services(_ configuration: FetcherConfiguration, environment: FetcherEnvironment, runtime: Runtime) throws -> [any Service] {
        let coins = try configuration.coinTracker()
        runtime.logger.info("coin list", metadata: [
            "file": "\(coins.file?.path ?? "none (not saved)")", "initial": "\(configuration.coinIDs.joined(separator: ","))"])
        let publisher = try runtime.publisher(binding: [configuration.pub])
        try runtime.security.checkExposure(binding: [configuration.ingest])
        let hub = IngestHub(
            publisher: publisher, reserved: reservedNames, limits: IngestLimits(ratePerSecond: configuration.ingestRate),
            logger: runtime.logger)
        let ingest = try IngestEndpoint(
            binding: configuration.ingest, hub: hub, context: runtime.context, keys: runtime.security.keys, service: runtime.service,
            maxMessageBytes: runtime.security.maxMessageBytes, logger: runtime.logger)
        runtime.logger.info("ingest endpoint", metadata: [
            "endpoint": "\(configuration.ingest)", "ratePerFeed": "\(configuration.ingestRate)", "writersOnly": "\(runtime.security.keys != nil)"])
        let pollers = Feed.allCases.map { feed in
            FeedPoller(
                feed: feed, period: configuration.selection.period(of: feed), publisher: publisher, logger: runtime.logger,
                job: FeedJobs.job(feed, environment, logger: runtime.logger, coins: { await coins.ids }, polled: { await coins.learn($0) }))
        }
        let standard = runtime.standardMethods(publisher: publisher) {
            var upstreams: [String: String] = [:]
            for poller in pollers {
                let status = await poller.status
                upstreams[status.feed] = status.state == .ok ? "ok" : status.message ?? status.state.rawValue
            }
            return Health(service: runtime.service, started: runtime.started, upstreams: upstreams)
        }
        let methods = methods(pollers: pollers, environment: environment, publisher: publisher, standard: standard, coins: coins, hub: hub)
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods)
        runtime.beforeScrape { await FeedFreshness.update(pollers, in: runtime.registry, started: runtime.started) }
        return [publisher, server, ingest] + pollers.map { poller in LoopService { await poller.run() } }
    }

    /// The names no plugin may publish under: the built-in feeds and the sources they publish under, and the
    /// stack's services (``IngestHub/serviceNames``).
    static var reservedNames: Set<String> {
        Set(Feed.allCases.map(\.rawValue)).union(IngestHub.serviceNames)
    }

    /// `standard` and the fetcher's own methods over `pollers` and the plugins of `hub`, with histories from
    /// `environment` (and the plugins' series) published on `publisher` and the CoinGecko coins of `coins`: what its
    /// server serves, and what the fuzzer (Tests/FuzzTargets) and the unit tests call in process.
    package static func methods(
        pollers: [FeedPoller], environment: FetcherEnvironment, publisher: Publisher, standard: RPCMethods,
        coins: CoinTracker = CoinTracker(ids: FetcherConfiguration.defaultCoinIDs), hub: IngestHub? = nil
    ) -> RPCMethods {
        let histories = HistoryCache(
            coingecko: environment.coingecko, quoteHistory: environment.quoteHistory, plugins: hub?.history, publisher: publisher)
        var methods = standard
        methods.register(RatesFetcherAPI.feeds) {
            var statuses: [FeedStatus] = []
            for poller in pollers {
                var status = await poller.status
                status.kind = .builtIn
                status.refused = hub?.refusals(ofReserved: status.feed)
                statuses.append(status)
            }
            return statuses + (hub?.statuses ?? [])
        }
        methods.register(RatesFetcherAPI.refresh) { request in
            guard let poller = pollers.first(where: { $0.feed.rawValue == request.feed }) else {
                if hub?.statuses.contains(where: { $0.feed == request.feed }) == true {
                    throw RPCError.invalidParams("\"\(request.feed)\" is a feed plugin: it publishes on its own schedule, the hub polls only its built-in feeds (\(Feed.allCases.map(\.rawValue).joined(separator: ", ")))")
                }
                throw RPCError.invalidParams("unknown feed \"\(request.feed)\"; feeds: \(Feed.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return await poller.poll()
        }
        methods.register(RatesFetcherAPI.history) { try await histories.history($0) }
        let fiatHistories = FiatHistoryCache(client: environment.fiatHistory)
        methods.register(RatesFetcherAPI.ratesHistory) { try await fiatHistories.history($0) }
        registerCoins(in: &methods, coins: coins, catalog: CoinCatalog(coingecko: environment.coingecko),
                      poller: pollers.first { $0.feed == .coingecko }, publisher: publisher)
        return methods
    }

    /// `coins.list`, `coins.known`, `coins.add` (checked against CoinGecko's list, then polled at once) and
    /// `coins.remove` (no longer polled, its CoinGecko topics retracted). Both changes are idempotent: adding a
    /// tracked coin or removing an untracked one answers `changed: false`. A coin whose symbol cannot form a topic,
    /// or that another tracked coin has, is not added; a `coin` longer than ``maxCoinLength`` is refused.
    private static func registerCoins(
        in methods: inout RPCMethods, coins: CoinTracker, catalog: CoinCatalog, poller: FeedPoller?, publisher: Publisher
    ) {
        methods.register(RatesFetcherAPI.listCoins) { await coins.coins }
        methods.register(RatesFetcherAPI.knownCoins) { try await catalog.search($0) }
        // A tracked coin by its id, symbol or name; else whatever CoinGecko's list calls so (for a removal: a coin
        // tracked by id whose symbol no poll has brought yet, or one not tracked, and then nothing changes).
        let lookUp: @Sendable (String) async throws -> KnownCoin = { text in
            guard text.count <= maxCoinLength else {
                throw RPCError.invalidParams("coin must be at most \(maxCoinLength) characters (a CoinGecko id, symbol or name), got \(text.count)")
            }
            if let tracked = await coins.tracked(matching: text) { return tracked }
            return try await catalog.resolve(text)
        }
        methods.register(RatesFetcherAPI.addCoin) { request in
            let coin = try await lookUp(request.coin)
            let changed = try await coins.add(coin)
            if changed, let poller {
                // A poll already under way read the list before this coin: wait for it, then poll with it.
                await poller.settle()
                await poller.poll()
            }
            return CoinsChange(coin: coin, changed: changed, coins: await coins.coins)
        }
        methods.register(RatesFetcherAPI.removeCoin) { request in
            let coin = try await lookUp(request.coin)
            let changed = try await coins.remove(id: coin.id)
            if changed {
                // A poll under way may still publish the coin: let it, then retract.
                await poller?.settle()
                try retractCoin(coin.id, on: publisher)
            }
            return CoinsChange(coin: coin, changed: changed, coins: await coins.coins)
        }
    }

    /// The longest `coin` text `coins.add` and `coins.remove` take: longer than any CoinGecko id, symbol or name.
    static let maxCoinLength = 100

    /// Retracts CoinGecko's `coin.coingecko.<SYMBOL>` of the coin with `id` and its `quote.coingecko.<SYMBOL>-*`;
    /// other feeds' quotes of the symbol (Bitso's BTC-MXN) stay.
    static func retractCoin(_ id: String, on publisher: Publisher) throws {
        let coinPrefix = RatesFetcherAPI.coins.prefix + "coingecko."
        let symbols = publisher.snapshot(prefix: coinPrefix).entries.compactMap { entry -> String? in
            guard let info = try? BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8)).decode(RatesFetcherAPI.coins)?.data,
                  info.id == id else { return nil }
            return String(entry.topic.rawValue.dropFirst(coinPrefix.count))
        }
        for symbol in symbols {
            let quotes = publisher.snapshot(prefix: RatesFetcherAPI.quotes.prefix + "coingecko.\(symbol)-").entries.map(\.topic)
            for topic in quotes + [try Topic(coinPrefix + symbol)] { try publisher.retract(topic) }
        }
    }
}
