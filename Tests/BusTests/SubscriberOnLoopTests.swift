@testable import Bus
import Foundation
import Synchronization
import Testing
import ZeroMQ
import BusContract

/// Subscribers whose socket is read by a ``ServiceLoop`` and whose tasks prefer it, as the converter's follows
/// rates-fetcher: the same Clone pattern as ``PubSubTests``, on one thread.
@Suite("Subscriber on a service loop")
struct SubscriberOnLoopTests {
    /// Follows `subscriber` into `replica` from a task that prefers `loop`, noting whether each event was taken on it.
    func follow(_ subscriber: Subscriber, into replica: Replica, on loop: ServiceLoop, offLoop: OffLoop) -> [Task<Void, Never>] {
        [
            Task { await subscriber.run() },
            Task(executorPreference: loop) {
                for await event in subscriber.events {
                    offLoop.check(loop)
                    try? await replica.apply(event)
                }
            },
        ]
    }

    /// A late joiner on a loop, its snapshots fetched through an RPC client on the same loop from a server on another,
    /// converges to the publisher's values; its snapshot fetches and its reader run on the loop thread.
    @Test func lateJoinerConvergesThroughSnapshot() async throws {
        let context = try ZMQContext()
        let serverLoop = try ServiceLoop(name: "feed")
        let loop = try ServiceLoop(name: "subscriber")
        let publisher = try Publisher(context: context, service: "feed", endpoints: ["tcp://127.0.0.1:*"], heartbeatInterval: .milliseconds(100), logger: testLogger)
        let pub = try await publisher.boundEndpoint()
        var methods = RPCMethods()
        methods.register(StandardAPI.snapshot) { [publisher] in publisher.snapshot(prefix: $0.prefix) }
        let rep = ipcEndpoint()
        let server = try RPCServer(context: context, service: "feed", endpoints: [rep], methods: methods, logger: testLogger, loop: serverLoop)
        let serving: [Task<Void, Never>] = [Task { try? await publisher.run() }, Task { await server.run() }]
        let topics = try ["BTC", "ETH", "XRP"].map { try Topic("quote.test.\($0)-USD") }
        for round in 1...20 {
            for topic in topics { try publisher.publish(Price(symbol: topic.rawValue, price: "\(round)"), on: topic) }
        }

        let client = try RPCClient(context: context, endpoint: rep, timeout: .seconds(5), retries: 0, loop: loop)
        let fetchedOffLoop = OffLoop(), fetched = Atomic<Int>(0)
        let subscriber = try Subscriber(
            context: context, name: "test", endpoint: pub, prefixes: ["quote."], heartbeatTimeout: .seconds(3),
            snapshot: { prefix in
                fetched.add(1, ordering: .relaxed)
                fetchedOffLoop.check(loop)
                let snapshot = try await client.call(StandardAPI.snapshot, SnapshotRequest(prefix: prefix))
                fetchedOffLoop.check(loop)
                return snapshot
            },
            logger: testLogger, loop: loop)
        let replica = Replica()
        let offLoop = OffLoop()
        let tasks = follow(subscriber, into: replica, on: loop, offLoop: offLoop)
        #expect(await replica.wait(for: .seconds(20)) { $0.count == 3 && $0.values.allSatisfy { $0 == "20" } })
        for round in 21...30 {
            for topic in topics { try publisher.publish(Price(symbol: topic.rawValue, price: "\(round)"), on: topic) }
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(await replica.wait(for: .seconds(20)) { $0 == Dictionary(uniqueKeysWithValues: topics.map { ($0.rawValue, "30") }) })
        #expect(await replica.snapshots >= 1)
        #expect(fetched.load(ordering: .relaxed) == (await replica.snapshots))
        #expect(fetchedOffLoop.count == 0, "the snapshot was fetched off the loop thread")
        #expect(offLoop.count == 0, "an event was read off the loop thread")

        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
        serving.forEach { $0.cancel() }
        for task in serving { await task.value }
        await client.close()
        await loop.shutdown()
        await serverLoop.shutdown()
    }

    /// A gap on the wire makes a subscriber on a loop fetch a new snapshot; garbage is skipped; what comes after the
    /// new snapshot is taken in from it.
    @Test func gapTriggersResynchronisation() async throws {
        let context = try ZMQContext()
        let loop = try ServiceLoop(name: "subscriber")
        let address = ipcEndpoint()
        let raw = try OwnedSocket(context: context, type: .pub, name: "raw") { try $0.bind(address) }
        let snapshotCalls = Atomic<Int>(0)
        let subscriber = try Subscriber(
            context: context, name: "test", endpoint: address, prefixes: ["quote."], heartbeatTimeout: .seconds(3_600),
            snapshot: { _ in
                snapshotCalls.add(1, ordering: .relaxed)
                return Snapshot(publisher: "raw", instance: "one", entries: [])
            }, logger: testLogger, loop: loop)
        let replica = Replica()
        let offLoop = OffLoop()
        let tasks = follow(subscriber, into: replica, on: loop, offLoop: offLoop)
        func send(_ seq: Int, _ price: String, of symbol: String = "BTC") {
            raw.post([Data("quote.raw.\(symbol)-USD".utf8),
                      Data(#"{"type":"quote","seq":\#(seq),"time":"2026-11-23T10:15:30.123Z","source":"raw","data":{"symbol":"\#(symbol)","price":"\#(price)"}}"#.utf8)])
        }
        #expect(await heartbeating(raw) { snapshotCalls.load(ordering: .relaxed) == 1 })
        try await Task.sleep(for: .milliseconds(200))
        raw.post([Data("quote.raw.BTC-USD".utf8), Data("{garbage".utf8)])
        raw.post([Data("quote.raw.BTC-USD".utf8)])
        send(1, "1")
        #expect(await replica.wait { $0["quote.raw.BTC-USD"] == "1" })
        send(3, "3")
        #expect(await wait { snapshotCalls.load(ordering: .relaxed) == 2 })
        #expect(await replica.wait { $0.isEmpty }, "the new snapshot, empty, replaces the values")
        // The new snapshot holds nothing: a topic's first message is the next one expected.
        send(1, "10", of: "ETH")
        #expect(await replica.wait { $0 == ["quote.raw.ETH-USD": "10"] })
        #expect(offLoop.count == 0, "an event was read off the loop thread")
        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
        await raw.close()
        await loop.shutdown()
    }

    /// A publisher that goes silent is reported by a subscriber on a loop (its heartbeat check's clock runs there too).
    @Test func silentPublisherIsReported() async throws {
        let context = try ZMQContext()
        let loop = try ServiceLoop(name: "subscriber")
        let service = try await PublishingService(context: context, heartbeat: .milliseconds(100))
        let client = try RPCClient(context: context, endpoint: service.rpcEndpoint, timeout: .milliseconds(500), retries: 0, loop: loop)
        let subscriber = try Subscriber(
            context: context, name: "test", endpoint: service.pubEndpoint, prefixes: ["quote."], heartbeatTimeout: .milliseconds(300),
            snapshot: { try await client.call(StandardAPI.snapshot, SnapshotRequest(prefix: $0)) }, logger: testLogger, loop: loop)
        let replica = Replica()
        let offLoop = OffLoop()
        let tasks = follow(subscriber, into: replica, on: loop, offLoop: offLoop)
        #expect(await wait { await replica.snapshots == 1 })
        service.stop()
        await service.publisher.close()
        #expect(await wait(for: .seconds(5)) { await !replica.unavailable.isEmpty })
        #expect(await replica.unavailable.first?.contains("no heartbeat from \(service.pubEndpoint)") == true)
        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
        await client.close()
        await loop.shutdown()
    }
}

/// Counts the times code that should run on a loop's thread ran elsewhere.
final class OffLoop: Sendable {
    private let counted = Atomic<Int>(0)

    /// Counts one if the caller is not on `loop`'s thread.
    func check(_ loop: ServiceLoop) {
        if !loop.isCurrent { counted.add(1, ordering: .relaxed) }
    }

    /// The times counted.
    var count: Int { counted.load(ordering: .relaxed) }
}
