import AsyncHTTPClient
import Bus
import Feeds
import Foundation
import Logging
import Market
import BusContract
import TickwireContract

/// Which client a feed uses.
public enum FeedVariant: String, CaseIterable, Sendable {
    /// The real API over HTTP.
    case live
    /// Recorded responses, deterministic.
    case test
    /// A seeded random walk around the recorded prices, offline.
    case mock
}

/// The clients of every feed, as the rates-fetcher receives them at start-up.
public struct FetcherEnvironment: Sendable {
    /// Bitso books and tickers.
    public var bitso: BitsoClient
    /// WazirX 24 h tickers.
    public var wazirx: WazirXClient
    /// Fiat reference rates (ECB through Frankfurter, or fixer).
    public var fiat: FiatClient
    /// Daily fiat rates over a span (ECB through Frankfurter), for histories converted at each day's rate.
    public var fiatHistory: FiatHistoryClient
    /// CoinGecko markets and histories.
    public var coingecko: CoinGeckoClient
    /// GNB rates and transactions.
    public var gnb: GNBClient
    /// The Bitpanda-format masterdata.
    public var masterdata: MasterdataClient
    /// A history for a quote no history source has (a mock feed's market): walked back from the quote's price
    /// over the given days. nil (the default) when only real histories may be answered.
    public var quoteHistory: (@Sendable (_ quote: Quote, _ days: Int) throws -> PriceHistory)?

    /// An environment from its clients; without `fiatHistory`, `rates.history` answers that there are no daily rates.
    public init(
        bitso: BitsoClient, wazirx: WazirXClient, fiat: FiatClient, coingecko: CoinGeckoClient, gnb: GNBClient, masterdata: MasterdataClient,
        fiatHistory: FiatHistoryClient = .failing(.notInFixtures("no daily fiat rate source was given"))
    ) {
        self.bitso = bitso
        self.wazirx = wazirx
        self.fiat = fiat
        self.fiatHistory = fiatHistory
        self.coingecko = coingecko
        self.gnb = gnb
        self.masterdata = masterdata
    }

    /// The clients of feed `name` taken from `other` (fiat's daily rates with its latest).
    mutating func use(_ other: FetcherEnvironment, for name: String) {
        switch name {
        case "bitso": bitso = other.bitso
        case "wazirx": wazirx = other.wazirx
        case "fiat":
            fiat = other.fiat
            fiatHistory = other.fiatHistory
        case "coingecko": coingecko = other.coingecko
        case "gnb": gnb = other.gnb
        case "masterdata": masterdata = other.masterdata
        default: break
        }
    }

    /// Every feed's recorded responses.
    public static let test = FetcherEnvironment(
        bitso: .test, wazirx: .test, fiat: .test, coingecko: .test, gnb: .test, masterdata: .test, fiatHistory: .test)

    /// Every feed mocked with `seed`; every quoted market has a walked history ending at its current price.
    public static func mock(seed: UInt64) -> FetcherEnvironment {
        var environment = FetcherEnvironment(
            bitso: .mock(seed: seed), wazirx: .mock(seed: seed), fiat: .mock(seed: seed),
            coingecko: .mock(seed: seed), gnb: .mock(seed: seed), masterdata: .mock(seed: seed), fiatHistory: .mock(seed: seed))
        environment.quoteHistory = { quote, days in try quote.walkedHistory(days: days, seed: seed, end: Date()) }
        return environment
    }
}

/// What the flags say about the feeds: which built-in feeds run, a variant for all, per-feed overrides, and sources.
public struct FeedSelection: Sendable, Equatable {
    /// The variant of every feed not named otherwise.
    public var defaultVariant: FeedVariant
    /// Per-feed variants by feed name (`--feed bitso=live`).
    public var overrides: [String: FeedVariant]
    /// Base URLs by feed name (a file path or URL for masterdata); setting one selects that feed's live client.
    public var sources: [String: String]
    /// fixer.io's access key: when set, fiat rates come from fixer instead of the ECB.
    public var fixerKey: String?
    /// Per-feed poll periods by feed name, overriding the variant's default.
    public var periods: [String: Duration]
    /// The random walk's seed for mock feeds.
    public var seed: UInt64
    /// The built-in feeds that do not run, by name (`--feeds none`, `--feed bitso=none`): the hub only republishes
    /// what plugins send, and their names are free for plugins (a replay may publish as `bitso`).
    public var stopped: Set<String>

    /// Public defaults of the live APIs; GNB's original host is gone, so it has none.
    public static let defaultSources: [String: String] = [
        "bitso": "https://api.bitso.com",
        "wazirx": "https://api.wazirx.com",
        "fiat": "https://api.frankfurter.app",
        "coingecko": "https://api.coingecko.com/api/v3",
    ]
    /// fixer.io's API base.
    public static let fixerBase = "https://data.fixer.io/api"

    /// A selection.
    public init(
        defaultVariant: FeedVariant = .mock, overrides: [String: FeedVariant] = [:], sources: [String: String] = [:],
        fixerKey: String? = nil, periods: [String: Duration] = [:], seed: UInt64 = 42, stopped: Set<String> = []
    ) {
        self.defaultVariant = defaultVariant
        self.overrides = overrides
        self.sources = sources
        self.fixerKey = fixerKey
        self.periods = periods
        self.seed = seed
        self.stopped = stopped
    }

    /// Whether `feed` runs in this hub.
    public func runs(_ feed: BuiltInFeed) -> Bool { !stopped.contains(feed.name) }

