import Bus
import BusContract
import Foundation
import Logging
import Market
import Money
import RatesFetcherCore
import TickwireContract
import TickwireFeeds
import Testing
import ZeroMQ

@Suite("FeedConnection against rates-fetcher's hub", .serialized)
struct RealHubTests {
    let logger = Logger(label: "test")

    /// The hub in process (IngestHub behind its IngestEndpoint on an ipc endpoint, `reserved` names refused, `keys` if
    /// given) for `body`, which gets its publisher, the hub and the endpoint; everything closed after.
    func withHub(
        reserved: Set<String>, keys: KeyDirectory? = nil, _ name: String,
        _ body: (ZMQContext, Publisher, IngestHub, String) async throws -> Void
    ) async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "rates-fetcher", endpoints: ["inproc://feeds-hub-\(UUID())"], logger: logger)
        let hub = IngestHub(publisher: publisher, reserved: reserved, logger: logger)
        let endpoint = ipcEndpoint(name)
        let ingest = try IngestEndpoint(binding: endpoint, hub: hub, context: context, keys: keys, service: "rates-fetcher", logger: logger)
        let serving = Task { await ingest.run() }
        do {
            try await body(context, publisher, hub, endpoint)
        } catch {
            await ingest.close()
            serving.cancel()
            await publisher.close()
            throw error
        }
        await ingest.close()
        serving.cancel()
        await serving.value
        await publisher.close()
    }

    /// Runs `connections` for `body`, then stops them.
    func running(_ connections: [FeedConnection], _ body: () async throws -> Void) async throws {
        let tasks = connections.map { connection in Task { try await connection.run() } }
        try await body()
        for task in tasks { task.cancel() }
        for task in tasks { try await task.value }
    }

    /// The hub in process (IngestHub behind its IngestEndpoint): a FeedConnection's quote is republished on the hub's
    /// stream under the plugin's name, and the plugin is listed live, with what was accepted; its heartbeats are not
    /// republished.
    @Test func hubRepublishesAndListsTheFeedLive() async throws {
        try await withHub(reserved: ["bitso", "coingecko", "rates-fetcher"], "hub") { context, publisher, hub, endpoint in
            let connection = try FeedConnection(context: context, name: "kraken", endpoint: endpoint, logger: logger)
            try await running([connection]) {
                #expect(await connection.waitForHub(within: .seconds(30)))
                let topic = try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD"))
                try connection.publish(try xmr("116.41"), on: topic)
                try connection.publish(CoinInfo(id: "monero", symbol: "XMR", name: "Monero", image: ""), on: try Topics.coin(feed: "kraken", symbol: "XMR"))
                let republished = await waitFor { publisher.snapshot(prefix: "coin.kraken.").entries.count == 1 }
                #expect(republished)
                let entry = try #require(publisher.snapshot(prefix: "quote.kraken.").entries.first)
                let message = try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8))
                #expect(message.topic.rawValue == "quote.kraken.XMR-USD")
                #expect(message.header.source == "kraken")
                #expect(try message.decode(Quote.self).data.last == (try ExactDecimal("116.41")))
                #expect(publisher.snapshot(prefix: "heartbeat.").entries.isEmpty, "heartbeats are not republished")
                let status = try #require(hub.statuses.first { $0.feed == "kraken" })
                #expect(status.state == .live)
                #expect(status.kind == .plugin)
                #expect((status.accepted ?? 0) >= 2)
                #expect(status.refused?.values.reduce(0, +) ?? 0 == 0, "nothing refused: \(status.refused ?? [:])")
            }
        }
    }

    /// A built-in feed's name is reserved: the hub refuses what a connection under it sends, and counts it.
    @Test func aBuiltInNameIsRefusedAsReserved() async throws {
        try await withHub(reserved: ["bitso"], "reserved") { context, publisher, hub, endpoint in
            let connection = try FeedConnection(context: context, name: "bitso", endpoint: endpoint, logger: logger)
            try await running([connection]) {
                #expect(await connection.waitForHub(within: .seconds(30)))
                let market = MarketPair(base: "BTC", quote: "MXN")
                try connection.publish(Quote(source: "bitso", market: market, last: 1_500_000), on: try Topics.quote(feed: "bitso", market: market))
                let refused = await waitFor { (hub.refusals(ofReserved: "bitso")?["reserved"] ?? 0) >= 1 }
                #expect(refused, "refusals: \(hub.refusals(ofReserved: "bitso") ?? [:])")
                #expect(publisher.snapshot(prefix: "quote.bitso.").entries.isEmpty)
            }
        }
    }

    /// With keys, a FeedConnection holding a writer's certificate and the hub's public key feeds the hub (its name then
    /// the key's); one whose key is only in `public/` never gets past the handshake, so the hub never subscribes.
    @Test func curveClientKeysOfAWriterFeedTheHub() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-feeds-keys-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try KeyDirectory.generate(at: folder, services: ["rates-fetcher"], clients: ["kraken", "reader"], writers: ["kraken"])
        let keys = try KeyDirectory(folder)
        try await withHub(reserved: ["rates-fetcher"], keys: keys, "keys") { context, publisher, _, endpoint in
            let writer = try FeedConnection(
                context: context, name: "kraken", endpoint: endpoint, security: try keys.clientSecurity("kraken", connectingTo: "rates-fetcher"),
                logger: logger)
            let reader = try FeedConnection(
                context: context, name: "reader", endpoint: endpoint, security: try keys.clientSecurity("reader", connectingTo: "rates-fetcher"),
                logger: logger)
            try await running([writer, reader]) {
                #expect(await writer.waitForHub(within: .seconds(30)))
                try writer.publish(try xmr("116.41"), on: try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD")))
                let republished = await waitFor { !publisher.snapshot(prefix: "quote.kraken.").entries.isEmpty }
                #expect(republished)
                #expect(!(await reader.waitForHub(within: .seconds(1))), "a key that is not a writer's is refused at the handshake")
            }
        }
    }
}
