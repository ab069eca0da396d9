import Foundation
import Market
import Money
import PortfolioEngine
import Testing
import TickwireContract

/// A price point on day `day` (as ``activity(_:_:_:_:at:in:fee:day:)`` counts days).
func point(_ day: Double, _ price: String) throws -> PricePoint {
    PricePoint(time: now.addingTimeInterval((day - 400) * 86_400), price: try dec(price))
}

@Suite("Performance")
struct PerformanceTests {
    /// BTC at 100 on day 370, 120 on day 380, 150 on day 390, 165 now (day 400).
    private let btc = [try! point(370, "100"), try! point(380, "120"), try! point(390, "150"), try! point(400, "165")]

    private func performance(
        _ activities: [Trade], prices: [String: [PricePoint]], range: PerformanceRange = .max, currency: Currency = .usd,
        converted: [CurrencyAmount: ExactDecimal] = [:]
    ) throws -> PortfolioPerformance {
        try Performance.compute(activities: activities, prices: prices, currency: currency, converted: converted, range: range, now: now)
    }

    private func twr(_ result: PortfolioPerformance, _ range: PerformanceRange) -> String? {
        result.returns.first { $0.range == range }?.twr?.description
    }

    /// A buy in the middle splits the range: 100 → 120 (×1.2), then 240 → 330 (×1.375): TWR 65 %, though the
    /// money put in (220) grew only by half.
    @Test func aFlowInTheMiddle() throws {
        let activities = try [
            activity("b1", .buy, "BTC", "1", at: "100", day: 370),
            activity("b2", .buy, "BTC", "1", at: "120", day: 380),
        ]
        let result = try performance(activities, prices: ["BTC": btc])
        #expect(twr(result, .max) == "0.65000000")
        #expect(twr(result, .thirtyDays) == "0.65000000")
        let max = try #require(result.returns.last)
        #expect(max.subPeriods == 2 && max.endValue?.description == "330.00" && max.missing == nil)
        // 7 days ago BTC stood at 150 (day 390's price): 300 → 330.
        #expect(twr(result, .sevenDays) == "0.10000000")
        #expect(result.returns.map(\.range) == PerformanceRange.allCases)
        #expect(result.warnings.isEmpty)
    }

    /// A buy with a 2 USD fee and a sell with a 3 USD fee: 100 → 120 (×1.2); 242 (240 and the buy's fee) → 297 (300
    /// less the sell's fee); 150 → 165 (×1.1): 1.2 × 297/242 × 1.1 = 1.62, TWR 62 %.
    @Test func aSellAndFees() throws {
        let activities = try [
            activity("b1", .buy, "BTC", "1", at: "100", day: 370),
            activity("b2", .buy, "BTC", "1", at: "120", fee: ("2", "USD"), day: 380),
            activity("s1", .sell, "BTC", "1", at: "150", fee: ("3", "USD"), day: 390),
        ]
        let result = try performance(activities, prices: ["BTC": btc])
        #expect(twr(result, .max) == "0.62000000")
        #expect(result.returns.last?.subPeriods == 3)
        #expect(twr(result, .sevenDays) == "0.10000000")
        let week = try #require(result.returns.first { $0.range == .sevenDays })
        #expect(week.startValue?.description == "150.00" && week.endValue?.description == "165.00")
        // The series: each price point and activity from the first buy on, the held units at their price then.
        #expect(result.series.map(\.value.description) == ["100.00", "240.00", "150.00", "165.00"])
    }

    /// A sell at more than the market price counts what it gained: 1 BTC bought at 100, sold at 130 when the market
    /// said 120: ×1.3, and nothing held after.
    @Test func aSellAtItsOwnPrice() throws {
        let activities = try [
            activity("b1", .buy, "BTC", "1", at: "100", day: 370),
            activity("s1", .sell, "BTC", "1", at: "130", day: 380),
        ]
        let result = try performance(activities, prices: ["BTC": btc])
        #expect(twr(result, .max) == "0.30000000")
        #expect(result.returns.last?.endValue?.description == "0.00")
        // Nothing was held in the last 7 days: no return, said so.
        let week = try #require(result.returns.first { $0.range == .sevenDays })
        #expect(week.twr == nil && week.missing == "nothing held in the range")
    }

