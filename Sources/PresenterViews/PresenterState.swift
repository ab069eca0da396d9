import BusContract
import Foundation
import Logging
import Market
import TickwireContract
import Metrics
import Money

/// The presenter's copy of the streams it follows, with one owner: the last quote,
/// book, coin, status and price of each topic, the masterdata, and each upstream's state.
public actor PresenterState {
    public private(set) var quotes: [Topic: Quote] = [:]
    public private(set) var books: [String: BookInfo] = [:]
    /// Each feed's order book of each market (`book.<feed>.<BASE>-<QUOTE>`), by feed and market.
    public private(set) var depths: [DepthChoice: BookDepth] = [:]
    /// Each feed's last trades of each market (`trade.<feed>.<BASE>-<QUOTE>`), oldest first, at most ``maxTrades``.
    public private(set) var trades: [DepthChoice: [MarketTrade]] = [:]
    /// The most trades kept of one feed's market.
    public static let maxTrades = 50
    /// The coins each feed describes (CoinGecko's, and plugins' own assets), by symbol.
    public private(set) var coins = CoinDirectory()
    public private(set) var statuses: [String: FeedStatus] = [:]
    public private(set) var prices: [String: AssetPrice] = [:]
    public private(set) var masterdata = Masterdata(assets: [], wallets: [])
    /// When each rate source's rates last arrived, by source (e.g. `ecb`).
    public private(set) var rateTimes: [String: Date] = [:]
    /// When each kind of data last arrived.
    public private(set) var updated: [String: Date] = [:]
    /// Each stream's state, as `health` reports it.
    public private(set) var streams: [String: String] = [
        "rates-fetcher": "waiting for a snapshot", "converter": "waiting for a snapshot", "portfolio": "waiting for a snapshot",
    ]
    private let logger: Logger
    private let onPrice: @Sendable (AssetPrice) -> Void
    /// Stream messages decoded and applied (`tickwire_presenter_applied_total`), as opposed to
    /// received: what the pipeline benchmark counts as reaching the presenter.
    private let applied = Counter(label: "tickwire_presenter_applied_total")

    /// Empty state; `onPrice` hears of every price as it is applied (the dashboard's live streams).
    public init(logger: Logger, onPrice: @escaping @Sendable (AssetPrice) -> Void = { _ in }) {
        self.logger = logger
        self.onPrice = onPrice
    }

    /// Applies rates-fetcher's events until the stream ends. The loops run on the actor, so a burst of
    /// waiting events costs no executor hop each (at 100,000 updates a second, the hops were the cost).
    public func follow(fetcher events: some AsyncSequence<StreamEvent<FetcherUpdate>, Never>) async {
        for await event in events { apply(event, from: "rates-fetcher") }
    }

    /// Applies the converter's prices until the stream ends, each `within` what the caller wraps it in (a span of
    /// the trace it came in, so what `onPrice` does goes on in it), on the actor.
    public func follow(
        prices events: some AsyncSequence<StreamEvent<AssetPrice>, Never>,
        within: @Sendable (TraceContext?, () -> Void) -> Void = { $1() }
    ) async {
        for await event in events { within(event.trace) { apply(event, from: "converter") } }
    }

    /// Follows the portfolio's changes until the stream ends, each on the actor `within` what the caller wraps it in
    /// (a span of the change's trace: a trade's): for its health, and `changed` hears of each change (the pages
    /// ask the portfolio itself, so they are told to fetch themselves again; the change says which portfolio it is about).
    public func follow(
        portfolio events: some AsyncSequence<StreamEvent<PortfolioChange>, Never>,
        within: @Sendable (TraceContext?, () -> Void) -> Void = { $1() }, changed: @escaping @Sendable (PortfolioChange) -> Void = { _ in }
    ) async {
        for await event in events {
            within(event.trace) { apply(event, from: "portfolio", reset: {}, apply: { changed($0.value) }, remove: { _ in }) }
        }
    }

    /// Applies one event of rates-fetcher's streams.
    public func apply(_ event: StreamEvent<FetcherUpdate>, from upstream: String) {
        // A snapshot holds every quote, book, order book and coin: one missing from it was retracted while the stream was
        // away. Trades go with it: the snapshot holds each market's last trade only.
        apply(event, from: upstream, reset: {
            self.quotes = [:]
            self.books = [:]
            self.depths = [:]
            self.trades = [:]
            self.coins = CoinDirectory()
        }, apply: apply, remove: removeFetcherTopic)
    }

    /// Applies one event of the converter's prices.
    public func apply(_ event: StreamEvent<AssetPrice>, from upstream: String) {
        apply(event, from: upstream, reset: { self.prices = [:] }, apply: apply, remove: { topic in
            // `price.<ASSET>.<FIAT>`
            guard let asset = topic.source, let currency = topic.key else { return }
            self.prices[PresenterState.key(String(asset), String(currency))] = nil
        })
    }

    /// Applies an event of `upstream`'s stream: a snapshot `reset`s what it replaces, then each update is `apply`d;
    /// a retracted topic is `remove`d.
    func apply<Value>(
        _ event: StreamEvent<Value>, from upstream: String, reset: () -> Void,
        apply: (StreamUpdate<Value>) -> Void, remove: (Topic) -> Void
    ) {
        switch event {
        case .snapshot(let updates):
            reset()
            for update in updates { apply(update) }
            streams[upstream] = "ok"
        case .update(let update):
            apply(update)
            streams[upstream] = "ok"
        case .removed(let topic):
            remove(topic)
            streams[upstream] = "ok"
        case .unavailable(let reason):
            streams[upstream] = reason
        }
    }

    private func apply(_ update: StreamUpdate<FetcherUpdate>) {
        switch update.value {
        case .quote(let quote): quotes[update.topic] = quote
        case .book(let book): books[book.book] = book
        case .coin(let coin): coins.set(coin, feed: update.source)
        case .status(let status): statuses[status.feed] = status
        case .assets(let assets): masterdata.assets = assets
        case .wallets(let wallets): masterdata.wallets = wallets
        case .rate:
            if let source = update.topic.source.map(String.init) {
                rateTimes[source] = max(rateTimes[source] ?? update.time, update.time)
            }
            return
        case .depth(let depth): apply(depth: depth)
        case .trade(let trade): apply(trade: trade)
        case .transactions, .candle: return
        }
        received(update)
    }

    /// Forgets a retracted topic of rates-fetcher's: a quote, a coin (`coin.<feed>.<SYMBOL>`), a book's limits or an
    /// order book (with its trades).
    private func removeFetcherTopic(_ topic: Topic) {
        switch String(topic.kind) {
        case RatesFetcherAPI.quotes.kind: quotes[topic] = nil
        case RatesFetcherAPI.coins.kind:
            if let symbol = topic.key, let feed = topic.source { coins.remove(symbol: String(symbol), feed: String(feed)) }
        case RatesFetcherAPI.limits.kind: if let book = topic.key { books[String(book)] = nil }
        case RatesFetcherAPI.books.kind: removeDepth(topic)
        default: break
        }
    }

    private func apply(_ update: StreamUpdate<AssetPrice>) {
        let price = update.value
        prices[PresenterState.key(price.asset, price.currency)] = price
        onPrice(price)
        received(update)
    }

    /// Notes when a kind of data last arrived. Conflation may hand over a newer value of one topic before an
    /// older one of another, so it keeps the newest.
    private func received<Value>(_ update: StreamUpdate<Value>) {
        let kind = String(update.topic.kind)
        updated[kind] = max(updated[kind] ?? update.time, update.time)
        applied.increment()
    }

    /// The price of `asset` in `currency`, if the converter has published one.
    public func price(_ asset: String, in currency: String) -> AssetPrice? { prices[Self.key(asset, currency)] }

    /// Every price in `currency`, by asset.
    public func prices(in currency: String) -> [String: AssetPrice] {
        Dictionary(prices.values.filter { $0.currency == currency }.map { ($0.asset, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Keeps `depth` as its feed's order book of its market.
    public func apply(depth: BookDepth) {
        depths[DepthChoice(depth)] = depth
    }

    /// Adds `trade` to its feed's last trades of its market (once: a trade id seen again replaces the first).
    public func apply(trade: MarketTrade) {
        var kept = trades[DepthChoice(trade), default: []]
        kept.removeAll { $0.id == trade.id }
        kept.append(trade)
        if kept.count > Self.maxTrades { kept.removeFirst(kept.count - Self.maxTrades) }
        trades[DepthChoice(trade)] = kept
    }

    /// Forgets a retracted order book (`book.<feed>.<BASE>-<QUOTE>`) and its trades.
    private func removeDepth(_ topic: Topic) {
        guard let feed = topic.source, let market = topic.key else { return }
        let choice = DepthChoice(feed: String(feed), market: String(market))
        depths[choice] = nil
        trades[choice] = nil
    }

    /// One feed's order book of `market` (e.g. `BTC-MXN`) and its last trades, newest last.
    public func depth(feed: String, market: String) -> (depth: BookDepth?, trades: [MarketTrade]) {
        let choice = DepthChoice(feed: feed, market: market)
        return (depths[choice], trades[choice] ?? [])
    }

    /// Bitso's quote of `book` (e.g. `btc_mxn`).
    public func bitsoQuote(book: String) -> Quote? {
        guard let info = books[book], let topic = try? Topics.quote(feed: "bitso", market: info.market) else { return nil }
        return quotes[topic.topic]
    }

    /// Every Bitso quote.
    public func bitsoQuotes() -> [Quote] { quotes.filter { $0.key.source == "bitso" }.map(\.value) }

    /// The best quote of `asset`: in `currency` if any feed quotes it so, else in `preferred` (the market its price
    /// came from), else in a fiat currency (one conversion away from the display currency, not two), preferring
    /// CoinGecko, then Bitso, then WazirX.
    public func quote(of asset: String, in currency: String, preferring preferred: String? = nil) -> Quote? {
        let candidates = quotes.values.filter { $0.market.base == asset }
        let ranked = candidates.sorted { (rank($0), $0.market.quote) < (rank($1), $1.market.quote) }
        return ranked.first { $0.market.quote == currency } ?? ranked.first { $0.market.quote == preferred }
            ?? ranked.first { Currency.iso($0.market.quote) != nil } ?? ranked.first
    }

    /// The 24 h change in percent of `asset` from the best-ranked quote that has one.
    public func changePercent24h(of asset: String) -> ExactDecimal? {
        quotes.values.filter { $0.market.base == asset && $0.changePercent24h != nil }
            .sorted { (rank($0), $0.market.quote) < (rank($1), $1.market.quote) }.first?.changePercent24h
    }

    /// The price of `asset` in every display currency the converter publishes, by currency.
    public func prices(of asset: String) -> [String: ExactDecimal] {
        Dictionary(prices.values.filter { $0.asset == asset }.map { ($0.currency, $0.price) }, uniquingKeysWith: { first, _ in first })
    }

    private func rank(_ quote: Quote) -> Int { ["coingecko", "bitso", "wazirx"].firstIndex(of: quote.source) ?? 3 }

    private static func key(_ asset: String, _ currency: String) -> String { "\(asset)/\(currency)" }
}

extension DepthChoice {
    /// The feed and market of `depth`.
    init(_ depth: BookDepth) {
        self.init(feed: depth.source, market: "\(depth.market.base)-\(depth.market.quote)")
    }

    /// The feed and market of `trade`.
    init(_ trade: MarketTrade) {
        self.init(feed: trade.source, market: "\(trade.market.base)-\(trade.market.quote)")
    }
}
