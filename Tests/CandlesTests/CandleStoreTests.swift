import Candles
import Foundation
import Market
import Money
import Testing

func candle(_ interval: CandleInterval, at seconds: Int, close: String = "10", source: String = "bitso-ws", market: MarketPair = btcMXN) -> Candle {
    Candle(
        source: source, market: market, interval: interval, start: tenOClock.addingTimeInterval(TimeInterval(seconds)),
        open: decimal("9.5"), high: decimal("11.25"), low: decimal("9"), close: decimal(close), volume: decimal("0.00000001"), count: 3)
}

@Suite("Candle store")
struct CandleStoreTests {
    /// Candles come back exactly, oldest first, within the span (both ends inclusive); a market or feed with none is nil.
    @Test func rangeQuery() async throws {
        let store = try CandleStore.inMemory()
        #expect(try await store.save([candle(.oneMinute, at: 120, close: "12.000"), candle(.oneMinute, at: 0), candle(.oneMinute, at: 60)]) == 0)
        let all = try #require(try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute)))
        #expect(all.source == "bitso-ws" && all.candles.map(\.start) == [0, 60, 120].map { tenOClock.addingTimeInterval($0) })
        #expect(all.candles.last == candle(.oneMinute, at: 120, close: "12.000"))
        #expect(all.candles.last?.close.description == "12.000", "the scale is kept")
        let span = try await store.candles(CandleQuery(
            market: btcMXN, interval: .oneMinute, start: tenOClock.addingTimeInterval(60), end: tenOClock.addingTimeInterval(120)))
        #expect(span?.candles.count == 2)
        let empty = try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute, start: tenOClock.addingTimeInterval(600)))
        #expect(empty?.candles == [] && empty?.source == "bitso-ws", "a known market with nothing in the span")
        #expect(try await store.candles(CandleQuery(market: btcMXN, interval: .oneHour)) == nil)
        #expect(try await store.candles(CandleQuery(market: MarketPair(base: "ETH", quote: "MXN"), interval: .oneMinute)) == nil)
        #expect(try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute, source: "kraken-ws")) == nil)
    }

    /// Without a feed named, the one with the most candles in the span answers; a candle stored twice is replaced.
    @Test func feedWithMostCandlesAnswers() async throws {
        let store = try CandleStore.inMemory()
        _ = try await store.save([candle(.oneHour, at: 0, source: "coingecko"), candle(.oneHour, at: 3_600, source: "coingecko")])
        _ = try await store.save([candle(.oneHour, at: 7_200, source: "bitso-ws"), candle(.oneHour, at: 7_200, close: "8", source: "bitso-ws")])
        #expect(try await store.candles(CandleQuery(market: btcMXN, interval: .oneHour))?.source == "coingecko")
        let late = try #require(try await store.candles(CandleQuery(market: btcMXN, interval: .oneHour, start: tenOClock.addingTimeInterval(7_000))))
        #expect(late.source == "bitso-ws" && late.candles.map(\.close) == [decimal("8")])
    }

    /// Each interval keeps its own span, counted back from the newest candle of the feed's market stored.
    @Test func retentionPerInterval() async throws {
        let retention = try CandleRetention(parsing: "1m=2m,5m=none")
        let store = try CandleStore.inMemory(retention: retention)
        let old = candle(.oneMinute, at: -86_400, source: "replay")
        _ = try await store.save([candle(.oneMinute, at: 0), candle(.oneMinute, at: 60), candle(.fiveMinutes, at: -86_400), old])
        #expect(try await store.save([candle(.oneMinute, at: 180), candle(.fiveMinutes, at: 0)]) == 1)
        #expect(try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute, source: "replay"))?.candles == [old])
        #expect(try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute))?.candles.map(\.start)
            == [60, 180].map { tenOClock.addingTimeInterval($0) })
        #expect(try await store.candles(CandleQuery(market: btcMXN, interval: .fiveMinutes))?.candles.count == 2)
    }

    /// A file store keeps candles across opening it again.
    @Test func fileStoreOutlivesReopening() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("candles-\(UUID().uuidString)/candles.sqlite").path
        defer { try? FileManager.default.removeItem(atPath: URL(fileURLWithPath: path).deletingLastPathComponent().path) }
        _ = try await CandleStore.sqlite(path: path).save([candle(.oneDay, at: 0)])
        #expect(try await CandleStore.sqlite(path: path).candles(CandleQuery(market: btcMXN, interval: .oneDay))?.candles == [candle(.oneDay, at: 0)])
    }

    /// The retention text reads units and `none`, keeps the standard for intervals left out, and names a bad item.
    @Test func retentionText() throws {
        #expect(CandleRetention.standard.description == "1m=3d,5m=30d,1h=2y,1d=20y")
        let parsed = try CandleRetention(parsing: "1m=90m, 1d=none,1h=2y")
        #expect(parsed.seconds(.oneMinute) == Int64(5_400) && parsed.seconds(.oneDay) == nil && parsed.seconds(.oneHour) == Int64(2 * 365 * 86_400))
        #expect(parsed.seconds(.fiveMinutes) == Int64(30 * 86_400))
        #expect(throws: CandleRetentionError(text: "2m=1d", reason: "expected INTERVAL=SPAN with INTERVAL one of 1m, 5m, 1h, 1d")) {
            try CandleRetention(parsing: "2m=1d")
        }
        #expect(throws: CandleRetentionError(text: "1m=-3d", reason: "expected a span such as 90m, 36h, 3d, 2y or none")) {
            try CandleRetention(parsing: "1m=-3d")
        }
    }

    /// More than maxCandles in a span is a clear error, not a huge answer.
    @Test func tooManyCandlesIsAnError() async throws {
        let store = try CandleStore.inMemory(retention: CandleRetention([:]))
        _ = try await store.save((0...CandleStore.maxCandles).map { candle(.oneMinute, at: $0 * 60) })
        await #expect(throws: CandleStoreError.self) { try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute)) }
        #expect(try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute, start: tenOClock.addingTimeInterval(60)))?.candles.count
            == CandleStore.maxCandles)
    }
}
