import Bus
import BusContract
import Foundation
import Market
import TickwireContract
import Testing
import ZeroMQ

@Suite("tickwire-feed end to end", .serialized)
struct FeedPluginEndToEndTests {
    /// `tickwire-feed bitso --name bitso2 --variant mock` against rates-fetcher's ingest endpoint: the hub republishes its
    /// quotes under bitso2 and lists it live in `feeds`; the same feed under its built-in name is refused as reserved.
    @Test func builtInFeedRunsAsAPluginUnderItsOwnName() async throws {
        let endpoints = try Endpoints()
        let ingest = "ipc://\(endpoints.directory.path)/fetcher-ingest"
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "mock"], in: endpoints.directory)
        let converter = try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory)
        let context = try ZMQContext()
        let fetcherRPC = try client(context, endpoints.fetcherRep)
        try await waitUntilHealthy(fetcherRPC, fetcher)
        let plugin = try await ServiceProcess(
            "tickwire-feed", ["bitso", "--name", "bitso2", "--variant", "mock", "--ingest", ingest], in: endpoints.directory)
        let reserved = try await ServiceProcess("tickwire-feed", ["bitso", "--variant", "mock", "--ingest", ingest], in: endpoints.directory)

        let republished = try await eventually(within: .seconds(20)) {
            try await fetcherRPC.call("snapshot", params: SnapshotRequest(prefix: "quote.bitso2."), as: Snapshot.self).entries.count > 1
        }
        #expect(republished, "no quote.bitso2. on the hub's stream; tickwire-feed's log:\n\(plugin.log.suffix(2000))")
        let snapshot = try await fetcherRPC.call("snapshot", params: SnapshotRequest(prefix: "quote.bitso2.BTC-MXN"), as: Snapshot.self)
        let entry = try #require(snapshot.entries.first)
        let message = try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8))
        #expect(message.header.source == "bitso2")
        let quote = try message.decode(Quote.self).data
        #expect(quote.market == MarketPair(base: "BTC", quote: "MXN"))
        #expect(quote.source == "bitso2")
        #expect(quote.last > .zero)

        let feeds = try await fetcherRPC.call("feeds", as: [FeedStatus].self)
        let listed = try #require(feeds.first { $0.feed == "bitso2" }, "feeds: \(feeds.map(\.feed))")
        #expect(listed.state == .live)
        #expect(listed.kind == .plugin)
        #expect((listed.accepted ?? 0) > 1)
        let refusedAsReserved = try await eventually(within: .seconds(10)) {
            let bitso = try await fetcherRPC.call("feeds", as: [FeedStatus].self).first { $0.feed == "bitso" }
            return (bitso?.refused?["reserved"] ?? 0) > 0
        }
        #expect(refusedAsReserved, "the built-in name bitso is refused as reserved")

        await fetcherRPC.close()
        #expect(await reserved.stop() == 0)
        #expect(await plugin.stop() == 0, "tickwire-feed exits cleanly on SIGTERM")
        #expect(await converter.stop() == 0)
        #expect(await fetcher.stop() == 0)
    }
}
