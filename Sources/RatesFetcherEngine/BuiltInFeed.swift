import Feeds
import Foundation
import Logging
import Market
import TickwireFeeds

/// What a built-in feed's job is given besides its clients: the name it publishes under, where it logs, and (for
/// CoinGecko) the coins to poll and who learns what a poll fetched.
public struct FeedJobContext: Sendable {
    /// The source every topic takes: nil in the hub, where each value keeps its own (`rate.ecb.*`, `quote.bitso.*`);
    /// a name when the feed runs as a plugin, where every topic is `<kind>.<name>.*` and only what a hub's ingest
    /// takes is published (quotes, rates, books, coins).
    public var pluginName: String?
    /// Where a job logs what it skipped.
    public var logger: Logger
    /// The CoinGecko coins to poll, asked at each poll.
    public var coins: @Sendable () async -> [String]
    /// Hands a CoinGecko poll's answer on (the coin tracker learns symbols and names from it).
    public var polled: @Sendable ([CoinMarket]) async -> Void

    /// A context; by default the hub's (no plugin name), polling `coinIDs`.
    public init(
        pluginName: String? = nil, logger: Logger = Logger(label: "tickwire.rates-fetcher"), coinIDs: [String] = [],
        coins: (@Sendable () async -> [String])? = nil, polled: @escaping @Sendable ([CoinMarket]) async -> Void = { _ in }
    ) {
        self.pluginName = pluginName
        self.logger = logger
        self.coins = coins ?? { coinIDs }
        self.polled = polled
    }

    /// The source of values `feed` (or the client's `own` source) publishes: the plugin's name when it is one.
    func source(_ own: String) -> String { pluginName ?? own }
}

/// One of rates-fetcher's built-in feeds: its name, how often it polls, the topics it fills and the poll its job makes
/// from its witness clients. The hub runs each of ``all`` on a ``FeedRunner`` into its own publisher, and
/// `tickwire-feed` runs one into a remote hub's ingest endpoint: the same definition both ways.
public struct BuiltInFeed: Sendable, Identifiable, CustomStringConvertible {
    /// The feed's name (`bitso`): `--feed bitso=live`, `refresh`, `feeds`, `status.bitso`.
    public let name: String
    /// How often it polls the real API.
    public let livePeriod: Duration
    /// How often its mock ticks, so a demo looks alive within seconds.
    public let mockPeriod: Duration
    /// The topics it fills, as patterns (`quote.bitso.<BASE>-<QUOTE>`).
    public let topics: [String]
    /// The sources its values are published under besides its name (fiat: `ecb`, `fixer`): names no plugin may take.
    public let sources: Set<String>
    /// The name it publishes under as a process of its own (`tickwire-feed`) unless told another: the source its
    /// values carry, so a consumer takes them as it takes the hub's (fiat run on Frankfurter: `ecb`, the converter's
    /// fiat source), else its name.
    public let defaultPluginName: String
    /// Whether a hub's ingest takes anything it publishes (masterdata's assets and wallets it does not).
    public let feedsAHub: Bool
    private let makePoll: @Sendable (FetcherEnvironment, FeedJobContext) -> @Sendable () async throws -> [FeedPublication]

    /// A definition.
    public init(
        name: String, livePeriod: Duration, mockPeriod: Duration, topics: [String], sources: Set<String> = [], pluginName: String? = nil, feedsAHub: Bool = true,
        poll: @escaping @Sendable (FetcherEnvironment, FeedJobContext) -> @Sendable () async throws -> [FeedPublication]
    ) {
        self.name = name
        self.defaultPluginName = pluginName ?? name
        self.livePeriod = livePeriod
        self.mockPeriod = mockPeriod
        self.topics = topics
        self.sources = sources
        self.feedsAHub = feedsAHub
        self.makePoll = poll
    }

    public var id: String { name }
    public var description: String { name }

    /// One poll with the clients of `environment`: every value it fetched, or a throw (no half-published polls).
    public func poll(_ environment: FetcherEnvironment, _ context: FeedJobContext = FeedJobContext()) -> @Sendable () async throws -> [FeedPublication] {
        makePoll(environment, context)
    }

