import Conversion
import Feeds
import Foundation
import Market
import Money
import Testing
import TickwireClients
import TickwireContract

/// `convert.series`: each point at its day's ECB rate, weekends at the last business day's, other days at today's.
@Suite struct SeriesConversionTests {
    /// Today's rates: the ECB's USD → INR and USD → SEK of the recorded `/latest`.
    static func todayBook() throws -> RateBook {
        try book([rateMessage("ecb", "USD", "INR", "90.37"), rateMessage("ecb", "USD", "SEK", "9.3295")])
    }

    /// A BTC history in USD at 00:00 UTC (or noon) of the given days.
    static func history(_ points: [(String, String)]) throws -> PriceHistory {
        PriceHistory(asset: "BTC", currency: "USD", points: try points.map { day, price in
            let parts = day.split(separator: " ")
            let start = try #require(CalendarDay(iso: String(parts[0]))).start
            return PricePoint(time: parts.count > 1 ? start.addingTimeInterval(43_200) : start, price: try dec(price))
        })
    }

    static func convert(_ history: PriceHistory, to: String, daily: FiatRateHistory?, problem: String? = nil) throws -> ConvertSeriesResult {
        var book = try todayBook()
        return try SeriesConversion.convert(ConvertSeriesRequest(history: history, to: to), daily: daily, dailyProblem: problem, in: &book)
    }

    /// Thursday at Thursday's rate, Saturday noon at Friday's (the ECB publishes none on weekends), and a
    /// Thursday a week later, six days past the last published day, at today's rate: exact products of the
    /// USD → EUR → INR fractions, rounded half-even to 8 places.
    @Test func dayRatesWeekendAndMissingDay() async throws {
        let daily = try await FiatHistoryClient.test.history(CalendarDay(year: 2026, month: 9, day: 27), CalendarDay(year: 2026, month: 10, day: 8))
        let series = try Self.convert(
            try Self.history([("2026-10-01", "60000"), ("2026-10-03 noon", "61000.5"), ("2026-10-08", "62000")]), to: "INR", daily: daily)
        #expect(series.history.currency == "INR" && series.history.asset == "BTC")
        // 60000 × 108.832 / 1.1298 = 5779713.2235793946…; 61000.5 × 108.1245 / 1.1225 = 5875856.1801781737…
        #expect(series.history.points.map(\.price) == [try dec("5779713.22357939"), try dec("5875856.18017817"), try dec("5602940.00000000")])
        #expect(series.kind == .mixed && series.source == "ecb")
        #expect(series.days.map(\.day) == ["2026-10-01", "2026-10-03", "2026-10-08"])
        #expect(series.days.map(\.rateDay) == ["2026-10-01", "2026-10-02", nil])
        #expect(series.days.map(\.path) == [["USD", "EUR", "INR"], ["USD", "EUR", "INR"], ["USD", "INR"]])
        #expect(series.days[1].rate == (try dec("96.324721603563474388")))
        #expect(series.reason == "no ECB rate published on 2026-10-08 or the 4 days before")
        let recorded = try await ConverterClient.test.convertSeries(ConvertSeriesRequest(history: Self.history([]), to: "INR"))
        #expect(series == recorded, "the test client's recorded answer is what the converter computes")
    }

