import Candles
import Foundation
import Market
import Money
import Testing

/// 2026-11-26 10:00:00 UTC.
let tenOClock = Date(timeIntervalSince1970: 1_795_687_200)
let btcMXN = MarketPair(base: "BTC", quote: "MXN")

func trade(_ price: String, _ size: String, at seconds: Double, source: String = "bitso-ws", market: MarketPair = btcMXN) -> MarketTrade {
    MarketTrade(
        source: source, market: market, id: "\(seconds)", price: try! ExactDecimal(price), size: try! ExactDecimal(size),
        side: .buy, time: tenOClock.addingTimeInterval(seconds))
}

func decimal(_ text: String) -> ExactDecimal { try! ExactDecimal(text) }

@Suite("Candle builder")
struct CandleBuilderTests {
    /// A candle's start is its time floored to the interval in UTC, before 1970 too.
    @Test func startIsFlooredInUTC() {
        let time = tenOClock.addingTimeInterval(3_725.9)  // 11:02:05.9
        #expect(CandleBuilder.start(of: time, interval: .oneMinute) == tenOClock.addingTimeInterval(3_720))
        #expect(CandleBuilder.start(of: time, interval: .fiveMinutes) == tenOClock.addingTimeInterval(3_600))
        #expect(CandleBuilder.start(of: time, interval: .oneHour) == tenOClock.addingTimeInterval(3_600))
        #expect(CandleBuilder.start(of: time, interval: .oneDay) == Date(timeIntervalSince1970: 1_795_651_200))  // 00:00 UTC
        #expect(CandleBuilder.start(of: Date(timeIntervalSince1970: -1), interval: .oneMinute) == Date(timeIntervalSince1970: -60))
    }

