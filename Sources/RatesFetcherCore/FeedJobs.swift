import Bus
import Feeds
import Logging
import Market
import Metrics
import TickwireContract
import Money
import BusContract

/// One value to publish: its topic and a way to publish its typed payload.
public struct Publication: Sendable {
    /// Where it goes.
    public let topic: Topic
    private let send: @Sendable (Publisher, Topic) throws -> Void

    /// `payload` on `topic`, sent only when it differs from the topic's last value.
    public init<Payload: Codable & Sendable & Equatable>(_ payload: Payload, on topic: StreamTopic<Payload>) {
        self.topic = topic.topic
        self.send = { publisher, _ in try publisher.publish(payload, on: topic, onlyIfChanged: true) }
    }

    /// Publishes it.
    public func publish(with publisher: Publisher) throws { try send(publisher, topic) }
}

/// What each feed publishes, as pure functions from its client's answers to publications.
/// A job either fetches everything it needs or throws: there are no half-published polls. (A CoinGecko coin that
/// cannot be published at all is skipped, logged and counted, so one odd coin does not stop the others.)
public enum FeedJobs {
    /// The job of `feed` with the clients of `environment`, CoinGecko polling a fixed list of coins.
    public static func job(
        _ feed: Feed, _ environment: FetcherEnvironment, coinIDs: [String], logger: Logger = Logger(label: "tickwire.rates-fetcher")
    ) -> @Sendable () async throws -> [Publication] {
        job(feed, environment, logger: logger, coins: { coinIDs })
    }

    /// The job of `feed` with the clients of `environment`; CoinGecko's polls the coins `coins` names at each
    /// poll, hands what it fetched to `polled`, and publishes only the coins still listed when the answer came,
    /// skipping (logged on `logger` and counted) those ``coingecko(_:skipping:)`` cannot publish.
    /// An empty list publishes nothing (CoinGecko would answer its top coins).
    public static func job(
        _ feed: Feed, _ environment: FetcherEnvironment, logger: Logger, coins: @escaping @Sendable () async -> [String],
        polled: @escaping @Sendable ([CoinMarket]) async -> Void = { _ in }
    ) -> @Sendable () async throws -> [Publication] {
        switch feed {
        case .bitso:
            return {
                let books = try await environment.bitso.availableBooks()
                let tickers = try await environment.bitso.tickers()
                return try bitso(books: books, tickers: tickers)
            }
        case .wazirx:
            return { try quotes(try await environment.wazirx.tickers(), feed: "wazirx") }
        case .fiat:
            return { try fiat(try await environment.fiat.latest()) }
        case .coingecko:
            return {
                let ids = await coins()
                guard !ids.isEmpty else { return [] }
                let markets = try await environment.coingecko.markets(ids, "usd")
                await polled(markets)
                // In the list's order, so of two coins with one symbol the one tracked first is published.
                let current = await coins()
                let tracked = current.flatMap { id in markets.filter { $0.coin.id == id } }
                return coingecko(tracked) { market, reason in
                    Counter(label: "tickwire_feed_skipped_total", dimensions: [("feed", Feed.coingecko.rawValue)]).increment()
                    logger.warning("coin skipped; the other coins are published", metadata: [
                        "feed": "\(Feed.coingecko.rawValue)", "coin": "\(market.coin.id)", "reason": "\(reason)"])
                }
            }
        case .gnb:
            return {
                let rates = try await environment.gnb.rates()
                let transactions = try await environment.gnb.transactions()
                return try gnb(rates: rates, transactions: transactions)
            }
        case .masterdata:
            return { masterdata(try await environment.masterdata.load()) }
        }
    }

    /// `book.bitso.<book>` for each book and `quote.bitso.<BASE>-<QUOTE>` for each ticker.
    public static func bitso(books: [BookInfo], tickers: [Quote]) throws -> [Publication] {
        try books.map { Publication($0, on: try Topics.book(feed: "bitso", book: $0.book)) } + quotes(tickers, feed: "bitso")
    }

    /// `quote.<feed>.<BASE>-<QUOTE>` for each quote.
    public static func quotes(_ quotes: [Quote], feed: String) throws -> [Publication] {
        try quotes.map { Publication($0, on: try Topics.quote(feed: feed, market: $0.market)) }
    }

    /// `rate.<source>.<BASE>-<TO>` for each rate, plus the inverse of none: the converter derives those.
    public static func fiat(_ rates: FiatRates) throws -> [Publication] {
        try rates.rates.map { Publication($0, on: try Topics.rate(source: rates.source, from: $0.from, to: $0.to)) }
    }

    /// `quote.coingecko.<SYMBOL>-USD` and `coin.coingecko.<SYMBOL>` for each coin. A coin whose symbol cannot
    /// form a topic, or whose symbol an earlier coin has, is handed to `skip` with why, and the others are published.
    public static func coingecko(_ markets: [CoinMarket], skipping skip: (CoinMarket, String) -> Void) -> [Publication] {
        var symbols: [String: String] = [:]
        return markets.flatMap { market -> [Publication] in
            let symbol = market.coin.symbol.uppercased()
            if let other = symbols[symbol] {
                skip(market, "\"\(other)\" has the same symbol \(symbol), and topics are keyed by symbol")
                return []
            }
            do {
                let coin = try coinTopic(symbol: symbol)
                let quote = try Topics.quote(feed: Feed.coingecko.rawValue, market: market.quote.market)
                symbols[symbol] = market.coin.id
                return [Publication(market.quote, on: quote), Publication(market.coin, on: coin)]
            } catch {
                skip(market, "its symbol \"\(market.coin.symbol)\" cannot form a topic: \(error)")
                return []
            }
        }
    }

    /// `coin.coingecko.<SYMBOL>`, the topic of a CoinGecko coin with `symbol`, whose quote is then
    /// `quote.coingecko.<SYMBOL>-USD`; throws unless the symbol is letters, digits and `_` (CoinGecko lists symbols
    /// with `.`, `+`, `-` and more). A `.` would pass the grammar as a separator and a `-` as part of a component, but
    /// then `quote.coingecko.USDC.E-USD` or `quote.coingecko.A-B-USD` would not be keyed by one symbol: a market key
    /// `BASE-QUOTE` splits at its one `-`.
    public static func coinTopic(symbol: String) throws -> StreamTopic<CoinInfo> {
        let key = symbol.uppercased()
        guard !key.contains("."), !key.contains("-") else { throw BusError.invalidTopic("coin.\(Feed.coingecko.rawValue).\(key)") }
        return try Topics.coin(feed: Feed.coingecko.rawValue, symbol: key)
    }

    /// `rate.gnb.<FROM>-<TO>` for each rate and `transactions.gnb` with every transaction.
    public static func gnb(rates: [ExchangeRate], transactions: [GNBTransaction]) throws -> [Publication] {
        try rates.map { Publication($0, on: try Topics.rate(source: "gnb", from: $0.from, to: $0.to)) }
            + [Publication(transactions, on: Topics.transactions)]
    }

    /// `assets.masterdata` and `wallets.masterdata`.
    public static func masterdata(_ masterdata: Masterdata) -> [Publication] {
        [Publication(masterdata.assets, on: Topics.assets), Publication(masterdata.wallets, on: Topics.wallets)]
    }
}