    /// Its job for a ``FeedRunner``: ``poll(_:_:)`` every `period`.
    public func job(every period: Duration, _ environment: FetcherEnvironment, _ context: FeedJobContext = FeedJobContext()) -> FeedJob {
        .poll(every: period, poll(environment, context))
    }
}

extension BuiltInFeed {
    /// Bitso's books and tickers.
    public static let bitso = BuiltInFeed(
        name: "bitso", livePeriod: .seconds(30), mockPeriod: .seconds(1), topics: ["limits.bitso.<BOOK>", "quote.bitso.<BASE>-<QUOTE>"]
    ) { environment, context in
        {
            let books = try await environment.bitso.availableBooks()
            let tickers = try await environment.bitso.tickers()
            return try FeedJobs.bitso(books: books, tickers: tickers, feed: context.source("bitso"))
        }
    }

    /// WazirX's 24 h tickers.
    public static let wazirx = BuiltInFeed(
        name: "wazirx", livePeriod: .seconds(60), mockPeriod: .seconds(1), topics: ["quote.wazirx.<BASE>-<QUOTE>"]
    ) { environment, context in
        { try FeedJobs.quotes(try await environment.wazirx.tickers(), feed: context.source("wazirx")) }
    }

    /// Fiat reference rates, published under their source (`ecb` through Frankfurter, or `fixer`).
    public static let fiat = BuiltInFeed(
        name: "fiat", livePeriod: .seconds(300), mockPeriod: .seconds(10), topics: ["rate.<ecb|fixer>.<FROM>-<TO>"],
        sources: ["ecb", "fixer"], pluginName: "ecb"
    ) { environment, context in
        {
            let rates = try await environment.fiat.latest()
            return try FeedJobs.fiat(rates, source: context.source(rates.source))
        }
    }

    /// CoinGecko's markets of the tracked coins: a quote in USD and the coin of each.
    public static let coingecko = BuiltInFeed(
        name: "coingecko", livePeriod: .seconds(60), mockPeriod: .seconds(1),
        topics: ["quote.coingecko.<SYMBOL>-USD", "coin.coingecko.<SYMBOL>"]
    ) { environment, context in
        FeedJobs.coingeckoPoll(environment.coingecko, context)
    }

    /// GNB's rates and transactions (a plugin publishes the rates only: a hub's ingest takes no transactions).
    public static let gnb = BuiltInFeed(
        name: "gnb", livePeriod: .seconds(3600), mockPeriod: .seconds(3600), topics: ["rate.gnb.<FROM>-<TO>", "transactions.gnb"]
    ) { environment, context in
        {
            let rates = try await environment.gnb.rates()
            guard let plugin = context.pluginName else {
                return try FeedJobs.gnb(rates: rates, transactions: try await environment.gnb.transactions())
            }
            return try FeedJobs.rates(rates, source: plugin)
        }
    }

    /// The Bitpanda-format masterdata: assets and wallets, which only the hub publishes.
    public static let masterdata = BuiltInFeed(
        name: "masterdata", livePeriod: .seconds(3600), mockPeriod: .seconds(3600), topics: ["assets.masterdata", "wallets.masterdata"],
        feedsAHub: false
    ) { environment, _ in
        { FeedJobs.masterdata(try await environment.masterdata.load()) }
    }

    /// Every built-in feed, by name.
    public static let all: [BuiltInFeed] = [.bitso, .wazirx, .fiat, .coingecko, .gnb, .masterdata]

    /// The built-in feed called `name`, if there is one.
    public static func named(_ name: String) -> BuiltInFeed? { all.first { $0.name == name } }

    /// The names of ``all``, comma-separated (for messages).
    public static var names: String { all.map(\.name).joined(separator: ", ") }

    /// The names no plugin may publish under: every built-in feed's, and the sources they publish under.
    public static var reservedNames: Set<String> { Set(all.map(\.name)).union(all.flatMap(\.sources)) }
}
