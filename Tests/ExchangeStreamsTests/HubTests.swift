import Bus
import BusContract
import Foundation
import Market
import Money
import RatesFetcherCore
import Testing
import TickwireContract
import TickwireFeeds
import ZeroMQ
@testable import ExchangeStreams

/// End to end through rates-fetcher's feed hub in process: the `test` client's recorded Kraken session, through a
/// local websocket server, an ExchangeFeed and a FeedConnection, republished by the hub as books, trades and quotes.
@Suite(.serialized) struct HubTests {
    @Test func recordedKrakenSessionThroughTheHub() async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "rates-fetcher", endpoints: ["inproc://exchange-hub-\(UUID())"], logger: testLogger)
        let hub = IngestHub(publisher: publisher, reserved: ["bitso", "coingecko", "rates-fetcher"], logger: testLogger)
        let endpoint = "ipc://\(FileManager.default.temporaryDirectory.path)/tickwire-exchange-\(UUID().uuidString.prefix(8))"
        let ingest = try IngestEndpoint(binding: endpoint, hub: hub, context: context, keys: nil, service: "rates-fetcher", logger: testLogger)
        let serving = Task { await ingest.run() }
        let session = try ExchangeFixtures.krakenSession()
        let server = try await ReplayServer.start(logger: testLogger) { _ in [.pause(.milliseconds(1))] + session.map(ReplayStep.send) }
        let connection = try FeedConnection(context: context, name: "kraken-ws", endpoint: endpoint, logger: testLogger)
        let connecting = Task { try await connection.run() }
        #expect(await connection.waitForHub(within: .seconds(30)))
        let feed = try ExchangeFeed.kraken(
            client: .test(url: server.url, logger: testLogger), sink: .connection(connection),
            markets: [MarketPair(base: "ALGO", quote: "USD"), MarketPair(base: "BTC", quote: "USDT")], settings: testSettings, logger: testLogger)
        let arrived = try await running(feed) {
            await eventually {
                publisher.snapshot(prefix: "trade.kraken-ws.").entries.count == 1 && publisher.snapshot(prefix: "quote.kraken-ws.").entries.count == 2
            }
        }
        #expect(arrived)
        func last<T: Codable & Sendable>(_ topic: String, _ type: T.Type) throws -> T {
            let entry = try #require(publisher.snapshot(prefix: topic).entries.first { $0.topic.rawValue == topic })
            return try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8)).decode(T.self).data
        }
        let book = try last("book.kraken-ws.ALGO-USD", BookDepth.self)
        #expect(book.sequence == 2)
        #expect(book.bids[6] == BookLevel(price: try ExactDecimal("0.12275"), size: try ExactDecimal("6597.51731160")))
        #expect(try last("trade.kraken-ws.BTC-USDT", MarketTrade.self).id == "9622658")
        let quote = try last("quote.kraken-ws.ALGO-USD", Quote.self)
        #expect(quote.last == (try ExactDecimal("0.10035")))
        #expect(quote.bid == (try ExactDecimal("0.12291")))
        let status = try #require(hub.statuses.first { $0.feed == "kraken-ws" })
        #expect(status.refused?.values.reduce(0, +) ?? 0 == 0, "nothing refused: \(status.refused ?? [:])")
        await server.stop()
        connecting.cancel()
        await connection.close()
        await ingest.close()
        serving.cancel()
        await serving.value
        await publisher.close()
    }
}
