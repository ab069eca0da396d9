import Foundation
import Market
import Money

/// The exchange's books (Bitso): each named "BTC MXN", its maximum price highlighted, min/max order value beside it;
/// and the live depth ladder of one market's order book, from any feed that publishes `book.<feed>.<BASE>-<QUOTE>`.
public struct BooksView: Codable, Sendable, Equatable {
    /// Which screen this is (`books`): what a client reads to know the view's shape.
    public var screen = "books"
    /// One book.
    public struct Row: Codable, Sendable, Equatable {
        /// The exchange's id, e.g. "btc_mxn".
        public var book: String
        /// The name shown, e.g. "BTC MXN".
        public var name: String
        /// The currency traded, e.g. "BTC".
        public var base: String
        /// The currency prices are in, e.g. "MXN".
        public var quote: String
        /// The highest accepted price: the highlighted figure.
        public var maximumPrice: DisplayAmount
        /// The lowest accepted price.
        public var minimumPrice: DisplayAmount
        /// The smallest order value (secondary text).
        public var minimumValue: DisplayAmount
        /// The largest order value (secondary text).
        public var maximumValue: DisplayAmount
        /// The smallest order, in the base currency.
        public var minimumAmount: DisplayAmount
        /// The largest order, in the base currency.
        public var maximumAmount: DisplayAmount
        /// The last traded price, when a ticker for the book is known.
        public var last: DisplayAmount?
    }

    /// The books, in the order given.
    public var rows: [Row]
    /// The reader's locale.
    public var locale: String
    /// No single display currency: each book is in its quote currency.
    public var currency: String?
    /// Messages to show: feed trouble, stale data.
    public var notices: [String]
    /// How old the book list is, when known.
    public var dataAge: DataAge?
    /// The depth ladder of the chosen order book, when any feed publishes one.
    public var depth: DepthLadder?
    /// Every order book a ladder can be shown of, by feed and market.
    public var depthChoices: [DepthChoice]

    /// Builds the list. Amounts are in the book's quote currency with its digits (MXN 2, BTC 8); `tickers`
    /// add each book's last price. The ladder is of `selected` among `depths` (else of the first by feed and market),
    /// with its `trades`. The screen's age is that of its freshest data: `asOf` (when the books' limits last came, which
    /// Bitso sends seldom), the tickers', the ladder's book's and its trades' times, whichever is newest.
    public static func make(
        books: [BookInfo], tickers: [Quote] = [], depths: [BookDepth] = [], trades: [MarketTrade] = [], selected: DepthChoice? = nil,
        context: ViewContext, asOf: Date? = nil, notices: [String] = []
    ) -> BooksView {
        let locale = context.locale
        var lastPrices: [MarketPair: ExactDecimal] = [:]
        for ticker in tickers where lastPrices[ticker.market] == nil { lastPrices[ticker.market] = ticker.last }
        let rows = books.map { info in
            let quote = info.market.quote
            let base = info.market.base
            let digits = Precision.digits(forCode: quote)
            return Row(
                book: info.book, name: info.market.displayName, base: base, quote: quote,
                maximumPrice: .money(info.maximumPrice, code: quote, locale: locale, fractionDigits: digits),
                minimumPrice: .price(info.minimumPrice, code: quote, locale: locale),
                minimumValue: .money(info.minimumValue, code: quote, locale: locale, fractionDigits: digits),
                maximumValue: .money(info.maximumValue, code: quote, locale: locale, fractionDigits: digits),
                minimumAmount: .money(info.minimumAmount, code: base, locale: locale),
                maximumAmount: .money(info.maximumAmount, code: base, locale: locale),
                last: lastPrices[info.market].map { DisplayAmount.price($0, code: quote, locale: locale) }
            )
        }
        var missing: [String] = rows.isEmpty ? ["No books to show."] : []
        let choices = depths.map { DepthChoice(feed: $0.source, market: "\($0.market.base)-\($0.market.quote)") }.sorted {
            ($0.feed, $0.market) < ($1.feed, $1.market)
        }
        let chosen = choices.first { $0 == selected } ?? choices.first
        if let selected, !choices.contains(selected) {
            missing.append("No order book of \(selected.market) from \(selected.feed).")
        }
        let depth = chosen.flatMap { chosen in
            depths.first { $0.source == chosen.feed && "\($0.market.base)-\($0.market.quote)" == chosen.market }
        }
        let ladderTrades = trades.filter { trade in depth.map { trade.source == $0.source && trade.market == $0.market } ?? false }
        let newest = ([asOf, depth?.time] + tickers.map(\.time) + ladderTrades.map(\.time)).compactMap { $0 }.max()
        let age = newest.map { DataAge(asOf: $0, now: context.now, locale: locale) }
        let allNotices = notices + Notices.staleness(age, what: "Books") + missing
        return BooksView(
            rows: rows, locale: locale, currency: nil, notices: allNotices, dataAge: age,
            depth: depth.map { DepthLadder.make(depth: $0, trades: trades, context: context) }, depthChoices: choices)
    }
}
