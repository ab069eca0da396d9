import Foundation
import Hummingbird
import HummingbirdTesting
import Market
import Money
import PresenterViews
import Testing
import TickwireClients
import TickwireMocks
import TickwireContract

@testable import PresenterCore
import BusContract

/// Issue 21: a coin's chart in another currency than its source's is converted at each day's ECB rate, and says so.
@Suite("A chart converted at each day's rate")
struct DailyRateChartTests {
    /// BTC in USD on Thursday 2026-10-01, Saturday 2026-10-03 at noon and Thursday 2026-10-08.
    static func history() throws -> PriceHistory {
        let day = { (text: String) throws -> Date in try #require(CalendarDay(iso: text)).start }
        return PriceHistory(asset: "BTC", currency: "USD", points: [
            PricePoint(time: try day("2026-10-01"), price: try ExactDecimal("60000")),
            PricePoint(time: try day("2026-10-03").addingTimeInterval(43_200), price: try ExactDecimal("61000.5")),
            PricePoint(time: try day("2026-10-08"), price: try ExactDecimal("62000")),
        ])
    }

    /// ECB rates from USD published on Thursday and Friday only.
    static func dailyRates() throws -> FiatRateHistory {
        func day(_ date: String, _ sek: String) throws -> FiatRates {
            FiatRates(source: "ecb", base: "USD", date: date, rates: [ExchangeRate(from: "USD", to: "SEK", rate: try ExactDecimal(sek))])
        }
        return FiatRateHistory(source: "ecb", base: "USD", start: "2026-09-27", end: "2026-10-08", days: [try day("2026-10-01", "10.5"), try day("2026-10-02", "10.25")])
    }

    /// A presenter over the mocks, rates-fetcher's history of BTC being `history()` in USD only and its daily
    /// rates `dailyRates` (the mock converter takes them from it).
    static func presenter(
        dailyRates: @escaping @Sendable (RatesHistoryRequest) async throws -> FiatRateHistory,
        convertSeries: (@Sendable (ConvertSeriesRequest) async throws -> ConvertSeriesResult)? = nil
    ) throws -> InProcessPresenter {
        var fetcher = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        let history = try history()
        fetcher.history = { request in
            guard request.asset == "BTC", request.currency == "USD" else { throw RPCError.notFound("no history in \(request.currency ?? "")") }
            return history
        }
        fetcher.ratesHistory = dailyRates
        // The chart is drawn from the history alone: no stored candles.
        fetcher.candles = { request in throw RPCError.notFound("no \(request.interval.rawValue) candles of \(request.market)") }
        var converter = ConverterClient.mock(fetcher: fetcher)
        if let convertSeries { converter.convertSeries = convertSeries }
        return try InProcessPresenter(portfolio: .mock(fetcher: fetcher, converter: converter), converter: converter, fetcher: fetcher)
    }

    static func coin(_ client: some TestClientProtocol) async throws -> CoinView {
        let response = try await client.execute(uri: "/api/views/coin?symbol=BTC&currency=SEK", method: .get)
        guard case .coin(let view) = try JSONDecoder().decode(ScreenView.self, from: Data(buffer: response.body)) else {
            throw RPCError.internalError("not a coin view: \(String(buffer: response.body).prefix(300))")
        }
        return view
    }

    /// Thursday at Thursday's rate, Saturday at Friday's, and the Thursday after, with no rate in the four days
    /// before it, at today's (the mock's recorded USD → SEK, 9.3295); the note names that day and why.
    @Test func eachDaysRate() async throws {
        let rates = try Self.dailyRates()
        try await Self.presenter(dailyRates: { _ in rates }).test { client in
            let coin = try await Self.coin(client)
            #expect(coin.chart?.currency == "SEK")
            #expect(coin.chart?.points.map(\.price.raw) == ["630000.00000000", "625255.12500000", "578429.00000000"])
            #expect(coin.chartNote == "Converted from USD at each day's ECB rate; 2026-10-08 is at today's rate "
                + "(no ECB rate published on 2026-10-08 or the 4 days before).")
            let page = try await client.execute(uri: "/coins/BTC?currency=SEK", method: .get).text
            #expect(page.contains("Converted from USD at each day&#39;s ECB rate") || page.contains("Converted from USD at each day's ECB rate"))
        }
    }

    /// Without daily rates (rates-fetcher failing), every point is at today's rate, and the note says so and why.
    @Test func todaysRateWhenNoDailyRates() async throws {
        try await Self.presenter(dailyRates: { _ in throw RPCError.unavailable("the ECB's daily rates could not be had: HTTP 500") }).test { client in
            let coin = try await Self.coin(client)
            #expect(coin.chart?.points.map(\.price.raw) == ["559770.00000000", "569104.16475000", "578429.00000000"])
            let note = coin.chartNote ?? ""
            #expect(note.hasPrefix("Converted from USD at today's rate (no daily rates: the ECB's daily rates could not be had: HTTP 500): USD → SEK via ECB rate"), "\(note)")
        }
    }

    /// A converter without `convert.series` (an older one): the presenter converts every point at the
    /// converter's current rate itself, and the note says why.
    @Test func olderConverter() async throws {
        let rates = try Self.dailyRates()
        try await Self.presenter(dailyRates: { _ in rates }, convertSeries: { _ in throw RPCError.methodNotFound("convert.series") }).test { client in
            let coin = try await Self.coin(client)
            // The product of 9.3295 and the price, exact (DisplayRate rounds to at most 8 places, without padding).
            #expect(coin.chart?.points.map(\.price.raw) == ["559770.0000", "569104.16475", "578429.0000"])
            let note = coin.chartNote ?? ""
            #expect(note.hasPrefix("Converted from USD at today's rate (no daily rates: method not found: convert.series): USD → SEK via ECB rate"), "\(note)")
        }
    }
}
