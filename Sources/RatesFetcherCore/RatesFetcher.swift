import Bus
import Foundation
import Logging
import Market
import TickwireContract
import ServiceLifecycle
import ServiceSupport
import BusContract
import Candles
import RatesFetcherEngine
import TickwireFeeds

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
    /// The SQLite file of closed candles; nil: kept in memory only.
    public var candlesDatabase: String?
    /// Whether `candlesDatabase` is the state folder's default rather than a file the user named: a default that cannot
    /// be opened (a read-only or foreign-owned folder) leaves the candles in memory with an error logged, a named one
    /// stops the start.
    public var candlesDatabaseIsDefault: Bool
    /// How long candles of each interval are kept.
    public var candleRetention: CandleRetention

    /// Where the ingest endpoint binds unless told otherwise.
    public static let defaultIngest = "tcp://127.0.0.1:7103"
    /// The environment variable that overrides ``defaultIngest`` (`--ingest`).
    public static let ingestEnvironmentVariable = "TICKWIRE_RATES_FETCHER_INGEST"
    /// How many messages a second a plugin may send unless told otherwise.
    public static let defaultIngestRate = 100_000

    /// The coins polled unless told otherwise.
    public static let defaultCoinIDs = CoinTracker.defaultIDs

    /// A configuration.
    public init(
        pub: String, rep: String, selection: FeedSelection, coinIDs: [String] = defaultCoinIDs, stateDirectory: String? = nil,
        ingest: String = defaultIngest, ingestRate: Int = defaultIngestRate, candlesDatabase: String? = nil,
        candlesDatabaseIsDefault: Bool = false, candleRetention: CandleRetention = .standard
    ) {
        self.pub = pub
        self.rep = rep
        self.selection = selection
        self.coinIDs = coinIDs
        self.stateDirectory = stateDirectory
        self.ingest = ingest
        self.ingestRate = ingestRate
        self.candlesDatabase = candlesDatabase
        self.candlesDatabaseIsDefault = candlesDatabaseIsDefault
        self.candleRetention = candleRetention
    }

    /// The coin list this configuration starts from: the saved one in ``stateDirectory`` if there is one, else ``coinIDs``.
    public func coinTracker() throws -> CoinTracker {
        guard let stateDirectory else { return CoinTracker(ids: coinIDs) }
        return try CoinTracker(file: URL(fileURLWithPath: stateDirectory).appendingPathComponent(CoinTracker.fileName), initial: coinIDs)
    }
}

