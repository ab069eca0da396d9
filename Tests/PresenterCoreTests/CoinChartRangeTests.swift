import BusContract
import Foundation
import Logging
import Market
import Money
import Synchronization
import Testing
import TickwireClients
import TickwireContract
import TickwireMocks

@testable import PresenterCore
@testable import PresenterViews

/// Issue 32: a coin's chart covers 1D, 7D, 30D or 1Y, drawn from rates-fetcher's stored candles, backfilled from its
/// price history where the store has none.
@Suite("Coin chart ranges from candles")
struct CoinChartRangeTests {
    /// 2026-11-26 10:00 UTC.
    static let now = Date(timeIntervalSince1970: 1_795_687_200)
    static let btcUSD = MarketPair(base: "BTC", quote: "USD")

    /// Two 5-minute candles of bitso-ws closing at 09:50 and 09:55, and CoinGecko's hourly points of the last 30 hours.
    static func candles(_ request: CandlesRequest) throws -> CandleSeries {
        guard request.market == "BTC-USD" else { throw RPCError.notFound("no \(request.interval.rawValue) candles of \(request.market)") }
        let candle = { (minutes: Double, close: String) in
            Candle(source: "bitso-ws", market: btcUSD, interval: .fiveMinutes, start: now.addingTimeInterval(minutes * 60),
                   open: 1, high: try ExactDecimal(close), low: 1, close: try ExactDecimal(close), volume: try ExactDecimal("0.5"), count: 4)
        }
        return CandleSeries(source: "bitso-ws", market: btcUSD, interval: request.interval, candles: [try candle(-15, "90100.5"), try candle(-10, "90200")])
    }

    static func history(_ request: HistoryRequest) throws -> PriceHistory {
        let points = try (0...30).map { hours in
            PricePoint(time: now.addingTimeInterval(-TimeInterval(hours) * 3_600), price: try ExactDecimal("\(89_000 + hours)"))
        }
        return PriceHistory(asset: request.asset, currency: request.currency ?? "USD", points: points.reversed())
    }

    static func sources(candles: @escaping @Sendable (CandlesRequest) async throws -> CandleSeries = { try CoinChartRangeTests.candles($0) }) -> ViewSources {
        ViewSources(
            wallets: { throw RPCError.unavailable("wallets") }, holdings: { _ in throw RPCError.unavailable("holdings") },
            trades: { _ in [] }, products: { [] }, product: { _ in throw RPCError.unavailable("product") }, watchlist: { [] },
            history: { try CoinChartRangeTests.history($0) }, convert: { _ in throw RPCError.unavailable("convert") },
            convertSeries: { _ in throw RPCError.unavailable("convertSeries") }, candles: candles)
    }

    /// 1D: the history's points (as many as it gives) before the first candle's end (not its 10:00 one), then each
    /// candle's close at its end.
    @Test func candlesAfterTheBackfill() async throws {
        let (history, note, candlesFrom) = try await CoinChartRange.oneDay.history(of: "BTC", in: "USD", sources: Self.sources(), now: Self.now)
        #expect(history.currency == "USD" && history.asset == "BTC")
        #expect(candlesFrom == Self.now.addingTimeInterval(-600), "the join the chart marks: the first candle's point")
        #expect(history.points.map(\.price.description) == (1...30).reversed().map { "\(89_000 + $0)" } + ["90100.5", "90200"])
        #expect(history.points.suffix(2).map(\.time) == [Self.now.addingTimeInterval(-600), Self.now.addingTimeInterval(-300)])
        #expect(note == "From bitso-ws's 5m candles since 2026-11-26T09:50:00Z; before, rates-fetcher's price history.")
    }

