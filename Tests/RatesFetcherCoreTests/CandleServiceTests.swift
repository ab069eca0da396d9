import Bus
import BusContract
import Candles
import Foundation
import Market
import Money
@testable import RatesFetcherCore
import TickwireContract
import Synchronization
import Testing

@Suite("Candles of the hub's stream")
struct CandleServiceTests {
    /// 2026-11-26 10:00:00 UTC.
    static let ten = Date(timeIntervalSince1970: 1_795_687_200)
    let btcMXN = MarketPair(base: "BTC", quote: "MXN")

    /// What the hub publishes on trade.* (and quote.*) makes candles: a later minute's trade closes the first minute, a
    /// tick past its end the second; each closed candle is published on
    /// `candle.<interval>.<feed>.<market>` and stored, and `candles` answers them exactly; bad requests are clear errors.
    @Test func tradesOnTheStreamMakeCandles() async throws {
        let bus = try TestPublisher()
        let store = try CandleStore.inMemory()
        let now = Mutex(Self.ten.addingTimeInterval(66))
        let service = try CandleService(
            following: bus.publisher.endpoints[0], context: bus.context, publisher: bus.publisher, store: store,
            tickInterval: .milliseconds(20), clock: { now.withLock { $0 } }, logger: quietLogger)
        let running = Task { await service.run() }
        defer { running.cancel() }

        // A quote of long ago's day is closed by one of the next day: once it is stored, the service follows the stream.
        let probeMarket = MarketPair(base: "ZZZ", quote: "USD")
        let followed = await eventually {
            for day in [0.0, 1] {
                let probe = Quote(source: "probe", market: probeMarket, last: 1, time: Date(timeIntervalSince1970: day * 86_400))
                try bus.publisher.publish(probe, on: Topics.quote(feed: "probe", market: probeMarket))
            }
            return try await store.candles(CandleQuery(market: probeMarket, interval: .oneDay)) != nil
        }
        try #require(followed)

        for (seconds, price, size) in [(1.5, "1200000.10", "0.5"), (30, "1200100.5", "0.25"), (59, "1199999.99", "0.00000001"), (65, "1200001", "2")] {
            let trade = MarketTrade(
                source: "bitso-ws", market: btcMXN, id: "\(seconds)", price: try ExactDecimal(price), size: try ExactDecimal(size),
                side: .sell, time: Self.ten.addingTimeInterval(seconds))
            try bus.publisher.publish(trade, on: Topics.trade(feed: "bitso-ws", market: btcMXN))
        }
        // The trade of 10:01:05 closes 10:00; a tick past 10:02:02 the next minute.
        try #require(await eventually { try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute))?.candles.count == 1 })
        now.withLock { $0 = Self.ten.addingTimeInterval(123) }
        let closed = await eventually { try await store.candles(CandleQuery(market: btcMXN, interval: .oneMinute))?.candles.count == 2 }
        try #require(closed)
        let series = try await store.answer(CandlesRequest(market: "BTC-MXN", interval: .oneMinute))
        #expect(series.source == "bitso-ws")
        #expect(series.candles == [
            Candle(source: "bitso-ws", market: btcMXN, interval: .oneMinute, start: Self.ten,
                   open: try ExactDecimal("1200000.10"), high: try ExactDecimal("1200100.5"), low: try ExactDecimal("1199999.99"),
                   close: try ExactDecimal("1199999.99"), volume: try ExactDecimal("0.75000001"), count: 3),
            Candle(source: "bitso-ws", market: btcMXN, interval: .oneMinute, start: Self.ten.addingTimeInterval(60),
                   open: try ExactDecimal("1200001"), high: try ExactDecimal("1200001"), low: try ExactDecimal("1200001"),
                   close: try ExactDecimal("1200001"), volume: try ExactDecimal("2"), count: 1),
        ])
        let published = try #require(try bus.envelope("candle.1m.bitso-ws.BTC-MXN", as: Candle.self))
        #expect(published.data == series.candles.last && published.seq == 2)
        #expect(published.source == "bitso-ws", "a candle's envelope names its feed, not its interval")
        #expect(bus.topics("candle.5m.bitso-ws").isEmpty, "the 5 minutes have not ended")

        var methods = RPCMethods()
        CandleService.register(store, in: &methods)
        let rpc = LocalRPC(methods)
        #expect(try await rpc.call(RatesFetcherAPI.candles, CandlesRequest(market: "BTC-MXN", interval: .oneMinute, start: Self.ten.addingTimeInterval(60))).candles.count == 1)
        let unknown = await rpcError { try await rpc.call(RatesFetcherAPI.candles, CandlesRequest(market: "ETH-MXN", interval: .oneMinute)) }
        #expect(unknown == RPCError.notFound("no closed 1m candle of ETH-MXN is stored: none has closed yet, or the hub has seen no trade or quote of it"))
        let malformed = await rpcError { try await rpc.call(RatesFetcherAPI.candles, CandlesRequest(market: "BTCMXN", interval: .oneMinute)) }
        #expect(malformed?.code == RPCError.Code.invalidParams)
        let backwards = await rpcError {
            try await rpc.call(RatesFetcherAPI.candles, CandlesRequest(market: "BTC-MXN", interval: .oneMinute, start: Self.ten, end: Self.ten.addingTimeInterval(-60)))
        }
        #expect(backwards?.message == "invalid params: the span ends (2026-11-26T09:59:00Z) before it starts (2026-11-26T10:00:00Z)")
        await service.close()
        await bus.close()
    }

    /// A candle builder that falls behind loses what is past its queue, counted, and never holds up the publisher.
    @Test func aFullQueueDropsAndCounts() async throws {
        let bus = try TestPublisher()
        let service = try CandleService(
            following: bus.publisher.endpoints[0], context: bus.context, publisher: bus.publisher, store: CandleStore.failing,
            queueLimit: 10, logger: quietLogger)
        // Not running: nothing takes from the queue.
        let trade = MarketTrade(source: "bitso-ws", market: btcMXN, id: "1", price: 1, size: 1, time: Self.ten)
        let dropped = await eventually {
            for _ in 0..<100 { try bus.publisher.publish(trade, on: Topics.trade(feed: "bitso-ws", market: btcMXN)) }
            return service.dropped > 0
        }
        #expect(dropped)
        #expect(bus.publisher.droppedMessages == 0, "the hub's own stream lost nothing")
        await service.close()
        await bus.close()
    }
}

/// Whether `condition` holds within 30 s, asked every 20 ms (a subscription's first message can take seconds while
/// hundreds of tests share two cores; no speed is asserted).
func eventually(_ condition: () async throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + .seconds(30)
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return false
}
