import Foundation
import Market
import Money
import TickwireContract

/// The Portfolio screen's gains: realized and unrealized per asset and in total, by the cost basis method used.
public struct GainsSection: Codable, Sendable, Equatable {
    /// One asset's gains, in the display currency; a figure the portfolio could not work out is absent.
    public struct Row: Codable, Sendable, Equatable {
        /// The asset, e.g. "BTC".
        public var asset: String
        /// Units held now, with the asset's digits.
        public var quantity: DisplayAmount
        /// What the units held cost.
        public var costBasis: DisplayAmount?
        /// Realized gain, signed.
        public var realized: DisplayAmount?
        /// Which way the realized gain went.
        public var realizedTrend: Trend?
        /// Unrealized gain, signed.
        public var unrealized: DisplayAmount?
        /// Which way the unrealized gain went.
        public var unrealizedTrend: Trend?
        /// Every fee paid for it.
        public var fees: DisplayAmount?
    }

    /// The cost basis method, for the reader: "FIFO" or "Average cost".
    public var method: String
    /// The method's wire name: `fifo` or `average`.
    public var methodCode: String
    /// One row per asset with an activity, sorted by asset.
    public var rows: [Row]
    /// The sum of the known realized gains, signed.
    public var realized: DisplayAmount
    /// Which way it went.
    public var realizedTrend: Trend
    /// The sum of the known unrealized gains, signed.
    public var unrealized: DisplayAmount
    /// Which way it went.
    public var unrealizedTrend: Trend
    /// Realized and unrealized together, signed.
    public var total: DisplayAmount
    /// Which way it went.
    public var trend: Trend
    /// The sum of the known fees.
    public var fees: DisplayAmount

    /// The section of the portfolio's `gains` answer, for `locale`.
    public static func make(_ gains: PortfolioGains, locale: String) -> GainsSection {
        let code = gains.currency
        let digits = Precision.digits(forCode: code)
        func signed(_ value: ExactDecimal) -> DisplayAmount { .signedMoney(value, code: code, locale: locale) }
        func money(_ value: ExactDecimal) -> DisplayAmount { .money(value, code: code, locale: locale) }
        return GainsSection(
            method: gains.method == .fifo ? "FIFO" : "Average cost", methodCode: gains.method.rawValue,
            rows: gains.assets.map { asset in
                Row(asset: asset.asset, quantity: .money(asset.quantity, code: asset.asset, locale: locale),
                    costBasis: asset.costBasis.map(money), realized: asset.realizedGain.map(signed),
                    realizedTrend: asset.realizedGain.map { Trend($0, fractionDigits: digits) },
                    unrealized: asset.unrealizedGain.map(signed), unrealizedTrend: asset.unrealizedGain.map { Trend($0, fractionDigits: digits) },
                    fees: asset.fees.map(money))
            },
            realized: signed(gains.totalRealizedGain), realizedTrend: Trend(gains.totalRealizedGain, fractionDigits: digits),
            unrealized: signed(gains.totalUnrealizedGain), unrealizedTrend: Trend(gains.totalUnrealizedGain, fractionDigits: digits),
            total: signed(gains.totalGain), trend: Trend(gains.totalGain, fractionDigits: digits), fees: money(gains.totalFees))
    }
}

/// The Portfolio screen's performance: the time-weighted return of every range and the value over the range chosen.
public struct PerformanceSection: Codable, Sendable, Equatable {
    /// One range's return.
    public struct Return: Codable, Sendable, Equatable {
        /// The range: `1D`, `7D`, `30D`, `YTD`, `1Y` or `Max`.
        public var range: String
        /// The time-weighted return in percent, signed ("+5.25%"), when known.
        public var twr: DisplayAmount?
        /// Which way it went.
        public var trend: Trend?
        /// Why it is unknown, when it is.
        public var missing: String?
    }

    /// The range the chart shows.
    public var range: String
    /// One return per range, in order.
    public var returns: [Return]
    /// The value over `range`, when there are points to draw.
    public var chart: ChartData?
    /// What could not be worked out (missing price histories), as the portfolio says it.
    public var notes: [String]

    /// The section of the portfolio's `performance` answer, for `locale`.
    public static func make(_ performance: PortfolioPerformance, locale: String) -> PerformanceSection {
        let history = PriceHistory(asset: "portfolio", currency: performance.currency,
                                   points: performance.series.map { PricePoint(time: $0.time, price: $0.value) })
        return PerformanceSection(
            range: performance.range.rawValue,
            returns: performance.returns.map { item in
                let percent = item.twr.flatMap { try? $0 * 100 }
                return Return(range: item.range.rawValue, twr: percent.map { DisplayAmount.percent($0, locale: locale) },
                              trend: percent.map { Trend($0, fractionDigits: 2) }, missing: item.missing)
            },
            chart: ChartData.make(history: history, locale: locale), notes: performance.warnings)
    }
}