    /// Trades of one minute make one exact OHLCV candle, closed by the first trade of the next minute.
    @Test func tradesMakeExactCandles() throws {
        var builder = CandleBuilder(intervals: [.oneMinute, .fiveMinutes])
        #expect(builder.add(trade("1200000.10", "0.5", at: 1)).closed.isEmpty)
        #expect(builder.add(trade("1200100.5", "0.25", at: 20)).closed.isEmpty)
        #expect(builder.add(trade("1199999.99", "0.00000001", at: 40)).closed.isEmpty)
        #expect(builder.add(trade("1200050", "1.1", at: 59.999)).closed.isEmpty)
        let update = builder.add(trade("1200001", "2", at: 60))
        #expect(update.refusal == nil)
        #expect(update.closed == [Candle(
            source: "bitso-ws", market: btcMXN, interval: .oneMinute, start: tenOClock,
            open: decimal("1200000.10"), high: decimal("1200100.5"), low: decimal("1199999.99"), close: decimal("1200050"),
            volume: decimal("1.85000001"), count: 4)])
        let five = try #require(builder.openCandle(source: "bitso-ws", market: btcMXN, interval: .fiveMinutes))
        #expect(five.open == decimal("1200000.10") && five.close == decimal("1200001") && five.volume == decimal("3.85000001") && five.count == 5)
        #expect(five.high.description == "1200100.5" && five.low.description == "1199999.99")
    }

    /// A clock tick past a candle's end (and the close delay) closes it; later messages for it are late: counted,
    /// dropped, not merged.
    @Test func ticksCloseAndLateMessagesAreDropped() {
        var builder = CandleBuilder(intervals: [.oneMinute, .oneHour], closeDelay: .seconds(2))
        _ = builder.add(trade("10", "1", at: 5))
        #expect(builder.tick(now: tenOClock.addingTimeInterval(61)).isEmpty, "within the close delay")
        let closed = builder.tick(now: tenOClock.addingTimeInterval(62))
        #expect(closed.map(\.interval) == [.oneMinute] && closed.first?.close == decimal("10"))
        let late = builder.add(trade("11", "1", at: 59))
        #expect(late == CandleUpdate(closed: [], refusal: .late))
        #expect(builder.openCandle(source: "bitso-ws", market: btcMXN, interval: .oneHour)?.count == 1, "not merged into the hour either")
        _ = builder.add(trade("12", "1", at: 65))
        let hour = builder.openCandle(source: "bitso-ws", market: btcMXN, interval: .oneHour)
        #expect(hour?.close == decimal("12") && hour?.high == decimal("12") && hour?.volume == decimal("2") && hour?.count == 2)
        #expect(builder.add(trade("13", "1", at: 30)).refusal == .late, "before the open minute")
        #expect(builder.refusals == [.late: 2])
    }

    /// A past day replayed a year later closes its candles on the replay's own clock while its time moves: the first
    /// tick does not close them all (which would make every later trade of their minute late), a trade past a candle's
    /// end does; once the replayed time stands still for the quiet limit (the replay ended), the wall clock closes the
    /// rest. The same trades give the same candles whatever the pace of their arrival and the ticks.
    @Test func aReplayedDayClosesOnItsOwnClock() {
        let aYearLater = tenOClock.addingTimeInterval(365 * 86_400)
        var builder = CandleBuilder(intervals: [.oneMinute, .oneHour], closeDelay: .seconds(2), quietLimit: .seconds(5))
        _ = builder.add(trade("10", "1", at: 5), received: aYearLater)
        #expect(builder.tick(now: aYearLater.addingTimeInterval(0.5)).isEmpty, "10:00:05.5 on the replay's clock")
        #expect(builder.add(trade("11", "1", at: 50), received: aYearLater.addingTimeInterval(0.6)).refusal == nil, "not late")
        #expect(builder.tick(now: aYearLater.addingTimeInterval(5.5)).isEmpty, "quiet for 4.9 s: 10:00:54.9")
        #expect(builder.add(trade("12", "1", at: 61), received: aYearLater.addingTimeInterval(5.6)).closed.map(\.close) == [decimal("11")])
        let rest = builder.tick(now: aYearLater.addingTimeInterval(10.6))
        #expect(rest.map(\.interval) == [.oneHour, .oneMinute], "its time stood still for 5 s: the wall clock")

        // A feed repeating one old time (a recorded response polled again) closes on the wall clock after the limit.
        var frozen = CandleBuilder(intervals: [.oneDay], closeDelay: .seconds(2), quietLimit: .seconds(5))
        for poll in 0..<4 {
            let quote = Quote(source: "coingecko", market: btcMXN, last: decimal("100"), time: tenOClock)
            _ = frozen.add(quote, received: aYearLater.addingTimeInterval(Double(poll)))
        }
        #expect(frozen.tick(now: aYearLater.addingTimeInterval(4.9)).isEmpty)
        #expect(frozen.tick(now: aYearLater.addingTimeInterval(5)).map(\.count) == [4])

        // 600 trades over ten minutes, replayed at two paces with ticks between them: the same candles.
        func replay(secondsPerTrade pace: Double, tickEvery: Int) -> [Candle] {
            var builder = CandleBuilder(intervals: [.oneMinute, .fiveMinutes], closeDelay: .seconds(2))
            var closed: [Candle] = []
            for index in 0..<600 {
                let arrival = aYearLater.addingTimeInterval(Double(index) * pace)
                closed += builder.add(trade("\(100 + index % 7)", "0.\(index % 9 + 1)", at: Double(index)), received: arrival).closed
                if index % tickEvery == 0 { closed += builder.tick(now: arrival) }
            }
            #expect(builder.refusals.isEmpty)
            return closed + builder.tick(now: aYearLater.addingTimeInterval(3_600))
        }
        let fast = replay(secondsPerTrade: 0.001, tickEvery: 1)
        #expect(fast.count == 12)
        #expect(fast == replay(secondsPerTrade: 0.1, tickEvery: 7))
    }

    /// A replayed market that trades once a replayed minute, in a replay slow enough that its trades come more than the
    /// quiet limit apart: while another replayed market's time still moves, it keeps its own clock (its next minute's
    /// trade is not late); once every replayed time stands still, the wall clock closes the rest.
    @Test func aSparseMarketOfASlowReplayKeepsItsClock() {
        let aYearLater = tenOClock.addingTimeInterval(365 * 86_400)
        let sparse = MarketPair(base: "ETH", quote: "MXN")
        var builder = CandleBuilder(intervals: [.oneMinute, .fiveMinutes], closeDelay: .seconds(2), quietLimit: .seconds(5))
        var closed: [Candle] = []
        // 3 replayed minutes over 24 wall seconds: the busy market trades every replayed second, the sparse one once a minute.
        for second in 0..<180 {
            let arrival = aYearLater.addingTimeInterval(Double(second) * 24 / 180)
            closed += builder.add(trade("100", "1", at: Double(second)), received: arrival).closed
            if second % 60 == 30 { closed += builder.add(trade("7", "1", at: Double(second), market: sparse), received: arrival).closed }
            closed += builder.tick(now: arrival)
        }
        #expect(builder.refusals.isEmpty, "no trade of the sparse market was late")
        let sparseMinutes = closed.filter { $0.market == sparse && $0.interval == .oneMinute }.map(\.start)
        #expect(sparseMinutes == [tenOClock, tenOClock.addingTimeInterval(60)], "closed by its own later trades, not by the wall clock")
        let last = aYearLater.addingTimeInterval(179.0 * 24 / 180)
        #expect(!builder.tick(now: last.addingTimeInterval(4.9)).contains { $0.market == sparse }, "the replay stood still for 4.9 s")
        let rest = builder.tick(now: last.addingTimeInterval(5))
        #expect(Set(rest.filter { $0.market == sparse }.map(\.interval)) == [.oneMinute, .fiveMinutes], "then the wall clock")
    }

    /// A market whose feed sends no trades gets candles from its quotes' last price, volume 0; once a trade comes, the
    /// quote candles are dropped and its quotes ignored.
    @Test func quotesUntilTradesCome() {
        var builder = CandleBuilder(intervals: [.oneMinute])
        let quote = { (last: String, seconds: Double) in
            Quote(source: "bitso-ws", market: btcMXN, last: decimal(last), time: tenOClock.addingTimeInterval(seconds))
        }
        _ = builder.add(quote("100", 1), received: .distantPast)
        _ = builder.add(quote("90", 2), received: .distantPast)
        let closed = builder.add(quote("95", 61), received: .distantPast).closed
        #expect(closed == [Candle(
            source: "bitso-ws", market: btcMXN, interval: .oneMinute, start: tenOClock,
            open: decimal("100"), high: decimal("100"), low: decimal("90"), close: decimal("90"), volume: .zero, count: 2)])
        #expect(builder.add(trade("96", "0.5", at: 62)).refusal == .supersededQuotes)
        #expect(builder.add(quote("500", 63), received: .distantPast).refusal == .tradedMarket)
        let open = builder.openCandle(source: "bitso-ws", market: btcMXN, interval: .oneMinute)
        #expect(open?.open == decimal("96") && open?.count == 1 && open?.volume == decimal("0.5"))
        let undated = Quote(source: "coingecko", market: btcMXN, last: decimal("7"))
        _ = builder.add(undated, received: tenOClock.addingTimeInterval(125))
        #expect(builder.openCandle(source: "coingecko", market: btcMXN, interval: .oneMinute)?.start == tenOClock.addingTimeInterval(120))
    }

    /// Bad values are refused and counted; feeds and markets are kept apart; past maxMarkets a new market is refused
    /// unless one has no open candle.
    @Test func badInputAndBounds() {
        var builder = CandleBuilder(intervals: [.oneMinute], maxMarkets: 2)
        #expect(builder.add(trade("0", "1", at: 1)).refusal == .invalid)
        #expect(builder.add(trade("-5", "1", at: 1)).refusal == .invalid)
        #expect(builder.add(trade("5", "-1", at: 1)).refusal == .invalid)
        _ = builder.add(trade("5", "1", at: 1))
        _ = builder.add(trade("6", "1", at: 1, source: "kraken-ws"))
        #expect(builder.add(trade("7", "1", at: 1, market: MarketPair(base: "ETH", quote: "MXN"))).refusal == .tooManyMarkets)
        #expect(builder.openCandles.map(\.source) == ["bitso-ws", "kraken-ws"])
        #expect(builder.tick(now: tenOClock.addingTimeInterval(60)).count == 2)
        #expect(builder.add(trade("7", "1", at: 61, market: MarketPair(base: "ETH", quote: "MXN"))).refusal == nil)
        #expect(builder.marketCount == 1)
        let huge = String(repeating: "9", count: 38)
        #expect(builder.add(trade("1", huge, at: 62, market: MarketPair(base: "ETH", quote: "MXN"))).refusal == .overflow)
        #expect(builder.openCandle(source: "bitso-ws", market: MarketPair(base: "ETH", quote: "MXN"), interval: .oneMinute)?.volume == decimal("1"))
        #expect(builder.refusals == [.invalid: 3, .tooManyMarkets: 1, .overflow: 1])
    }

    /// A gap of several intervals closes the open candle once; empty intervals make no candle.
    @Test func gapsMakeNoCandles() {
        var builder = CandleBuilder(intervals: [.oneMinute])
        _ = builder.add(trade("1", "1", at: 0))
        let closed = builder.add(trade("2", "1", at: 600)).closed
        #expect(closed.map(\.start) == [tenOClock])
        #expect(builder.openCandle(source: "bitso-ws", market: btcMXN, interval: .oneMinute)?.start == tenOClock.addingTimeInterval(600))
    }
}
