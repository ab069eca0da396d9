import BusContract
import Foundation
import Market
import Money
import TickwireContract

/// The portfolio's value over time and its time-weighted return (TWR) per range, exact, as a pure function.
///
/// The value at a moment is every unit held then times its price then: the last point of the asset's price history
/// (in the display currency) at or before that moment; a point of the series adds up each asset's value rounded half-even
/// to minor units, as `gains` does, while the returns divide the exact values. At an activity's moment, a buy or sell values its asset at its
/// own price (`amount × price` converted, over `amount`), so what a trade gained or lost against the market counts.
///
/// A range is split into sub-periods at each moment with an activity (an external flow: a buy or transfer in adds
/// money, a sell or transfer out takes it out). A sub-period's growth factor is its end value (just before the next
/// flow, less the fees of the sells and fee activities there) over its start value (just after the flow that opened
/// it, plus the fees of the buys there), rounded half-even to ``factorScale`` places; a sub-period with nothing held
/// at its start counts 1. TWR = the product of the factors (rounded to ``factorScale`` places after each
/// multiplication) − 1, rounded half-even to ``returnScale`` places. A price needed and missing makes that range's
/// TWR unknown, saying which: no value is made up.
public enum Performance {
    /// The places a sub-period's growth factor and the running product keep.
    public static let factorScale = 12
    /// The places a time-weighted return keeps.
    public static let returnScale = 8
    /// At most this many points in a value series (evenly thinned, the last always kept).
    public static let maxPoints = 240

    /// Where `range` starts for a portfolio whose first activity is at `first`, ending `now`.
    public static func start(of range: PerformanceRange, now: Date, first: Date?) -> Date? {
        let day = 86_400.0
        switch range {
        case .oneDay: return now.addingTimeInterval(-day)
        case .sevenDays: return now.addingTimeInterval(-7 * day)
        case .thirtyDays: return now.addingTimeInterval(-30 * day)
        case .oneYear: return now.addingTimeInterval(-365 * day)
        case .yearToDate:
            var calendar = Calendar(identifier: .gregorian)
            calendar.timeZone = TimeZone(identifier: "UTC") ?? .gmt
            return calendar.date(from: calendar.dateComponents([.year], from: now))
        case .max: return first
        }
    }

    /// The days of price history a portfolio needs: since its first activity, at least 1 and at most 365 (the most
    /// rates-fetcher's `history` gives).
    public static func historyDays(activities: [Trade], now: Date) -> Int {
        guard let first = activities.map(\.date).min() else { return 1 }
        return min(365, max(1, Int((now.timeIntervalSince(first) / 86_400).rounded(.up)) + 1))
    }

    /// The value series over `range` and the TWR of every range, in `currency`.
    ///
    /// - Parameters:
    ///   - prices: each asset's price points in `currency`, in any order (history and the latest price together).
    ///   - converted: each amount of ``Gains/conversions(_:currency:)`` in `currency`; a trade whose amount is missing
    ///     here is valued at the market price, a fee missing here makes the ranges it falls in unknown.
    public static func compute(
        activities: [Trade], prices: [String: [PricePoint]], currency: Currency, converted: [CurrencyAmount: ExactDecimal],
        range: PerformanceRange, now: Date, warnings: [String] = []
    ) throws -> PortfolioPerformance {
        let ledger = Ledger(
            activities: ActivityLedger.ordered(activities).filter { $0.date <= now },
            prices: prices.mapValues { $0.sorted { $0.time < $1.time } }, currency: currency, converted: converted)
        var warnings = warnings
        let first = ledger.activities.first?.date
        var returns: [RangeReturn] = []
        for each in PerformanceRange.allCases {
            let start = start(of: each, now: now, first: first)
            let result = try ledger.timeWeightedReturn(from: start, to: now, range: each)
            if let missing = result.missing, !ledger.activities.isEmpty { warnings.append("\(each.rawValue): \(missing)") }
            returns.append(result)
        }
        let (series, left) = try ledger.series(from: start(of: range, now: now, first: first), to: now)
        if let left { warnings.append("\(range.rawValue) series: \(left)") }
        return PortfolioPerformance(currency: currency.code, range: range, series: series, returns: returns, asOf: now, warnings: warnings)
    }

