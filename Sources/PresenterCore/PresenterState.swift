import Bus
import TickwireClients
import Foundation
import Logging
import Market
import TickwireContract
import Metrics
import Money
import Synchronization

/// The presenter's copy of the streams it follows, with one owner: the last quote,
/// book, coin, status and price of each topic, the masterdata, and each upstream's state.
actor PresenterState {
    private(set) var quotes: [Topic: Quote] = [:]
    private(set) var books: [String: BookInfo] = [:]
    private(set) var coins: [String: CoinInfo] = [:]
    private(set) var statuses: [String: FeedStatus] = [:]
    private(set) var prices: [String: AssetPrice] = [:]
    private(set) var masterdata = Masterdata(assets: [], wallets: [])
    /// When each kind of data last arrived.
    private(set) var updated: [String: Date] = [:]
    /// Each stream's state, as `health` reports it.
    private(set) var streams: [String: String] = [
        "rates-fetcher": "waiting for a snapshot", "converter": "waiting for a snapshot", "portfolio": "waiting for a snapshot",
    ]
    private let logger: Logger
    private let priceUpdates: PriceBroadcast
    /// Stream messages decoded and applied (`tickwire_presenter_applied_total`), as opposed to
    /// received: what the pipeline benchmark counts as reaching the presenter.
    private let applied = Counter(label: "tickwire_presenter_applied_total")

    init(logger: Logger, priceUpdates: PriceBroadcast) {
        self.logger = logger
        self.priceUpdates = priceUpdates
    }

    /// Applies rates-fetcher's events until the stream ends. The loops run on the actor, so a burst of
    /// waiting events costs no executor hop each (at 100,000 updates a second, the hops were the cost).
    func follow(fetcher events: StreamEvents<FetcherUpdate>) async {
        for await event in events { apply(event, from: "rates-fetcher", reset: {}, apply: apply) }
    }

    /// Applies the converter's prices until the stream ends.
    func follow(prices events: StreamEvents<AssetPrice>) async {
        for await event in events { apply(event, from: "converter", reset: { self.prices = [:] }, apply: apply) }
    }

    /// Follows the portfolio's changes until the stream ends: for its health, as the pages ask the portfolio itself.
    func follow(portfolio events: StreamEvents<PortfolioChange>) async {
        for await event in events { apply(event, from: "portfolio", reset: {}, apply: { _ in }) }
    }

    /// Applies an event of `upstream`'s stream: a snapshot `reset`s what it replaces, then each update is `apply`d.
    func apply<Value>(
        _ event: StreamEvent<Value>, from upstream: String, reset: () -> Void,
        apply: (StreamUpdate<Value>) -> Void
    ) {
        switch event {
        case .snapshot(let updates):
            reset()
            for update in updates { apply(update) }
            streams[upstream] = "ok"
        case .update(let update):
            apply(update)
            streams[upstream] = "ok"
        case .unavailable(let reason):
            streams[upstream] = reason
        }
    }

    private func apply(_ update: StreamUpdate<FetcherUpdate>) {
        switch update.value {
        case .quote(let quote): quotes[update.topic] = quote
        case .book(let book): books[book.book] = book
        case .coin(let coin): coins[coin.symbol.uppercased()] = coin
        case .status(let status): statuses[status.feed] = status
        case .assets(let assets): masterdata.assets = assets
        case .wallets(let wallets): masterdata.wallets = wallets
        case .rate, .transactions: return
        }
        received(update)
    }

    private func apply(_ update: StreamUpdate<AssetPrice>) {
        let price = update.value
        prices[PresenterState.key(price.asset, price.currency)] = price
        priceUpdates.send(price)
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
    func price(_ asset: String, in currency: String) -> AssetPrice? { prices[Self.key(asset, currency)] }

    /// Every price in `currency`, by asset.
    func prices(in currency: String) -> [String: AssetPrice] {
        Dictionary(prices.values.filter { $0.currency == currency }.map { ($0.asset, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// Bitso's quote of `book` (e.g. `btc_mxn`).
    func bitsoQuote(book: String) -> Quote? {
        guard let info = books[book], let topic = try? Topics.quote(feed: "bitso", market: info.market) else { return nil }
        return quotes[topic.topic]
    }

    /// Every Bitso quote.
    func bitsoQuotes() -> [Quote] { quotes.filter { $0.key.source == "bitso" }.map(\.value) }

    /// The best quote of `asset`: in `currency` if any feed quotes it so, preferring CoinGecko.
    func quote(of asset: String, in currency: String) -> Quote? {
        let candidates = quotes.values.filter { $0.market.base == asset }
        let ranked = candidates.sorted { rank($0) < rank($1) }
        return ranked.first { $0.market.quote == currency } ?? ranked.first
    }

    private func rank(_ quote: Quote) -> Int { ["coingecko", "bitso", "wazirx"].firstIndex(of: quote.source) ?? 3 }

    private static func key(_ asset: String, _ currency: String) -> String { "\(asset)/\(currency)" }
}

/// Fans price updates out to every open Server-Sent Events stream.
final class PriceBroadcast: Sendable {
    /// What a stream carries: a price, or a keep-alive that shows a dead client without a price.
    enum Event: Sendable {
        case price(AssetPrice)
        case keepalive
    }

    private struct Listeners {
        var streams: [UUID: AsyncStream<Event>.Continuation] = [:]
        var closed = false
    }

    private let listeners = Synchronization.Mutex(Listeners())

    /// A stream of every price from now on; it ends when the listener is cancelled or on ``close()``.
    func subscribe() -> AsyncStream<Event> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<Event>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.streams.removeValue(forKey: id) }
        }
        let closed = listeners.withLock { listeners in
            if !listeners.closed { listeners.streams[id] = continuation }
            return listeners.closed
        }
        if closed { continuation.finish() }
        return stream
    }

    /// Passes a price to every listener.
    func send(_ price: AssetPrice) { broadcast(.price(price)) }

    /// Sends a keep-alive to every listener.
    func keepalive() { broadcast(.keepalive) }

    /// Ends every stream, now and later: the server's graceful shutdown must not wait on them.
    func close() {
        let streams = listeners.withLock { listeners in
            listeners.closed = true
            defer { listeners.streams = [:] }
            return Array(listeners.streams.values)
        }
        for continuation in streams { continuation.finish() }
    }

    private func broadcast(_ event: Event) {
        for continuation in listeners.withLock({ Array($0.streams.values) }) { continuation.yield(event) }
    }
}