    /// A trade's price in another currency is valued at its converted amount; the fee likewise.
    @Test func convertedAmounts() throws {
        let activities = try [
            activity("b1", .buy, "BTC", "1", at: "1000", in: "SEK", fee: ("10", "SEK"), day: 370),
        ]
        let converted = [
            CurrencyAmount(amount: try dec("1000"), currency: "SEK"): try dec("100.00"),
            CurrencyAmount(amount: try dec("10"), currency: "SEK"): try dec("1.00"),
        ]
        // Start 100 + the 1.00 fee; now 165: 165 / 101.
        let result = try performance(activities, prices: ["BTC": btc], converted: converted)
        #expect(twr(result, .max) == "0.63366337")
        // Without the fee's conversion the return is unknown, and the warning names the fee.
        let unknown = try performance(activities, prices: ["BTC": btc], converted: [CurrencyAmount(amount: try dec("1000"), currency: "SEK"): try dec("100.00")])
        #expect(unknown.returns.last?.twr == nil)
        #expect(unknown.warnings.contains { $0.hasPrefix("Max: the fee of 10 SEK on ") && $0.hasSuffix("could not be converted to USD: the return is unknown") })
    }

    /// ETH bought on day 370 has prices only from day 385 on: every range reaching back before then has no return,
    /// and says which price is missing; the 7 days have one; the series leaves out the moment it cannot value.
    @Test func aRangeWithoutHistory() throws {
        let activities = try [
            activity("b1", .buy, "ETH", "2", at: "50", day: 370),
            activity("b2", .buy, "BTC", "1", at: "120", day: 380),
        ]
        let eth = [try point(385, "60"), try point(400, "66")]
        let result = try performance(activities, prices: ["BTC": btc, "ETH": eth], range: .thirtyDays)
        let month = try #require(result.returns.first { $0.range == .thirtyDays })
        #expect(month.twr == nil)
        let missing = try #require(month.missing)
        #expect(missing.hasPrefix("no USD price of ETH at or before ") && missing.hasSuffix(": the return is unknown"))
        #expect(result.warnings.contains("30D: \(missing)"))
        #expect(result.returns.first { $0.range == .max }?.twr == nil)
        // 7 days: 2 × 60 + 150 = 270 → 2 × 66 + 165 = 297.
        #expect(twr(result, .sevenDays) == "0.10000000")
        // The series values ETH at its buy's price on day 370 and from day 385 on; day 380 is left out, and said.
        #expect(result.series.map(\.value.description) == ["100.00", "240.00", "270.00", "297.00"])
        #expect(result.warnings.contains { $0.hasPrefix("30D series: the value at ") && $0.contains("is left out: no USD price of ETH") })
    }

    /// No activities: no series, every return unknown, and no warning.
    @Test func nothingYet() throws {
        let result = try performance([], prices: [:])
        #expect(result.series.isEmpty && result.warnings.isEmpty)
        #expect(result.returns.allSatisfy { $0.twr == nil })
    }

    /// YTD starts on 1 January, 00:00 UTC, of the year `now` is in; Max at the first activity.
    @Test func rangeStarts() throws {
        let start = try #require(Performance.start(of: .yearToDate, now: now, first: nil))
        #expect(start == Date(timeIntervalSince1970: 1_735_689_600))   // 2025-01-01T00:00:00Z
        #expect(Performance.start(of: .max, now: now, first: nil) == nil)
        #expect(Performance.start(of: .oneDay, now: now, first: nil) == now.addingTimeInterval(-86_400))
    }
}
