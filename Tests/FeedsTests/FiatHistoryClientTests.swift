import AsyncHTTPClient
import Feeds
import Foundation
import Market
import Money
import Testing

@Suite struct FiatHistoryClientTests {
    static let start = CalendarDay(year: 2026, month: 9, day: 30)
    static let end = CalendarDay(year: 2026, month: 10, day: 4)

    /// The test client gives Frankfurter's recorded ECB series from EUR, days in order, numbers read exactly.
    @Test func testClientDecodesFixture() async throws {
        let history = try await FiatHistoryClient.test.history(Self.start, Self.end)
        #expect(history.source == "ecb" && history.base == "EUR")
        #expect(history.start == "2026-09-30" && history.end == "2026-10-04")
        #expect(history.days.map(\.date) == ["2026-09-30", "2026-10-01", "2026-10-02"])
        let october1 = try #require(history.days.first { $0.date == "2026-10-01" })
        #expect(october1.rates == [
            ExchangeRate(from: "EUR", to: "INR", rate: try dec("108.832")), ExchangeRate(from: "EUR", to: "USD", rate: try dec("1.1298")),
        ])
        #expect(history.days.allSatisfy { $0.source == "ecb" && $0.base == "EUR" })
    }

    /// The test client keeps only the days asked for, and the last published day before them.
    @Test func testClientCutsToTheSpan() async throws {
        let history = try await FiatHistoryClient.test.history(CalendarDay(year: 2026, month: 10, day: 3), Self.end)
        #expect(history.days.map(\.date) == ["2026-10-02"])
    }

    /// Live Frankfurter asks `/{start}..{end}?from=EUR` and decodes what the test client does.
    @Test func liveFrankfurter() async throws {
        let expected = try await FiatHistoryClient.test.history(Self.start, Self.end)
        try await FakeAPI.serve(["/2026-09-30..2026-10-04?from=EUR": .fixture(.frankfurterTimeSeriesEUR)]) { url in
            let history = try await FiatHistoryClient.live(http: .shared, baseURL: url).history(Self.start, Self.end)
            #expect(history == expected)
        }
    }

    /// A series for another base, a key that is not a day, a rate that is not positive or not a number, and
    /// a server error are each a clear error, never rates.
    @Test(arguments: [
        ("{\"amount\":1.0,\"base\":\"USD\",\"start_date\":\"2026-09-30\",\"end_date\":\"2026-10-02\",\"rates\":{}}", "asked for rates from EUR, got USD"),
        ("{\"amount\":1.0,\"base\":\"EUR\",\"start_date\":\"2026-09-30\",\"end_date\":\"2026-10-02\",\"rates\":{\"30.9.2026\":{\"USD\":1.1}}}", "not a day: 30.9.2026"),
        ("{\"amount\":1.0,\"base\":\"EUR\",\"start_date\":\"2026-09-30\",\"end_date\":\"2026-10-02\",\"rates\":{\"2026-09-30\":{\"USD\":0}}}", "rate of USD on 2026-09-30 is not positive: 0"),
        ("{\"amount\":1.0,\"base\":\"EUR\",\"start_date\":\"2026-09-30\",\"end_date\":\"2026-10-02\",\"rates\":{\"2026-09-30\":{\"USD\":\"x\"}}}", "rates"),
        ("<html>busy</html>", "not valid JSON"),
    ])
    func malformed(body: String, reason: String) async throws {
        try await FakeAPI.serve(["/2026-09-30..2026-10-04?from=EUR": .text(body)]) { url in
            let error = await feedError { try await FiatHistoryClient.live(http: .shared, baseURL: url).history(Self.start, Self.end) }
            guard case let .malformed(_, found, _) = error else {
                Issue.record("expected .malformed, got \(String(describing: error))")
                return
            }
            #expect(found.contains(reason), "\(found)")
        }
    }

    /// A 500 is the status with the URL, not rates.
    @Test func serverError() async throws {
        try await FakeAPI.serve(["/2026-09-30..2026-10-04?from=EUR": .text("oops", status: .internalServerError)]) { url in
            let error = await feedError { try await FiatHistoryClient.live(http: .shared, baseURL: url).history(Self.start, Self.end) }
            guard case let .httpStatus(code, shown, _) = error else {
                Issue.record("expected .httpStatus, got \(String(describing: error))")
                return
            }
            #expect(code == 500 && shown.contains("/2026-09-30..2026-10-04?from=EUR"))
        }
    }

    /// The mock has every weekday (and the last one before the span), none on weekends, each rate within
    /// 2 % of the recorded one, and the same answer for the same seed whatever span the day is asked in.
    @Test func mockIsDeterministicBusinessDays() async throws {
        let recorded = try await FiatClient.test.latest()
        let mock = FiatHistoryClient.mock(seed: 5)
        let history = try await mock.history(CalendarDay(year: 2026, month: 10, day: 4), CalendarDay(year: 2026, month: 10, day: 9))
        #expect(history.base == "USD" && history.source == "ecb")
        #expect(history.days.map(\.date) == ["2026-10-02", "2026-10-05", "2026-10-06", "2026-10-07", "2026-10-08", "2026-10-09"])
        let again = try await mock.history(CalendarDay(year: 2026, month: 10, day: 6), CalendarDay(year: 2026, month: 10, day: 6))
        #expect(again.days.last == history.days.first { $0.date == "2026-10-06" })
        for day in history.days {
            for (rate, base) in zip(day.rates, recorded.rates) {
                #expect(rate.to == base.to)
                let low = try base.rate * dec("0.9799"), high = try base.rate * dec("1.0201")
                #expect(low <= rate.rate && rate.rate <= high, "\(day.date) \(rate.to)")
            }
        }
        let other = try await FiatHistoryClient.mock(seed: 6).history(CalendarDay(year: 2026, month: 10, day: 6), CalendarDay(year: 2026, month: 10, day: 6))
        #expect(other.days.last != again.days.last)
    }

    /// Days are read and written as ISO dates; impossible ones are refused; weekends are known.
    @Test func calendarDays() throws {
        let day = try #require(CalendarDay(iso: "2026-11-24"))
        #expect(day.iso == "2026-11-24" && !day.isWeekend)
        #expect(CalendarDay(iso: "2026-11-28")?.isWeekend == true && CalendarDay(iso: "2026-11-29")?.isWeekend == true)
        #expect(CalendarDay(iso: "2024-02-29")?.iso == "2024-02-29")
        for bad in ["2026-02-29", "2026-13-01", "2026-1-01", "26-01-01", "2026-01-01T00:00:00Z", "", "abcd-ef-gh"] {
            #expect(CalendarDay(iso: bad) == nil, "\(bad)")
        }
        #expect(CalendarDay(Date(timeIntervalSince1970: 1_795_564_799)).iso == "2026-11-24")
        #expect(CalendarDay(Date(timeIntervalSince1970: 1_795_564_800)).iso == "2026-11-25")
        #expect(CalendarDay(year: 1969, month: 12, day: 31).daysSince1970 == -1)
        #expect(day.adding(days: 7).iso == "2026-12-01")
    }
}
