import Bus
import Foundation
import Logging
import Testing
import TickwireContract
import ZeroMQ
import BusContract

/// Keeps what a converter price subscriber has seen: each topic's last value, and the topics retracted.
private actor PriceWatcher {
    var held: Set<String> = []
    var updated: [String: Date] = [:]
    var retracted: Set<String> = []

    /// Forgets the retractions seen so far (a restarted rates-fetcher's first snapshot may lack a coin for a moment).
    func forgetRetractions() { retracted = [] }

    func apply(_ event: SubscriberEvent) {
        switch event {
        case .snapshot(_, _, let messages):
            held = Set(messages.map(\.topic.rawValue))
        case .message(let message) where message.isRetraction:
            held.remove(message.topic.rawValue)
            retracted.insert(message.topic.rawValue)
        case .message(let message):
            held.insert(message.topic.rawValue)
            updated[message.topic.rawValue] = message.header.time
        case .unavailable:
            break
        }
    }
}

@Suite("Coins added and removed at run time, end to end", .serialized)
struct CoinListEndToEndTests {
    /// `coins.add` by symbol prices the coin within seconds, the coin list outlives a restart of rates-fetcher, and
    /// `coins.remove` retracts the converter's price topic.
    @Test func addRestartRemove() async throws {
        let endpoints = try Endpoints()
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + [
            "--feeds", "mock", "--seed", "7", "--coins", "bitcoin",
        ], in: endpoints.directory)
        let converter = try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory)
        let context = try ZMQContext()
        let fetcherRPC = try client(context, endpoints.fetcherRep)
        let converterRPC = try client(context, endpoints.converterRep)
        defer {
            Task {
                await fetcherRPC.close()
                await converterRPC.close()
                for service in [converter, fetcher] { await service.stop() }
            }
        }
        try await waitUntilHealthy(fetcherRPC, fetcher)
        try await waitUntilHealthy(converterRPC, converter)

        let watcher = PriceWatcher()
        let subscriber = try Subscriber(
            context: context, name: "coins-e2e", endpoint: endpoints.converterPub, prefixes: ["price.DOT."],
            snapshot: { try await converterRPC.call(StandardAPI.snapshot, SnapshotRequest(prefix: $0)) }, logger: Logger(label: "test"))
        let following = [Task { await subscriber.run() }, Task { for await event in subscriber.events { await watcher.apply(event) } }]
        defer { following.forEach { $0.cancel() } }

        let added = try await fetcherRPC.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "DOT"))
        #expect(added.changed && added.coin.id == "polkadot" && added.coins.map(\.id) == ["bitcoin", "polkadot"])
        #expect(await eventually(within: .seconds(10)) { await watcher.held.contains("price.DOT.USD") }, "price.DOT.USD within seconds")
        let saved = try String(contentsOf: endpoints.directory.appendingPathComponent("coins.json"), encoding: .utf8)
        #expect(saved.contains("\"polkadot\""))

        // Restarted with the same state folder (and the same --coins), it still tracks and prices polkadot.
        await fetcher.stop()
        let restarted = Date()
        try await fetcher.restart()
        try await waitUntilHealthy(fetcherRPC, fetcher)
        #expect(try await fetcherRPC.call(RatesFetcherAPI.listCoins).map(\.id) == ["bitcoin", "polkadot"])
        #expect(try await eventually(within: .seconds(10)) {
            try await fetcherRPC.call(StandardAPI.snapshot, SnapshotRequest(prefix: "quote.coingecko.DOT-")).entries.count == 1
        })
        #expect(await eventually(within: .seconds(15)) { await (watcher.updated["price.DOT.USD"] ?? .distantPast) > restarted },
                "a price of DOT published after the restart")

        #expect(await eventually(within: .seconds(10)) { await watcher.held.contains("price.DOT.USD") })
        await watcher.forgetRetractions()
        let removed = try await fetcherRPC.call(RatesFetcherAPI.removeCoin, CoinRequest(coin: "polkadot"))
        #expect(removed.changed && removed.coins.map(\.id) == ["bitcoin"])
        #expect(await eventually(within: .seconds(10)) { await watcher.retracted.contains("price.DOT.USD") }, "price.DOT.USD retracted")
        #expect(await watcher.held.isEmpty)
        #expect(try await converterRPC.call(StandardAPI.snapshot, SnapshotRequest(prefix: "price.DOT.")).entries.isEmpty)
        #expect(try await fetcherRPC.call(StandardAPI.snapshot, SnapshotRequest(prefix: "coin.coingecko.DOT")).entries.isEmpty)
    }
}