    /// A market of the display currency with candles of its own (a replay's Bitso BTC-MXN) and a history in it of only
    /// the last minutes (the hub's, since the replay began): before that history, CoinGecko's USD history converted into
    /// MXN (by the converter's `convert.series`), so the day is drawn, not the replay's minutes alone.
    @Test func candlesInTheDisplayCurrencyAreBackfilledFromAnotherConverted() async throws {
        let btcMXN = MarketPair(base: "BTC", quote: "MXN")
        var sources = Self.sources(candles: { request in
            guard request.market == "BTC-MXN" else { throw RPCError.notFound("no candles of \(request.market)") }
            let candle = Candle(source: "bitso-ws", market: btcMXN, interval: .fiveMinutes, start: Self.now.addingTimeInterval(-600),
                                open: 1, high: 1_800_000, low: 1, close: 1_800_000, volume: 1, count: 1)
            return CandleSeries(source: "bitso-ws", market: btcMXN, interval: request.interval, candles: [candle])
        })
        sources.history = { request in
            guard request.currency == "MXN" else { return try Self.history(request) }
            return PriceHistory(asset: "BTC", currency: "MXN", points: [PricePoint(time: Self.now.addingTimeInterval(-1_200), price: 1_790_000)])
        }
        sources.convertSeries = { request in
            let points = try request.history.points.map { PricePoint(time: $0.time, price: try $0.price * 20) }
            return ConvertSeriesResult(history: PriceHistory(asset: "BTC", currency: request.to, points: points), kind: .daily, source: "ecb", days: [])
        }
        let builder = ScreenBuilder(state: PresenterState(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })), sources: sources)
        let (history, note, candlesFrom) = try await builder.history(of: "BTC", currency: "MXN", priced: "MXN", range: .oneDay, now: Self.now)
        #expect(history.currency == "MXN")
        #expect(history.points.map(\.price.description) == (1...30).reversed().map { "\((89_000 + $0) * 20)" } + ["1790000", "1800000"])
        #expect(candlesFrom == Self.now.addingTimeInterval(-300))
        #expect(note?.hasPrefix("From bitso-ws's 5m candles since") == true)
    }

    /// 1D's last minutes: after the last of an hour of 5-minute candles (ending 09:00 to 09:55), the 1-minute candles
    /// of the same feed closing later (09:56, 09:57; not the 09:55 one, nor one past now), asked from 09:54 of that
    /// feed alone.
    @Test func oneMinuteCandlesAfterTheLastFiveMinuteOne() async throws {
        let asked = Mutex<[CandlesRequest]>([])
        let candles: @Sendable (CandlesRequest) async throws -> CandleSeries = { request in
            asked.withLock { $0.append(request) }
            let interval = request.interval
            let candle = { (minutes: Double, close: String) in
                Candle(source: "bitso-ws", market: Self.btcUSD, interval: interval, start: Self.now.addingTimeInterval(minutes * 60),
                       open: 1, high: try ExactDecimal(close), low: 1, close: try ExactDecimal(close), volume: 1, count: 2)
            }
            let series = interval == .fiveMinutes
                ? try (0..<12).map { try candle(Double(-65 + 5 * $0), "\(90_100 + $0)") }
                : [try candle(-6, "90190"), try candle(-5, "90210.25"), try candle(-4, "90230"), try candle(0, "90300")]
            return CandleSeries(source: "bitso-ws", market: Self.btcUSD, interval: interval, candles: series)
        }
        let (history, note, _) = try await CoinChartRange.oneDay.history(of: "BTC", in: "USD", sources: Self.sources(candles: candles), now: Self.now)
        #expect(history.points.suffix(14).map(\.price.description) == (0..<12).map { "\(90_100 + $0)" } + ["90210.25", "90230"])
        #expect(history.points.suffix(3).map(\.time) == [-300, -240, -180].map { Self.now.addingTimeInterval($0) })
        #expect(history.points.count == 29 + 14)
        #expect(note == "From bitso-ws's 5m and 1m candles since 2026-11-26T09:00:00Z; before, rates-fetcher's price history.")
        let requests = asked.withLock { $0 }
        #expect(requests.map(\.interval) == [.fiveMinutes, .oneMinute])
        #expect(requests.map(\.source) == [nil, "bitso-ws"])
        #expect(requests.map(\.start) == [Self.now.addingTimeInterval(-86_400 - 300), Self.now.addingTimeInterval(-360)])
    }

    /// Fewer than an hour of 5-minute candles (two, ending 09:50 and 09:55) give way to the same feed's 1-minute
    /// candles of the whole day when those are more (09:55, 09:56, 09:57).
    @Test func fewFiveMinuteCandlesGiveWayToOneMinuteOnes() async throws {
        let candles: @Sendable (CandlesRequest) async throws -> CandleSeries = { request in
            guard request.interval == .oneMinute else { return try Self.candles(request) }
            #expect(request.source == "bitso-ws" && request.start == Self.now.addingTimeInterval(-86_400 - 60))
            let candle = { (minutes: Double, close: String) in
                Candle(source: "bitso-ws", market: Self.btcUSD, interval: .oneMinute, start: Self.now.addingTimeInterval(minutes * 60),
                       open: 1, high: try ExactDecimal(close), low: 1, close: try ExactDecimal(close), volume: 1, count: 2)
            }
            return CandleSeries(source: "bitso-ws", market: Self.btcUSD, interval: .oneMinute, candles: [
                try candle(-6, "90190"), try candle(-5, "90210.25"), try candle(-4, "90230"), try candle(0, "90300"),
            ])
        }
        let (history, note, _) = try await CoinChartRange.oneDay.history(of: "BTC", in: "USD", sources: Self.sources(candles: candles), now: Self.now)
        #expect(history.points.suffix(3).map(\.price.description) == ["90190", "90210.25", "90230"])
        #expect(history.points.suffix(3).map(\.time) == [-300, -240, -180].map { Self.now.addingTimeInterval($0) })
        #expect(history.points.count == 30 + 3)
        #expect(note == "From bitso-ws's 1m candles since 2026-11-26T09:55:00Z; before, rates-fetcher's price history.")
    }

    /// A replay's first minutes: no 5-minute candle has closed, so 1D is the 1-minute candles after the history.
    @Test func oneMinuteCandlesAlone() async throws {
        let candles: @Sendable (CandlesRequest) async throws -> CandleSeries = { request in
            guard request.interval == .oneMinute else { throw RPCError.notFound("no 5m candles of BTC-USD") }
            return CandleSeries(source: "replayed", market: Self.btcUSD, interval: .oneMinute, candles: [
                Candle(source: "replayed", market: Self.btcUSD, interval: .oneMinute, start: Self.now.addingTimeInterval(-120),
                       open: 1, high: 2, low: 1, close: try ExactDecimal("90001.75"), volume: 1, count: 3),
            ])
        }
        let (history, note, _) = try await CoinChartRange.oneDay.history(of: "BTC", in: "USD", sources: Self.sources(candles: candles), now: Self.now)
        #expect(history.points.last == PricePoint(time: Self.now.addingTimeInterval(-60), price: try ExactDecimal("90001.75")))
        #expect(history.points.count == 30 + 1)
        #expect(note == "From replayed's 1m candles since 2026-11-26T09:59:00Z; before, rates-fetcher's price history.")
    }

    /// Without candles the chart is the history's points in the range alone, without a note; with neither, the
    /// history's error.
    @Test func historyAloneAndNeither() async throws {
        let none: @Sendable (CandlesRequest) async throws -> CandleSeries = { _ in throw RPCError.notFound("no candles") }
        let (history, note, candlesFrom) = try await CoinChartRange.oneDay.history(of: "BTC", in: "USD", sources: Self.sources(candles: none), now: Self.now)
        #expect(history.points.count == 31 && note == nil && candlesFrom == nil)
        await #expect(throws: RPCError.self) {
            try await CoinChartRange.oneDay.history(of: "ETH", in: "EUR", sources: ViewSources(
                wallets: { throw RPCError.unavailable("") }, holdings: { _ in throw RPCError.unavailable("") }, trades: { _ in [] }, products: { [] },
                product: { _ in throw RPCError.unavailable("") }, watchlist: { [] }, history: { _ in throw RPCError.notFound("no history of ETH") },
                convert: { _ in throw RPCError.unavailable("") }, convertSeries: { _ in throw RPCError.unavailable("") }, candles: none), now: Self.now)
        }
    }

    /// Each range's candles and span; a range parameter other than 1D, 7D, 30D, 1Y is invalid params.
    @Test func ranges() throws {
        #expect(CoinChartRange.allCases.map(\.intervals) == [[.fiveMinutes, .oneMinute], [.oneHour], [.oneHour], [.oneDay]])
        #expect(CoinChartRange.allCases.map(\.days) == [1, 7, 30, 365])
        #expect(try CoinChartRange(parameter: nil) == .thirtyDays && CoinChartRange(parameter: "1y") == .oneYear)
        #expect(throws: RPCError.invalidParams("range must be 1D, 7D, 30D or 1Y, got \"2W\"")) { try CoinChartRange(parameter: "2W") }
    }

    /// The coin page's range links work without JavaScript (`?range=`, other query items kept), the shown one is
    /// `aria-current`, and the chart and its title follow the range asked for.
    @Test func pageLinksEachRange() async throws {
        var fetcher = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        let history = fetcher.history
        fetcher.history = { request in
            guard request.currency == "USD" else { throw RPCError.notFound("no history in \(request.currency ?? "")") }
            return try await history(request)
        }
        fetcher.candles = { request in
            guard request.market == "BTC-USD", request.interval == .fiveMinutes else { throw RPCError.notFound("no candles") }
            let end = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 / 300).rounded(.down) * 300)
            return CandleSeries(source: "bitso-ws", market: Self.btcUSD, interval: .fiveMinutes, candles: [
                Candle(source: "bitso-ws", market: Self.btcUSD, interval: .fiveMinutes, start: end.addingTimeInterval(-600),
                       open: 1, high: 2, low: 1, close: try ExactDecimal("91234.5"), volume: 0, count: 1),
            ])
        }
        let converter = ConverterClient.mock(fetcher: fetcher)
        try await InProcessPresenter(portfolio: .mock(fetcher: fetcher, converter: converter), converter: converter, fetcher: fetcher).test { client in
            let page = try await client.execute(uri: "/coins/BTC?currency=USD&range=1D", method: .get).text
            #expect(page.contains("<h2>1 day"))
            #expect(page.contains("<li data-range=\"1D\" class=\"selected\"><a href=\"/coins/BTC?currency=USD&amp;range=1D\" aria-current=\"page\" aria-label=\"1 day\">"))
            #expect(page.contains("<a href=\"/coins/BTC?currency=USD&amp;range=1Y\" aria-label=\"1 year\">"))
            #expect(page.contains("From bitso-ws&#39;s 5m candles since") || page.contains("From bitso-ws's 5m candles since"))
            #expect(page.contains("91,234.50"))
            let standard = try await client.execute(uri: "/coins/BTC?currency=USD", method: .get).text
            #expect(standard.contains("<h2>30 days") && standard.contains("<li data-range=\"30D\" class=\"selected\">"))
            let bad = try await client.execute(uri: "/api/views/coin?symbol=BTC&range=2W", method: .get)
            #expect(bad.status.code == 400 && bad.text.contains("range must be 1D, 7D, 30D or 1Y"))
        }
    }
}
