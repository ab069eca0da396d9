import BusContract
import Logging
import Market
import Money
import TickwireContract

/// The one owner of the converter's rate book and of the prices it publishes.
public actor ConverterState {
    private var book: RateBook
    private var prices: LivePrices
    private let logger: Logger
    /// rates-fetcher's state as `health` reports it.
    public private(set) var upstream = "waiting for rates-fetcher's snapshot"
    /// Whether any of rates-fetcher's rates has arrived (a snapshot or an update); kept when it goes away later.
    private var hasRates = false

    /// An empty book whose assets are priced in `currencies`, each market from the feed `ranking` prefers among
    /// those live; `logger` hears of unusable rates.
    public init(currencies: [String], ranking: FeedRanking = .standard, logger: Logger) {
        book = RateBook(ranking: ranking)
        prices = LivePrices(currencies: currencies)
        self.logger = logger
    }

    /// Applies the fetcher's events until the stream ends, handing each price an event changes to `publish`
    /// at once, and each price it takes away (its asset's last quote retracted) to `retract`. The loop runs on
    /// the actor, so a burst of waiting events costs no executor hop each.
    ///
    /// `within` runs the handling of each event, given the trace context its update came in (nil for the others):
    /// the converter re-prices a quote in a span of the quote's trace, so its prices go on in it.
    public func follow(
        _ events: some AsyncSequence<StreamEvent<FetcherUpdate>, Never>, publish: @escaping @Sendable (AssetPrice) throws -> Void,
        retract: @escaping @Sendable (AssetPrice) throws -> Void = { _ in },
        within: @Sendable (TraceContext?, () -> Void) -> Void = { $1() }
    ) async {
        for await event in events {
            within(event.trace) { handle(event, publish: publish, retract: retract) }
        }
    }

    /// Applies one event of ``follow(_:publish:retract:within:)`` and hands on what it changed.
    private func handle(
        _ event: StreamEvent<FetcherUpdate>, publish: @Sendable (AssetPrice) throws -> Void, retract: @Sendable (AssetPrice) throws -> Void
    ) {
        let changes = applyChanges(event)
        for price in changes.changed {
            do {
                try publish(price)
            } catch {
                logger.warning("could not publish a price", metadata: ["asset": "\(price.asset)", "currency": "\(price.currency)", "error": "\(error)"])
            }
        }
        for price in changes.removed {
            do {
                try retract(price)
            } catch {
                logger.warning("could not retract a price", metadata: ["asset": "\(price.asset)", "currency": "\(price.currency)", "error": "\(error)"])
            }
        }
    }

    /// What one event did to the prices handed out.
    public struct PriceChanges: Sendable, Equatable {
        /// Prices new or changed.
        public var changed: [AssetPrice]
        /// Prices no longer given (their asset lost its last quote), as last handed out.
        public var removed: [AssetPrice]
    }

    /// Applies one event of rates-fetcher's rates, quotes and feed statuses; returns the prices it changed,
    /// re-priced at once and only where it could change them (a feed going stale or coming back re-prices the
    /// markets it quotes).
    @discardableResult
    public func apply(_ event: StreamEvent<FetcherUpdate>) -> [AssetPrice] { applyChanges(event).changed }

    /// Applies one event: the prices it changed, and those it took away (a snapshot without an asset's quotes,
    /// or a retracted quote that was its last).
    public func applyChanges(_ event: StreamEvent<FetcherUpdate>) -> PriceChanges {
        switch event {
        case .snapshot(let updates):
            let failures = book.reset(with: updates)
            if failures > 0 { logger.warning("snapshot had unusable rates", metadata: ["count": "\(failures)"]) }
            upstream = "ok"
            hasRates = true
        case .update(let update):
            upstream = "ok"
            hasRates = true
            do {
                try book.apply(update)
            } catch {
                logger.warning("dropped an unusable rate", metadata: ["topic": "\(update.topic)", "error": "\(error)"])
                return PriceChanges(changed: [], removed: [])
            }
        case .removed(let topic):
            upstream = "ok"
            guard book.remove(topic) else { return PriceChanges(changed: [], removed: []) }
        case .unavailable(let reason):
            upstream = reason
            return PriceChanges(changed: [], removed: [])
        }
        let changed = prices.reprice(after: book.marketChange, in: &book)
        let removed: [AssetPrice]
        switch book.marketChange {
        case .reshaped: removed = prices.dropUnpriced(in: book)
        case .removed(let asset): removed = prices.drop(asset)
        case .none, .quote, .rate, .added: removed = []
        }
        return PriceChanges(changed: changed, removed: removed)
    }

    /// `convert`; -32000 until the first rates arrive (see ``requireRates()``).
    public func convert(_ request: ConvertRequest) throws -> ConvertResult {
        try requireRates()
        return try Conversions.convert(request, in: &book)
    }
    /// `total`; -32000 until the first rates arrive.
    public func total(_ request: TotalRequest) throws -> TotalResult {
        try requireRates()
        return try Conversions.total(request, in: &book)
    }
    /// `rates`; -32000 until the first rates arrive.
    public func rates(_ request: RatesRequest) throws -> RatesResult {
        try requireRates()
        return try Conversions.rates(request, in: &book)
    }
    /// `convert.series` with the daily rates fetched for it (nil, and why, when there are none); -32000 until the
    /// first rates arrive.
    public func convertSeries(_ request: ConvertSeriesRequest, daily: FiatRateHistory?, dailyProblem: String?) throws -> ConvertSeriesResult {
        try requireRates()
        return try SeriesConversion.convert(request, daily: daily, dailyProblem: dailyProblem, in: &book)
    }

    /// Throws -32000 while no rate has arrived (a converter just started or restarted): every currency would
    /// otherwise read as unknown (-32010), which tells a caller to fix its request rather than to retry.
    private func requireRates() throws {
        guard hasRates else {
            throw RPCError.unavailable("the converter has no rates yet (\(upstream)): retry shortly")
        }
    }

    public func sources() -> [RateSourceInfo] {
        book.sources.map { source in
            RateSourceInfo(source: source, rates: book.count(of: source), currencies: (try? book.graph(for: source).currencies) ?? [])
        }
    }
}
