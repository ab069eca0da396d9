import Foundation
import Market
import Money

/// A price history ready to draw: every point with its time and formatted price, and the extremes.
public struct ChartData: Codable, Sendable, Equatable {
    /// One point of the history.
    public struct Point: Codable, Sendable, Equatable {
        /// When, ISO 8601 UTC.
        public var time: String
        /// When, for the reader: date and time, e.g. "Jun 15, 2025 at 3:06 PM".
        public var label: String
        /// The day alone, short, e.g. "Jun 15".
        public var day: String
        /// Its label on the time axis: the day, or the time of day ("3:06 PM") when the whole chart spans at most a day
        /// (``tickTimesWithin``; a day's chart, or a replay's minutes, would read "Jun 15, Jun 15, Jun 15").
        public var tick: String
        /// The price then.
        public var price: DisplayAmount

        /// A point.
        public init(time: String, label: String, day: String, tick: String, price: DisplayAmount) {
            (self.time, self.label, self.day, self.tick, self.price) = (time, label, day, tick, price)
        }

        /// Decodes a point; one of a presenter older than `tick` ticks on its day.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            time = try container.decode(String.self, forKey: .time)
            label = try container.decode(String.self, forKey: .label)
            day = try container.decode(String.self, forKey: .day)
            tick = try container.decodeIfPresent(String.self, forKey: .tick) ?? day
            price = try container.decode(DisplayAmount.self, forKey: .price)
        }
    }

    /// The currency of every price.
    public var currency: String
    /// Every point, oldest first.
    public var points: [Point]
    /// The point with the lowest price (the first such).
    public var min: Point
    /// The point with the highest price (the first such).
    public var max: Point
    /// The oldest point.
    public var first: Point
    /// The newest point.
    public var last: Point
    /// The change from first to last in percent, when it can be computed (the first price is not zero).
    public var change: DisplayAmount?
    /// The first point of the candles that follow older history points (a backfill, or a mock's history): the join the
    /// chart marks, as the two need not meet at the same price; nil when the points are of one kind.
    public var candlesFrom: Point?

    /// The longest span whose chart ticks in times of day: a day and the candle or two a 1D chart may hold beyond it.
    public static let tickTimesWithin: TimeInterval = 26 * 3_600

    /// The chart of `history` for `locale`, or nil when it has no points. Every price gets the same digits:
    /// those the lowest price needs. `candlesFrom` is when the history's candles begin, after its older points.
    public static func make(history: PriceHistory, locale: String, candlesFrom: Date? = nil) -> ChartData? {
        let sorted = history.points.enumerated().sorted { $0.element.time == $1.element.time ? $0.offset < $1.offset : $0.element.time < $1.element.time }.map(\.element)
        guard let firstPoint = sorted.first, let lastPoint = sorted.last,
              let lowest = sorted.min(by: { $0.price < $1.price }),
              let highest = sorted.max(by: { $0.price < $1.price }) else { return nil }
        let digits = Precision.priceDigits(lowest.price, code: history.currency)
        let withinDays = lastPoint.time.timeIntervalSince(firstPoint.time) <= tickTimesWithin
        func point(_ source: PricePoint) -> Point {
            let day = DisplayDate.dayMonth(source.time, locale: locale)
            return Point(
                time: DisplayDate.iso(source.time), label: DisplayDate.dateTime(source.time, locale: locale),
                day: day, tick: withinDays ? DisplayDate.shortTime(source.time, locale: locale) : day,
                price: .money(source.price, code: history.currency, locale: locale, fractionDigits: digits)
            )
        }
        let change = PercentChange.between(firstPoint.price, lastPoint.price)
        let join = candlesFrom.flatMap { start in sorted.firstIndex { $0.time >= start } }.flatMap { $0 > 0 ? sorted[$0] : nil }
        return ChartData(
            currency: history.currency, points: sorted.map(point), min: point(lowest), max: point(highest),
            first: point(firstPoint), last: point(lastPoint),
            change: change.map { DisplayAmount.percent($0, locale: locale) }, candlesFrom: join.map(point)
        )
    }
}