    /// The built-in feeds that run, in ``BuiltInFeed/all``'s order.
    public var running: [BuiltInFeed] { BuiltInFeed.all.filter(runs) }

    /// The names no plugin may take while these feeds run: each running feed's name and the sources it publishes
    /// under (fiat's `ecb` and `fixer`). A stopped feed's names are free.
    public var reservedNames: Set<String> { Set(running.map(\.name)).union(running.flatMap(\.sources)) }

    /// The variant a feed runs: an explicit override, else live when its source (or, for fiat,
    /// a fixer key) is set, else the default.
    public func variant(of feed: BuiltInFeed) -> FeedVariant {
        let sourceGiven = sources[feed.name] != nil || (feed.name == BuiltInFeed.fiat.name && fixerKey != nil)
        return overrides[feed.name] ?? (sourceGiven ? .live : defaultVariant)
    }

    /// How often `feed` is polled.
    public func period(of feed: BuiltInFeed) -> Duration {
        periods[feed.name] ?? (variant(of: feed) == .mock ? feed.mockPeriod : feed.livePeriod)
    }

    /// Whether any running feed needs the network (a masterdata file does not).
    public var needsHTTP: Bool {
        running.contains { feed in
            variant(of: feed) == .live && !(feed.name == BuiltInFeed.masterdata.name && sources[feed.name].map { !$0.contains("://") } == true)
        }
    }

    /// Builds the clients; throws when a running live feed has no usable source (a stopped feed keeps its mock).
    public func environment(http: HTTPClient?, logger: Logger) throws -> FetcherEnvironment {
        var environment = FetcherEnvironment.mock(seed: seed)
        for feed in running {
            switch variant(of: feed) {
            case .mock:
                continue
            case .test:
                environment.use(FetcherEnvironment.test, for: feed.name)
            case .live:
                try live(feed.name, into: &environment, http: http, logger: logger)
            }
        }
        // Only a running mock feed's quotes get a walked history: a real market's (or a replayed one's) is never made up.
        let mocked = Set(running.filter { variant(of: $0) == .mock }.map(\.name))
        if let walked = environment.quoteHistory {
            let mockedOnly: @Sendable (Quote, Int) throws -> PriceHistory = { quote, days in
                guard mocked.contains(quote.source) else {
                    throw RPCError.notFound("no price history for \(quote.market.base) in \(quote.market.quote): \(quote.source) has none")
                }
                return try walked(quote, days)
            }
            environment.quoteHistory = mocked.isEmpty ? nil : mockedOnly
        }
        return environment
    }

    private func live(_ feed: String, into environment: inout FetcherEnvironment, http: HTTPClient?, logger: Logger) throws {
        let source = sources[feed] ?? Self.defaultSources[feed]
        if feed == "masterdata", let path = source, !path.contains("://") {
            environment.masterdata = .file(path: path)
            return
        }
        let fiatBase = fixerKey != nil && sources["fiat"] == nil ? Self.fixerBase : source
        guard let text = feed == "fiat" ? fiatBase : source else { throw SelectionError.missingSource(feed) }
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw SelectionError.invalidURL(feed, text)
        }
        guard let http else { throw SelectionError.noHTTPClient(feed) }
        let feedLogger = Logger(label: "tickwire.feeds.\(feed)")
        switch feed {
        case "bitso": environment.bitso = .live(http: http, baseURL: url, logger: feedLogger)
        case "wazirx": environment.wazirx = .live(http: http, baseURL: url, logger: feedLogger)
        case "coingecko": environment.coingecko = .live(http: http, baseURL: url, logger: feedLogger)
        case "gnb": environment.gnb = .live(http: http, baseURL: url, logger: feedLogger)
        case "masterdata": environment.masterdata = .live(http: http, url: url, logger: feedLogger)
        default:
            let provider: FiatProvider = fixerKey.map { .fixer(baseURL: url, accessKey: $0) } ?? .frankfurter(baseURL: url)
            environment.fiat = .live(http: http, provider: provider, logger: feedLogger)
            // Daily series come from Frankfurter even when the latest rates come from fixer (whose
            // time series is a paid plan's).
            let frankfurter = fixerKey == nil ? url : URL(string: Self.defaultSources["fiat"] ?? "") ?? url
            environment.fiatHistory = .live(http: http, baseURL: frankfurter, logger: feedLogger)
        }
    }
}

/// A feed selection that cannot run.
public enum SelectionError: Error, Equatable, CustomStringConvertible {
    /// A live feed (by name) without a base URL or file.
    case missingSource(String)
    /// A base URL that is not http(s).
    case invalidURL(String, String)
    /// A `feed=value` flag that does not parse, or names no built-in feed.
    case invalidAssignment(String)
    /// A live feed asked for without an HTTP client to call it with.
    case noHTTPClient(String)

    public var description: String {
        switch self {
        case .missingSource("gnb"): "the gnb feed is live but has no base URL: pass --gnb-url or TICKWIRE_GNB_URL"
        case .missingSource("masterdata"): "the masterdata feed is live but has no file: pass --masterdata or TICKWIRE_MASTERDATA"
        case .missingSource(let feed): "the \(feed) feed is live but has no source"
        case .invalidURL(let feed, let text): "the \(feed) feed's URL \"\(text)\" is not an http(s) URL"
        case .noHTTPClient(let feed): "the \(feed) feed is live but no HTTP client was given"
        case .invalidAssignment(let text): "expected FEED=VALUE with FEED one of \(BuiltInFeed.names), got \"\(text)\""
        }
    }
}
