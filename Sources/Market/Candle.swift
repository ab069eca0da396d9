import Foundation
import Money

/// The span of a candle.
public enum CandleInterval: String, Sendable, Hashable, Codable, CaseIterable {
    /// One minute.
    case oneMinute = "1m"
    /// Five minutes.
    case fiveMinutes = "5m"
    /// One hour.
    case oneHour = "1h"
    /// One day (UTC).
    case oneDay = "1d"

    /// The interval's length in seconds.
    public var seconds: Int64 {
        switch self {
        case .oneMinute: 60
        case .fiveMinutes: 300
        case .oneHour: 3_600
        case .oneDay: 86_400
        }
    }
}

/// Open, high, low, close and volume of one market over one interval: the
/// `candle.<interval>.<feed>.<BASE>-<QUOTE>` stream, published when the candle closes.
public struct Candle: Sendable, Hashable, Codable {
    /// The feed whose trades (or quotes, for a feed without trades) it was built from.
    public var source: String
    /// The market.
    public var market: MarketPair
    /// The interval.
    public var interval: CandleInterval
    /// The interval's start (UTC, a multiple of the interval since 1970).
    public var start: Date
    /// The first price.
    public var open: ExactDecimal
    /// The highest price.
    public var high: ExactDecimal
    /// The lowest price.
    public var low: ExactDecimal
    /// The last price.
    public var close: ExactDecimal
    /// The base currency traded (zero for a candle built from quotes).
    public var volume: ExactDecimal
    /// How many trades (or quotes) it was built from.
    public var count: Int

    /// A candle.
    public init(
        source: String, market: MarketPair, interval: CandleInterval, start: Date,
        open: ExactDecimal, high: ExactDecimal, low: ExactDecimal, close: ExactDecimal,
        volume: ExactDecimal, count: Int
    ) {
        self.source = source
        self.market = market
        self.interval = interval
        self.start = start
        self.open = open
        self.high = high
        self.low = low
        self.close = close
        self.volume = volume
        self.count = count
    }
}