    /// Points of the current day are at today's rate, the live prices' (even where the day's fixing is
    /// published), so the chart ends at the price; they count as daily and need no reason.
    @Test func currentDayAtTheCurrentRate() async throws {
        let daily = try await FiatHistoryClient.test.history(CalendarDay(year: 2026, month: 9, day: 26), CalendarDay(year: 2026, month: 10, day: 4))
        var book = try Self.todayBook()
        let history = try Self.history([("2026-09-30", "1"), ("2026-10-01", "1"), ("2026-10-01 noon", "2")])
        let series = try SeriesConversion.convert(
            ConvertSeriesRequest(history: history, to: "INR"), daily: daily, dailyProblem: nil, in: &book,
            today: try #require(CalendarDay(iso: "2026-10-01")))
        #expect(series.kind == .daily && series.reason == nil)
        #expect(series.days.map(\.rateDay) == ["2026-09-30", nil])
        #expect(series.days.map(\.path) == [["USD", "EUR", "INR"], ["USD", "INR"]])
        #expect(series.history.points.map(\.price) == [try dec("95.83487450"), try dec("90.37000000"), try dec("180.74000000")])
    }

    /// Every point on a published day (or a weekend after one) is `daily`, with no reason.
    @Test func allDaily() async throws {
        let daily = try await FiatHistoryClient.test.history(CalendarDay(year: 2026, month: 9, day: 26), CalendarDay(year: 2026, month: 10, day: 4))
        let series = try Self.convert(try Self.history([("2026-09-30", "1"), ("2026-10-04", "1")]), to: "INR", daily: daily)
        #expect(series.kind == .daily && series.reason == nil)
        #expect(series.days.map(\.rateDay) == ["2026-09-30", "2026-10-02"])
        // 108.8205 / 1.1355 = 95.8348745046235138…
        #expect(series.history.points.first?.price == (try dec("95.83487450")))
    }

    /// Without daily rates every point is at today's rate, and the reason is the fetcher's.
    @Test func noDailyRates() throws {
        let series = try Self.convert(try Self.history([("2026-10-01", "2"), ("2026-10-02", "3")]), to: "SEK", daily: nil, problem: "rates-fetcher is down")
        #expect(series.kind == .today && series.source == "ecb")
        #expect(series.reason == "rates-fetcher is down")
        #expect(series.history.points.map(\.price) == [try dec("18.65900000"), try dec("27.98850000")])
        let rate = try dec("9.3295")
        #expect(series.days.allSatisfy { $0.rateDay == nil && $0.path == ["USD", "SEK"] && $0.rate == rate })
    }

    /// A currency the daily rates lack (the recorded series has only INR and USD) is at today's rate, saying why.
    @Test func currencyMissingFromDailyRates() async throws {
        let daily = try await FiatHistoryClient.test.history(CalendarDay(year: 2026, month: 9, day: 27), CalendarDay(year: 2026, month: 10, day: 1))
        let series = try Self.convert(try Self.history([("2026-10-01", "1")]), to: "SEK", daily: daily)
        #expect(series.kind == .today)
        #expect(series.reason == "the ECB rates have no USD → SEK")
        #expect(series.history.points.first?.price == (try dec("9.32950000")))
    }

    /// A history in a crypto asset (ETH's in BTC) takes today's market rate whatever the daily rates: the ECB
    /// has no BTC; the reason is said once, not per day.
    @Test func cryptoHistoryIsAtTodaysRate() async throws {
        var book = try book([rateMessage("ecb", "USD", "SEK", "9.3295"), quoteMessage("coingecko", "BTC", "USD", last: "90000")])
        let daily = try await FiatHistoryClient.mock(seed: 1).history(CalendarDay(year: 2026, month: 9, day: 27), CalendarDay(year: 2026, month: 10, day: 2))
        let history = PriceHistory(asset: "ETH", currency: "BTC", points: try Self.history([("2026-10-01", "0.05"), ("2026-10-02", "0.04")]).points)
        let series = try SeriesConversion.convert(ConvertSeriesRequest(history: history, to: "SEK"), daily: daily, dailyProblem: nil, in: &book)
        #expect(series.kind == .today && series.source == "market")
        #expect(series.reason == "BTC is not a currency with daily reference rates")
        // 0.05 × 90000 × 9.3295
        #expect(series.history.points.first?.price == (try dec("41982.75000000")))
        #expect(series.days.allSatisfy { $0.path == ["BTC", "USD", "SEK"] })
        let (fetched, problem) = await SeriesConversion.dailyRates(for: ConvertSeriesRequest(history: history, to: "SEK"), fetch: { _ in
            Issue.record("daily rates asked for a BTC series")
            return daily
        })
        #expect(fetched == nil && problem == "BTC is not a currency with daily reference rates")
    }

    /// A history in the wanted currency's own currency is unchanged; an unknown currency is the converter's error.
    @Test func sameCurrencyAndErrors() throws {
        let history = try Self.history([("2026-10-01", "5")])
        #expect(try Self.convert(history, to: "USD", daily: nil, problem: "none").history.points == history.points)
        #expect(throws: MoneyError.self) { try Self.convert(history, to: "XYZ", daily: nil, problem: "none") }
        #expect(throws: MoneyError.self) { try Self.convert(history, to: "not a code", daily: nil, problem: "none") }
    }

    /// The span asked of rates-fetcher reaches back far enough for the first point's weekend fallback.
    @Test func span() throws {
        let history = try Self.history([("2026-10-05", "1"), ("2026-10-08", "1")])
        #expect(SeriesConversion.span(of: history) == RatesHistoryRequest(start: "2026-10-01", end: "2026-10-08"))
        #expect(SeriesConversion.span(of: PriceHistory(asset: "BTC", currency: "USD", points: [])) == nil)
    }
}
