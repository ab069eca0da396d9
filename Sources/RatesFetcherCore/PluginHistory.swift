import Foundation
import Market
import Money
import Synchronization

/// The price series the feed hub keeps of each plugin market, so an asset only a plugin quotes has a chart: one
/// point per ``step`` (the last price of that step), for ``span``, of at most ``maxMarkets`` markets (the least recently updated forgotten first). `history`
/// answers from it when CoinGecko has no history of the asset.
public final class PluginHistory: Sendable {
    /// One point per this much time.
    public let step: Duration
    /// How far back the series reach.
    public let span: Duration
    /// How many markets it keeps series of; past it, a new market's series replaces the one updated least recently
    /// (a gone feed's first, as it is updated no more).
    public let maxMarkets: Int
    private let series = Mutex<[Market: Series]>([:])

    /// A market of one feed.
    private struct Market: Hashable {
        var feed: String
        var pair: MarketPair
    }

    /// One market's points, oldest first, and the 24 h figures of its latest quote.
    private struct Series {
        var points: [PricePoint] = []
        var open: ExactDecimal?

        /// Replaces the last point when `point` falls in its step, else appends it, keeping at most `capacity`.
        mutating func add(_ point: PricePoint, open: ExactDecimal?, stepSeconds: Double, capacity: Int) {
            if let last = points.last,
               (last.time.timeIntervalSince1970 / stepSeconds).rounded(.down) == (point.time.timeIntervalSince1970 / stepSeconds).rounded(.down) {
                points[points.count - 1] = point
            } else {
                points.append(point)
                if points.count > capacity { points.removeFirst(points.count - capacity) }
            }
            self.open = open
        }
    }

    /// Series of one point per `step` (5 minutes) over `span` (7 days), for at most `maxMarkets` markets.
    public init(step: Duration = .seconds(300), span: Duration = .seconds(7 * 86_400), maxMarkets: Int = 512) {
        self.step = step
        self.span = span
        self.maxMarkets = maxMarkets
    }

    private var capacity: Int { max(Int(span / step), 1) }

    /// Adds `quote`, from `feed`, received at `date`: its price replaces the point of `date`'s step, or starts the
    /// next one.
    public func record(_ quote: Quote, feed: String, at date: Date) {
        let key = Market(feed: feed, pair: quote.market)
        let stepSeconds = Double(step.components.seconds)
        let capacity = capacity
        series.withLock { series in
            if series.count >= maxMarkets, series[key] == nil {
                // A new market when full (rare: one scan, not per quote): the least recently updated series goes.
                let stalest = series.min { ($0.value.points.last?.time ?? .distantPast) < ($1.value.points.last?.time ?? .distantPast) }
                if let stalest { series[stalest.key] = nil }
            }
            // In place: a copy of the series taken out and put back would copy its points on every quote.
            series[key, default: Series()].add(
                PricePoint(time: date, price: quote.last), open: quote.open, stepSeconds: stepSeconds, capacity: capacity)
        }
    }

    /// The history of `asset` in `currency` over the last `days` before `now`, from the plugin market of that pair
    /// quoted last; nil when no plugin quotes it. A series younger than a day starts with the quote's `open` (its
    /// price 24 hours before), so even a plugin that just arrived has a day's change to draw.
    public func history(asset: String, currency: String, days: Int, now: Date = Date()) -> PriceHistory? {
        let pair = MarketPair(base: asset, quote: currency)
        let start = now.addingTimeInterval(-Double(days) * 86_400)
        return series.withLock { series -> PriceHistory? in
            let markets = series.filter { $0.key.pair == pair && !$0.value.points.isEmpty }.map(\.value)
            guard let market = markets.max(by: { $0.points.last!.time < $1.points.last!.time }) else { return nil }
            var points = market.points.filter { $0.time >= start }
            let dayBefore = market.points.last!.time.addingTimeInterval(-86_400)
            if let open = market.open, let first = market.points.first, first.time > dayBefore {
                points.insert(PricePoint(time: dayBefore, price: open), at: 0)
            }
            return PriceHistory(asset: pair.base, currency: pair.quote, points: points)
        }
    }
}
