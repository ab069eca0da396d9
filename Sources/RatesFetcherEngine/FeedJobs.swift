import Bus
import BusContract
import Feeds
import Logging
import Market
import Metrics
import Money
import TickwireContract
import TickwireFeeds

/// What each built-in feed publishes, as pure functions from its client's answers to publications.
/// A poll either fetches everything it needs or throws: there are no half-published polls. (A CoinGecko coin that
/// cannot be published at all is skipped, logged and counted, so one odd coin does not stop the others.)
public enum FeedJobs {
    /// CoinGecko's poll: the coins `context` names at each poll, what it fetched handed to `context.polled`, and
    /// only the coins still listed when the answer came published, skipping (logged and counted) those
    /// ``coingecko(_:feed:skipping:)`` cannot publish. An empty list publishes nothing (CoinGecko would answer its top coins).
    static func coingeckoPoll(_ client: CoinGeckoClient, _ context: FeedJobContext) -> @Sendable () async throws -> [FeedPublication] {
        {
            let ids = await context.coins()
            guard !ids.isEmpty else { return [] }
            let markets = try await client.markets(ids, "usd")
            await context.polled(markets)
            // In the list's order, so of two coins with one symbol the one tracked first is published.
            let current = await context.coins()
            let tracked = current.flatMap { id in markets.filter { $0.coin.id == id } }
            let feed = context.source(BuiltInFeed.coingecko.name)
            return coingecko(tracked, feed: feed) { market, reason in
                Counter(label: "tickwire_feed_skipped_total", dimensions: [("feed", feed)]).increment()
                context.logger.warning("coin skipped; the other coins are published", metadata: [
                    "feed": "\(feed)", "coin": "\(market.coin.id)", "reason": "\(reason)"])
            }
        }
    }

    /// `limits.<feed>.<book>` for each book and `quote.<feed>.<BASE>-<QUOTE>` for each ticker.
    public static func bitso(books: [BookInfo], tickers: [Quote], feed: String = "bitso") throws -> [FeedPublication] {
        try books.map { FeedPublication($0, on: try Topics.limits(feed: feed, book: $0.book)) } + quotes(tickers, feed: feed)
    }

    /// `quote.<feed>.<BASE>-<QUOTE>` for each quote, each quote's `source` the feed.
    public static func quotes(_ quotes: [Quote], feed: String) throws -> [FeedPublication] {
        try quotes.map { quote in
            var quote = quote
            quote.source = feed
            return FeedPublication(quote, on: try Topics.quote(feed: feed, market: quote.market))
        }
    }

    /// `rate.<source>.<BASE>-<TO>` for each rate (by default the rates' own source), plus the inverse of none: the
    /// converter derives those.
    public static func fiat(_ rates: FiatRates, source: String? = nil) throws -> [FeedPublication] {
        try self.rates(rates.rates, source: source ?? rates.source)
    }

    /// `rate.<source>.<FROM>-<TO>` for each rate.
    public static func rates(_ rates: [ExchangeRate], source: String) throws -> [FeedPublication] {
        try rates.map { FeedPublication($0, on: try Topics.rate(source: source, from: $0.from, to: $0.to)) }
    }

    /// `quote.<feed>.<SYMBOL>-USD` and `coin.<feed>.<SYMBOL>` for each coin. A coin whose symbol cannot form a topic,
    /// or whose symbol an earlier coin has, is handed to `skip` with why, and the others are published.
    public static func coingecko(
        _ markets: [CoinMarket], feed: String = "coingecko", skipping skip: (CoinMarket, String) -> Void
    ) -> [FeedPublication] {
        var symbols: [String: String] = [:]
        return markets.flatMap { market -> [FeedPublication] in
            let symbol = market.coin.symbol.uppercased()
            if let other = symbols[symbol] {
                skip(market, "\"\(other)\" has the same symbol \(symbol), and topics are keyed by symbol")
                return []
            }
            do {
                let coin = try coinTopic(symbol: symbol, feed: feed)
                var quote = market.quote
                quote.source = feed
                let quoteTopic = try Topics.quote(feed: feed, market: quote.market)
                symbols[symbol] = market.coin.id
                return [FeedPublication(quote, on: quoteTopic), FeedPublication(market.coin, on: coin)]
            } catch {
                skip(market, "its symbol \"\(market.coin.symbol)\" cannot form a topic: \(error)")
                return []
            }
        }
    }

    /// `coin.<feed>.<SYMBOL>`, the topic of a CoinGecko coin with `symbol`, whose quote is then
    /// `quote.<feed>.<SYMBOL>-USD`; throws unless the symbol is letters, digits and `_` (CoinGecko lists symbols
    /// with `.`, `+`, `-` and more). A `.` would pass the grammar as a separator and a `-` as part of a component, but
    /// then `quote.coingecko.USDC.E-USD` or `quote.coingecko.A-B-USD` would not be keyed by one symbol: a market key
    /// `BASE-QUOTE` splits at its one `-`.
    public static func coinTopic(symbol: String, feed: String = "coingecko") throws -> StreamTopic<CoinInfo> {
        let key = symbol.uppercased()
        guard !key.contains("."), !key.contains("-") else { throw BusError.invalidTopic("coin.\(feed).\(key)") }
        return try Topics.coin(feed: feed, symbol: key)
    }

    /// `rate.gnb.<FROM>-<TO>` for each rate and `transactions.gnb` with every transaction.
    public static func gnb(rates: [ExchangeRate], transactions: [GNBTransaction]) throws -> [FeedPublication] {
        try self.rates(rates, source: "gnb") + [FeedPublication(transactions, on: Topics.transactions)]
    }

    /// `assets.masterdata` and `wallets.masterdata`.
    public static func masterdata(_ masterdata: Masterdata) -> [FeedPublication] {
        [FeedPublication(masterdata.assets, on: Topics.assets), FeedPublication(masterdata.wallets, on: Topics.wallets)]
    }
}