    /// A price needed and not known.
    struct Missing: Error {
        let asset: String
        let time: Date
        let what: String
    }

    /// The activities in order with what values them.
    struct Ledger {
        let activities: [Trade]
        /// Each asset's price points in the display currency, oldest first.
        let prices: [String: [PricePoint]]
        let currency: Currency
        let converted: [CurrencyAmount: ExactDecimal]

        /// Units held of each asset after the activities before `time` (or at or before it, with `including`).
        func holdings(at time: Date, including: Bool) throws -> [String: ExactDecimal] {
            var held: [String: ExactDecimal] = [:]
            for activity in activities where including ? activity.date <= time : activity.date < time {
                try apply(activity, to: &held)
            }
            return held
        }

        func apply(_ activity: Trade, to held: inout [String: ExactDecimal]) throws {
            let before = held[activity.asset] ?? .zero
            switch activity.kind {
            case .buy, .transferIn: held[activity.asset] = try before + activity.amount
            case .sell, .transferOut: held[activity.asset] = try before - activity.amount
            case .fee: break
            }
        }

        /// The market price of `asset` at `time`: its last point at or before it.
        func price(_ asset: String, at time: Date) -> ExactDecimal? {
            guard let points = prices[asset] else { return nil }
            var low = 0, high = points.count
            while low < high {
                let middle = (low + high) / 2
                if points[middle].time <= time { low = middle + 1 } else { high = middle }
            }
            return low == 0 ? nil : points[low - 1].price
        }

        /// What `held` is worth at `time`, `own` pricing the assets traded then, each asset's value rounded half-even to
        /// minor units when `rounded` (as `gains` adds values up); throws ``Missing`` for a price unknown.
        func value(_ held: [String: ExactDecimal], at time: Date, own: [String: ExactDecimal] = [:], rounded: Bool = false) throws -> ExactDecimal {
            var total = ExactDecimal.zero
            for (asset, units) in held.sorted(by: { $0.key < $1.key }) where !units.isZero {
                guard let price = own[asset] ?? price(asset, at: time) else {
                    throw Missing(asset: asset, time: time, what: "no \(currency.code) price of \(asset) at or before \(TradeValidation.wireText(time))")
                }
                let worth = try units * price
                total = try total + (rounded ? try worth.rescaled(to: currency.minorUnits) : worth)
            }
            return total
        }

        /// The prices of buys and sells at one moment in the display currency (`amount × price` converted, over `amount`).
        func ownPrices(_ moment: [Trade]) throws -> [String: ExactDecimal] {
            var own: [String: ExactDecimal] = [:]
            for activity in moment where (activity.kind == .buy || activity.kind == .sell) && !activity.amount.isZero {
                let gross = CurrencyAmount(amount: try activity.amount * activity.price, currency: activity.currency)
                let value = gross.currency == currency.code ? gross.amount : converted[gross]
                if let value { own[activity.asset] = try value.divided(by: activity.amount, scale: 18) }
            }
            return own
        }

        /// A fee in the display currency; throws ``Missing`` when it could not be converted.
        func fee(_ activity: Trade) throws -> ExactDecimal {
            guard let fee = activity.fee else { return .zero }
            if fee.currency == currency.code { return fee.amount }
            guard let value = converted[fee] else {
                throw Missing(asset: activity.asset, time: activity.date, what: "the fee of \(fee.amount) \(fee.currency) on "
                    + "\(TradeValidation.wireText(activity.date)) could not be converted to \(currency.code)")
            }
            return value
        }

        /// The activities after `start` up to `end`, grouped by moment, in order.
        func moments(after start: Date?, through end: Date) -> [[Trade]] {
            var moments: [[Trade]] = []
            for activity in activities where activity.date <= end && (start.map { activity.date >= $0 } ?? true) {
                if let last = moments.last?.last, last.date == activity.date { moments[moments.count - 1].append(activity) } else { moments.append([activity]) }
            }
            return moments
        }

