import Bus
import BusContract
import Foundation
import Market
import TickwireContract
import Testing
import ZeroMQ

@Suite("replay end to end", .serialized)
struct ReplayDeterminismTests {
    /// The shipped capture replayed at full speed into two fresh stacks (rates-fetcher --feeds none, a converter
    /// ranking the capture's feeds) gives the converter the same `price.*` data in the same order (times aside), and
    /// the hub the same closed 1-minute candles of every traded market.
    @Test func fullSpeedReplaysGiveIdenticalPricesAndCandles() async throws {
        let capture = try CaptureFile()
        try #require(!capture.feedNames.isEmpty)
        async let first = replayed(capture)
        async let second = replayed(capture)
        let (one, two) = try await (first, second)
        #expect(one.prices.count > 20, "the capture gives the converter prices")
        #expect(one.prices.count == two.prices.count)
        if let difference = zip(one.prices, two.prices).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("price \(difference.offset) differs: \(difference.element.0) vs \(difference.element.1)")
        }
        #expect(one.candles.count >= 4, "the capture's 5.5 minutes of trades close 1-minute candles")
        #expect(one.candles == two.candles)
    }

    /// One fresh stack, the capture replayed into it at full speed: every `price.*` message the converter published,
    /// as `topic data` with the quote's time taken out, and the hub's closed 1-minute candles of each market the capture
    /// has trades of.
    private func replayed(_ capture: CaptureFile) async throws -> (prices: [String], candles: [Candle]) {
        return try await ReplayStack(capture: capture).use { stack in
            let prices = try OwnedSocket(context: stack.context, type: .sub, name: "prices", receiveBuffer: 1_000_000) { socket in
                try socket.subscribe("price.")
                try socket.subscribe("heartbeat.")
                try socket.connect(stack.endpoints.converterPub)
            }
            // Connected once the converter's heartbeat comes through.
            _ = await prices.incoming.first(within: .seconds(10)) { String(decoding: $0[0], as: UTF8.self).hasPrefix("heartbeat.") }
            // The replay keeps its feeds live (heartbeats) until the stack stops: a feed that went quiet after the capture's
            // end would turn stale, then gone, at a moment of the wall clock and not of the capture, and the converter would
            // re-price or retract on it.
            try await stack.playAndHold()
            var seen: [String] = []
            // The hub has republished the whole capture; what the converter still has to publish comes within 2 s.
            while let frames = await prices.incoming.first(within: .seconds(2), where: { String(decoding: $0[0], as: UTF8.self).hasPrefix("price.") }) {
                let topic = String(decoding: frames[0], as: UTF8.self)
                guard var price = try Wire.decode(Envelope<AssetPrice?>.self, from: frames[1]).data else {
                    seen.append("\(topic) retracted")
                    continue
                }
                price.quoteTime = nil
                seen.append("\(topic) \(String(decoding: try Wire.encode(price), as: UTF8.self))")
            }
            await prices.close()
            // The candles a later minute's trade closed; the market's last one closes on the wall clock once it is quiet
            // (a moment that differs between the stacks), so it is left out.
            var candles: [Candle] = []
            let newest = Dictionary(try capture.data(under: "trade.", as: MarketTrade.self).map { ($0.topic, $0.data.time) }, uniquingKeysWith: max)
            for (topic, time) in newest.sorted(by: { $0.key < $1.key }) {
                let parts = topic.split(separator: ".", maxSplits: 2).map(String.init)
                let request = CandlesRequest(market: parts[2], interval: .oneMinute, source: parts[1])
                if let series = try? await stack.fetcherRPC.call("candles", params: request, as: CandleSeries.self) {
                    candles += series.candles.filter { $0.start.addingTimeInterval(60) <= time }
                }
            }
            return (seen, candles)
        }
    }
}
