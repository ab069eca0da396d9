import Foundation
import Money

/// A span of time ending now that `performance` answers a time-weighted return for.
public enum PerformanceRange: String, Codable, Sendable, Equatable, CaseIterable {
    /// The last 24 hours.
    case oneDay = "1D"
    /// The last 7 days.
    case sevenDays = "7D"
    /// The last 30 days.
    case thirtyDays = "30D"
    /// Since 1 January of this year, 00:00 UTC.
    case yearToDate = "YTD"
    /// The last 365 days.
    case oneYear = "1Y"
    /// Since the first activity.
    case max = "Max"
}

/// `performance {currency?, range?, portfolio?}`: the portfolio's value over a range and its time-weighted return over every range.
public struct PerformanceRequest: Codable, Sendable, Equatable {
    /// The display currency (USD by default).
    public var currency: String?
    /// The range of the value series (`Max` by default); the returns cover every range whatever it is.
    public var range: PerformanceRange?
    /// The portfolio; `main` when absent.
    public var portfolio: String?

    /// A request for the performance of `portfolio` (`main` when nil) in `currency`, with the value series over `range`.
    public init(currency: String? = nil, range: PerformanceRange? = nil, portfolio: String? = nil) {
        self.currency = currency
        self.range = range
        self.portfolio = portfolio
    }
}

/// The portfolio's value at a moment: every unit held then at its price then, rounded to the currency's minor units.
public struct ValuePoint: Codable, Sendable, Equatable {
    /// When.
    public var time: Date
    /// What the holdings were worth.
    public var value: ExactDecimal

    /// A point of the value series.
    public init(time: Date, value: ExactDecimal) {
        self.time = time
        self.value = value
    }
}

/// The time-weighted return over one range, or why it is unknown.
public struct RangeReturn: Codable, Sendable, Equatable {
    /// The range.
    public var range: PerformanceRange
    /// Where it starts (nil for `Max` without activities).
    public var start: Date?
    /// What the holdings were worth at its start, when known.
    public var startValue: ExactDecimal?
    /// What they are worth now, when known.
    public var endValue: ExactDecimal?
    /// The time-weighted return as a fraction (`0.0525` is 5.25 %), rounded half-even to 8 places; nil when unknown.
    public var twr: ExactDecimal?
    /// How many sub-periods (split at each activity) with something held it chains.
    public var subPeriods: Int
    /// Why `twr` is unknown (a price history missing, nothing held), nil when it is known.
    public var missing: String?

    /// A range's return.
    public init(
        range: PerformanceRange, start: Date?, startValue: ExactDecimal?, endValue: ExactDecimal?, twr: ExactDecimal?, subPeriods: Int,
        missing: String?
    ) {
        self.range = range
        self.start = start
        self.startValue = startValue
        self.endValue = endValue
        self.twr = twr
        self.subPeriods = subPeriods
        self.missing = missing
    }
}

/// The answer to `performance`: the value series over the range asked and the time-weighted return of every range.
public struct PortfolioPerformance: Codable, Sendable, Equatable {
    /// The display currency.
    public var currency: String
    /// The range of `series`.
    public var range: PerformanceRange
    /// The value at each price point of the range (and at each activity and now), oldest first; a moment whose value
    /// is unknown (an asset held then has no price then) is left out, with a warning.
    public var series: [ValuePoint]
    /// One return per range, in the order of ``PerformanceRange/allCases``.
    public var returns: [RangeReturn]
    /// The moment the ranges end: when it was worked out.
    public var asOf: Date
    /// What could not be worked out, and why.
    public var warnings: [String]

    /// A portfolio's performance.
    public init(currency: String, range: PerformanceRange, series: [ValuePoint], returns: [RangeReturn], asOf: Date, warnings: [String]) {
        self.currency = currency
        self.range = range
        self.series = series
        self.returns = returns
        self.asOf = asOf
        self.warnings = warnings
    }
}