/// The rates-fetcher: runs every built-in feed (``RatesFetcherEngine``'s ``FetcherEngine``), publishes quotes, rates,
/// books, masterdata, transactions and feed status, and answers `snapshot`, `history`, `refresh`, `feeds`,
/// `rates.history` and the `coins.*` methods that change which CoinGecko coins it polls. As the feed hub, it also
/// republishes what feed plugins publish into its ingest endpoint (``IngestHub``).
public enum RatesFetcher {
    /// The services of one rates-fetcher process; throws when the saved coin list cannot be read.
    public static func services(_ configuration: FetcherConfiguration, environment: FetcherEnvironment, runtime: Runtime) throws -> [any Service] {
        let coins = try configuration.coinTracker()
        runtime.logger.info("coin list", metadata: [
            "file": "\(coins.file?.path ?? "none (not saved)")", "initial": "\(configuration.coinIDs.joined(separator: ","))"])
        let candlesEndpoint = CandleService.endpoint(for: UUID().uuidString)
        let publisher = try runtime.publisher(binding: [candlesEndpoint, configuration.pub])
        var candlesDatabase = configuration.candlesDatabase
        let candleStore: CandleStore
        do {
            candleStore = try candlesDatabase.map { try CandleStore.sqlite(path: $0, retention: configuration.candleRetention) }
                ?? CandleStore.inMemory(retention: configuration.candleRetention)
        } catch where configuration.candlesDatabaseIsDefault {
            runtime.logger.error("candles kept in memory only: the default candles database cannot be opened (give --candles-db a writable file)", metadata: [
                "database": "\(candlesDatabase ?? "")", "error": "\(error)"])
            candlesDatabase = nil
            candleStore = try CandleStore.inMemory(retention: configuration.candleRetention)
        }
        runtime.logger.info("candles", metadata: [
            "database": "\(candlesDatabase ?? "none (in memory)")", "retention": "\(configuration.candleRetention)"])
        let candles = try CandleService(following: candlesEndpoint, context: runtime.context, publisher: publisher, store: candleStore, logger: runtime.logger)
        try runtime.security.checkExposure(binding: [configuration.ingest])
        let hub = IngestHub(
            publisher: publisher, reserved: reservedNames(configuration.selection), limits: IngestLimits(ratePerSecond: configuration.ingestRate),
            logger: runtime.logger)
        let ingest = try IngestEndpoint(
            binding: configuration.ingest, hub: hub, context: runtime.context, keys: runtime.security.keys, service: runtime.service,
            maxMessageBytes: runtime.security.maxMessageBytes, logger: runtime.logger)
        runtime.logger.info("ingest endpoint", metadata: [
            "endpoint": "\(configuration.ingest)", "ratePerFeed": "\(configuration.ingestRate)", "writersOnly": "\(runtime.security.keys != nil)"])
        let engine = engine(environment: environment, selection: configuration.selection, coins: coins, publisher: publisher, hub: hub, logger: runtime.logger)
        let standard = runtime.standardMethods(publisher: publisher) {
            Health(service: runtime.service, started: runtime.started, upstreams: await engine.upstreams())
        }
        let methods = methods(engine: engine, standard: standard, hub: hub, candles: candleStore)
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods)
        runtime.beforeScrape { await FeedFreshness.update(engine.runners, in: runtime.registry, started: runtime.started) }
        return [publisher, server, ingest, candles] + engine.runners
    }

    /// The engine of a hub publishing on `publisher`: each built-in feed publishes through the sink a plugin's
    /// connection also is (``FeedSink/publisher(_:name:)``), and histories of plugins' markets come from `hub`'s series.
    package static func engine(
        environment: FetcherEnvironment, selection: FeedSelection, coins: CoinTracker, publisher: Publisher, hub: IngestHub? = nil,
        logger: Logger
    ) -> FetcherEngine {
        var series: PluginSeries?
        if let history = hub?.history {
            series = { asset, currency, days in history.history(asset: asset, currency: currency, days: days) }
        }
        return FetcherEngine(
            environment: environment, selection: selection, coins: coins, values: .publisher(publisher),
            sink: { .publisher(publisher, name: $0) }, plugins: series, logger: logger)
    }

    /// The names no plugin may publish under: the built-in feeds `selection` runs and the sources they publish under
    /// (a stopped feed's names are free, so a replay into `--feeds none` may publish as `bitso`), and the stack's
    /// services (``IngestHub/serviceNames``), always.
    static func reservedNames(_ selection: FeedSelection) -> Set<String> {
        selection.reservedNames.union(IngestHub.serviceNames)
    }

    /// `standard` and the fetcher's own methods over `engine` and the plugins of `hub`: what its server serves, and
    /// what the fuzzer (Tests/FuzzTargets) and the unit tests call in process.
    package static func methods(engine: FetcherEngine, standard: RPCMethods, hub: IngestHub? = nil, candles: CandleStore? = nil) -> RPCMethods {
        var methods = standard
        if let candles { CandleService.register(candles, in: &methods) }
        methods.register(RatesFetcherAPI.feeds) {
            var statuses = await engine.feeds()
            for index in statuses.indices { statuses[index].refused = hub?.refusals(ofReserved: statuses[index].feed) }
            return statuses + (hub?.statuses ?? [])
        }
        methods.register(RatesFetcherAPI.refresh) { request in
            if engine.runner(named: request.feed) == nil, hub?.statuses.contains(where: { $0.feed == request.feed }) == true {
                let running = engine.runners.map(\.name).joined(separator: ", ")
                throw RPCError.invalidParams("\"\(request.feed)\" is a feed plugin: it publishes on its own schedule, the hub polls only its built-in feeds (\(running.isEmpty ? "none run" : running))")
            }
            return try await engine.refresh(request)
        }
        methods.register(RatesFetcherAPI.history) { try await engine.history($0) }
        methods.register(RatesFetcherAPI.ratesHistory) { try await engine.ratesHistory($0) }
        methods.register(RatesFetcherAPI.listCoins) { await engine.listCoins() }
        methods.register(RatesFetcherAPI.knownCoins) { try await engine.knownCoins($0) }
        methods.register(RatesFetcherAPI.addCoin) { try await engine.addCoin($0) }
        methods.register(RatesFetcherAPI.removeCoin) { try await engine.removeCoin($0) }
        return methods
    }
}