        /// The TWR from `start` to `end`, or why it is unknown.
        func timeWeightedReturn(from start: Date?, to end: Date, range: PerformanceRange) throws -> RangeReturn {
            guard let start else {
                return RangeReturn(range: range, start: nil, startValue: nil, endValue: nil, twr: nil, subPeriods: 0, missing: "no activities yet")
            }
            var held = try holdings(at: start, including: false)
            var startValue: ExactDecimal?
            var endValue: ExactDecimal?
            do {
                var base = try value(held, at: start)
                startValue = try base.rescaled(to: currency.minorUnits)
                var product = ExactDecimal(1)
                var periods = 0
                func close(_ end: ExactDecimal) throws {
                    guard base > .zero else { return }
                    let factor = try end.divided(by: base, scale: Performance.factorScale)
                    product = (try product * factor).rounded(scale: Performance.factorScale)
                    periods += 1
                }
                for moment in moments(after: start, through: end) {
                    let time = moment[0].date
                    let own = try ownPrices(moment)
                    var outFees = ExactDecimal.zero, inFees = ExactDecimal.zero
                    for activity in moment {
                        switch activity.kind {
                        case .buy: inFees = try inFees + fee(activity)
                        case .sell, .fee: outFees = try outFees + fee(activity)
                        case .transferIn, .transferOut: break
                        }
                    }
                    try close(try value(held, at: time, own: own) - outFees)
                    for activity in moment { try apply(activity, to: &held) }
                    base = try value(held, at: time, own: own) + inFees
                }
                let last = try value(held, at: end)
                endValue = try last.rescaled(to: currency.minorUnits)
                try close(last)
                guard periods > 0 else {
                    return RangeReturn(range: range, start: start, startValue: startValue, endValue: endValue, twr: nil, subPeriods: 0,
                                       missing: "nothing held in the range")
                }
                return RangeReturn(range: range, start: start, startValue: startValue, endValue: endValue,
                                   twr: try (try product - ExactDecimal(1)).rescaled(to: Performance.returnScale), subPeriods: periods, missing: nil)
            } catch let missing as Missing {
                return RangeReturn(range: range, start: start, startValue: startValue, endValue: endValue, twr: nil, subPeriods: 0,
                                   missing: "\(missing.what): the return is unknown")
            }
        }

        /// The value at each price point from `start` to `end`, at each activity and at `end`, thinned to
        /// ``maxPoints``; the moments whose value is unknown are left out and said.
        func series(from start: Date?, to end: Date) throws -> (points: [ValuePoint], left: String?) {
            guard let start else { return ([], nil) }
            var times = Set([start, end])
            for points in prices.values { for point in points where point.time > start && point.time < end { times.insert(point.time) } }
            for activity in activities where activity.date >= start && activity.date <= end { times.insert(activity.date) }
            var points: [ValuePoint] = []
            var missing: [Missing] = []
            let byTime = Dictionary(grouping: activities, by: \.date)
            for time in times.sorted() {
                do {
                    let held = try holdings(at: time, including: true)
                    let value = try value(held, at: time, own: try ownPrices(byTime[time] ?? []), rounded: true)
                    points.append(ValuePoint(time: time, value: try value.rescaled(to: currency.minorUnits)))
                } catch let error as Missing {
                    missing.append(error)
                }
            }
            if points.count > Performance.maxPoints {
                let count = points.count, last = Performance.maxPoints - 1
                points = (0...last).map { points[$0 * (count - 1) / last] }
            }
            guard let first = missing.first else { return (points, nil) }
            let left = missing.count == 1 ? "the value at \(TradeValidation.wireText(first.time)) is left out"
                : "\(missing.count) moments from \(TradeValidation.wireText(first.time)) to \(TradeValidation.wireText(missing[missing.count - 1].time)) are left out"
            return (points, "\(left): \(first.what)")
        }
    }
}
