@testable import Bus
import Foundation
import Logging
import Synchronization
import Testing
import ZeroMQ
import BusContract

/// A publisher with its snapshot served over JSON-RPC, as services run it.
struct PublishingService {
    let publisher: Publisher
    let server: RPCServer
    let pubEndpoint: String
    let rpcEndpoint: String
    let tasks: [Task<Void, Never>]

    /// Binds `pubEndpoint` (a free loopback port by default) and `rpcEndpoint` (a fresh ipc path by default).
    init(
        context: ZMQContext, heartbeat: Duration = .milliseconds(200),
        pubEndpoint: String = "tcp://127.0.0.1:*", rpcEndpoint: String = ipcEndpoint(), maxRetracted: Int = 10_000
    ) async throws {
        publisher = try Publisher(
            context: context, service: "feed", endpoints: [pubEndpoint], heartbeatInterval: heartbeat, maxRetracted: maxRetracted, logger: testLogger)
        self.pubEndpoint = try await publisher.boundEndpoint()
        var methods = RPCMethods()
        methods.register(StandardAPI.snapshot) { [publisher] in publisher.snapshot(prefix: $0.prefix) }
        self.rpcEndpoint = rpcEndpoint
        server = try RPCServer(context: context, service: "feed", endpoints: [rpcEndpoint], methods: methods, logger: testLogger)
        let publisher = publisher, server = server
        tasks = [Task { try? await publisher.run() }, Task { await server.run() }]
    }

    func subscriber(context: ZMQContext, prefixes: [String], heartbeatTimeout: Duration = .seconds(3)) throws -> Subscriber {
        let client = try RPCClient(context: context, endpoint: rpcEndpoint, timeout: .milliseconds(500), retries: 0)
        return try Subscriber(
            context: context, name: "test", endpoint: pubEndpoint, prefixes: prefixes, heartbeatTimeout: heartbeatTimeout,
            snapshot: { try await client.call(StandardAPI.snapshot, SnapshotRequest(prefix: $0)) },
            logger: testLogger)
    }

    func stop() { tasks.forEach { $0.cancel() } }
}

/// Applies subscriber events to a last-value map, as a consumer would.
actor Replica {
    var values: [String: String] = [:]
    var snapshots = 0
    var unavailable: [String] = []

    func apply(_ event: SubscriberEvent) throws {
        switch event {
        case .snapshot(_, _, let messages):
            snapshots += 1
            values = [:]
            for message in messages { values[message.topic.rawValue] = try message.decode(Price.self).data.price }
        case .message(let message):
            values[message.topic.rawValue] = try message.decode(Price.self).data.price
        case .unavailable(let reason):
            unavailable.append(reason)
        }
    }

    /// Waits until `condition` holds on the values, for at most `timeout`.
    func wait(for timeout: Duration = .seconds(10), until condition: ([String: String]) -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(values) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition(values)
    }
}

func follow(_ subscriber: Subscriber, into replica: Replica) -> [Task<Void, Never>] {
    [Task { await subscriber.run() }, Task { for await event in subscriber.events { try? await replica.apply(event) } }]
}

@Suite("Publish/subscribe with snapshots (Clone pattern)")
struct PubSubTests {
    /// A subscriber that joins late ends with the same state as one that was there from the start.
    @Test func lateJoinerConvergesThroughSnapshot() async throws {
        let context = try ZMQContext()
        let service = try await PublishingService(context: context)
        let early = Replica()
        let earlyTasks = follow(try service.subscriber(context: context, prefixes: ["quote."]), into: early)
        #expect(await early.wait { _ in true })
        try await Task.sleep(for: .milliseconds(300))

        func publishRound(_ round: Int) throws {
            for symbol in ["BTC", "ETH", "XRP"] {
                try service.publisher.publish(Price(symbol: symbol, price: "\(round).\(symbol.count)"), on: Topic("quote.test.\(symbol)-USD"))
            }
            try service.publisher.publish(Price(symbol: "EUR", price: "\(round)"), on: Topic("rate.test.EUR-USD"))
        }
        for round in 1...50 { try publishRound(round) }

        let late = Replica()
        let lateTasks = follow(try service.subscriber(context: context, prefixes: ["quote."]), into: late)
        #expect(await late.wait { $0.count == 3 })
        for round in 51...60 {
            try publishRound(round)
            try await Task.sleep(for: .milliseconds(5))
        }
        let expected = ["quote.test.BTC-USD": "60.3", "quote.test.ETH-USD": "60.3", "quote.test.XRP-USD": "60.3"]
        #expect(await late.wait { $0 == expected })
        #expect(await early.wait { $0 == expected })
        #expect(await late.snapshots >= 1)
        (earlyTasks + lateTasks).forEach { $0.cancel() }
        service.stop()
    }

    /// `onlyIfChanged` publishes nothing when the value is the same.
    @Test func unchangedValuesAreNotRepublished() async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "feed", endpoints: [ipcEndpoint()], logger: testLogger)
        let topic = try Topic("quote.test.BTC-USD")
        #expect(try publisher.publish(Price(symbol: "BTC", price: "1"), on: topic, onlyIfChanged: true) == 1)
        #expect(try publisher.publish(Price(symbol: "BTC", price: "1"), on: topic, onlyIfChanged: true) == nil)
        #expect(try publisher.publish(Price(symbol: "BTC", price: "2"), on: topic, onlyIfChanged: true) == 2)
        let snapshot = publisher.snapshot(prefix: "quote.")
        #expect(snapshot.entries.map(\.seq) == [2])
        #expect(publisher.snapshot(prefix: "rate.").entries.isEmpty)
        // Only a value published with `onlyIfChanged` is kept to compare with; a snapshot entry carries the last
        // retained body at the topic's own seq, so a subscriber reset to it takes seq 6 as the next message.
        #expect(try publisher.publish(Price(symbol: "BTC", price: "3"), on: topic) == 3)
        #expect(try publisher.publish(Price(symbol: "BTC", price: "3"), on: topic, onlyIfChanged: true) == 4)
        #expect(try publisher.publish(Price(symbol: "BTC", price: "4"), on: topic, retain: false) == 5)
        let entry = try #require(publisher.snapshot(prefix: "quote.").entries.first)
        #expect(entry.seq == 5)
        #expect(try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8)).decode(Price.self).data == Price(symbol: "BTC", price: "3"))
        await publisher.close()
    }

    /// The tracker applies the next message, drops stale ones and reports gaps.
    @Test func trackerVerdicts() throws {
        func message(_ topic: String, _ seq: UInt64) throws -> BusMessage {
            try BusMessage(topic: topic, body: Data(#"{"type":"q","seq":\#(seq),"time":"2026-11-23T10:15:30.123Z","source":"s","data":{}}"#.utf8))
        }
        var tracker = ReplicaTracker()
        tracker.reset(instance: "a", entries: [.init(topic: try Topic("quote.x.A"), seq: 5, body: "{}")])
        #expect(tracker.check(try message("quote.x.A", 4)) == .stale)
        #expect(tracker.check(try message("quote.x.A", 5)) == .stale)
        #expect(tracker.check(try message("quote.x.A", 6)) == .apply)
        #expect(tracker.check(try message("quote.x.A", 8)) == .gap(expected: 7, received: 8))
        #expect(tracker.check(try message("quote.x.B", 1)) == .apply)
        #expect(tracker.check(try message("quote.x.C", 3)) == .gap(expected: 1, received: 3))
        #expect(tracker.seq(of: try Topic("quote.x.A")) == 6)
    }

    /// A gap on the wire makes the subscriber fetch a new snapshot; garbage is skipped.
    @Test func gapTriggersResynchronisation() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let raw = try OwnedSocket(context: context, type: .pub, name: "raw") { try $0.bind(address) }
        let snapshotCalls = Atomic<Int>(0)
        // The raw publisher sends heartbeats only until the first snapshot: only the gap may make it re-synchronise.
        let subscriber = try Subscriber(
            context: context, name: "test", endpoint: address, prefixes: ["quote."], heartbeatTimeout: .seconds(3_600),
            snapshot: { _ in
                snapshotCalls.add(1, ordering: .relaxed)
                return Snapshot(publisher: "raw", instance: "one", entries: [])
            }, logger: testLogger)
        let replica = Replica()
        let tasks = follow(subscriber, into: replica)
        func send(_ seq: Int, _ price: String) {
            raw.post([Data("quote.raw.BTC-USD".utf8),
                      Data(#"{"type":"quote","seq":\#(seq),"time":"2026-11-23T10:15:30.123Z","source":"raw","data":{"symbol":"BTC","price":"\#(price)"}}"#.utf8)])
        }
        #expect(await heartbeating(raw) { snapshotCalls.load(ordering: .relaxed) == 1 })
        try await Task.sleep(for: .milliseconds(200))
        raw.post([Data("quote.raw.BTC-USD".utf8), Data("{garbage".utf8)])
        raw.post([Data("quote.raw.BTC-USD".utf8)])
        send(1, "1")
        #expect(await replica.wait { $0["quote.raw.BTC-USD"] == "1" })
        send(3, "3")
        #expect(await wait { snapshotCalls.load(ordering: .relaxed) == 2 })
        tasks.forEach { $0.cancel() }
        await raw.close()
    }

    /// A snapshot answered before the publisher has the subscription would miss what is published
    /// until it arrives: the subscriber waits for a heartbeat, which proves the subscription, first.
    @Test func firstSnapshotWaitsForAHeartbeat() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let topic = try Topic("quote.raw.BTC-USD")
        let body = #"{"type":"quote","seq":1,"time":"2026-11-23T10:15:30.123Z","source":"raw","data":{"symbol":"BTC","price":"1"}}"#
        let published = Atomic<Bool>(false)
        let snapshotCalls = Atomic<Int>(0)
        // Nothing is bound at `address` yet, so the SUB socket cannot connect.
        let subscriber = try Subscriber(
            context: context, name: "test", endpoint: address, prefixes: ["quote."], heartbeatTimeout: .seconds(3_600),
            snapshot: { _ in
                snapshotCalls.add(1, ordering: .relaxed)
                let entries = published.load(ordering: .acquiring) ? [Snapshot.Entry(topic: topic, seq: 1, body: body)] : []
                return Snapshot(publisher: "raw", instance: "one", entries: entries)
            }, logger: testLogger)
        let replica = Replica()
        let tasks = follow(subscriber, into: replica)
        try await Task.sleep(for: .milliseconds(500))
        #expect(snapshotCalls.load(ordering: .relaxed) == 0, "no snapshot before a heartbeat")
        let raw = try OwnedSocket(context: context, type: .pub, name: "raw") { try $0.bind(address) }
        published.store(true, ordering: .releasing)
        raw.post([Data(topic.rawValue.utf8), Data(body.utf8)])
        #expect(await heartbeating(raw) { snapshotCalls.load(ordering: .relaxed) == 1 })
        #expect(await replica.wait { $0[topic.rawValue] == "1" })
        #expect(snapshotCalls.load(ordering: .relaxed) == 1)
        tasks.forEach { $0.cancel() }
        await raw.close()
    }

    /// The first snapshot waits for a heartbeat, or `timeout` from a publisher without any; one fetched
    /// without a heartbeat in the last `timeout` is replaced at the next heartbeat, and only then.
    @Test func whenToFetchASnapshot() {
        let start = ContinuousClock.now
        let timeout = Duration.seconds(3)
        var replica = Subscriber.Replica(started: start)
        #expect(!replica.snapshotDue(at: start + .seconds(1), timeout: timeout), "waits for a heartbeat")
        #expect(replica.snapshotDue(at: start + timeout, timeout: timeout), "a publisher without heartbeats")

        let beforeAnySnapshot = replica.heardHeartbeat(at: start + .seconds(1))
        #expect(!beforeAnySnapshot)
        #expect(replica.snapshotDue(at: start + .seconds(1), timeout: timeout))
        replica.fetchingSnapshot(at: start + .seconds(1), timeout: timeout)
        replica.synchronized = true
        let confirmed = replica.heardHeartbeat(at: start + .seconds(2))
        #expect(!confirmed, "a snapshot after a heartbeat stands")
        #expect(replica.synchronized)

        replica.synchronized = false
        replica.fetchingSnapshot(at: start + .seconds(10), timeout: timeout)
        replica.synchronized = true
        let fetchedWhileAway = replica.heardHeartbeat(at: start + .seconds(11))
        #expect(fetchedWhileAway, "fetched while the publisher was away")
        #expect(!replica.synchronized)
        #expect(replica.snapshotDue(at: start + .seconds(11), timeout: timeout))

        var silent = Subscriber.Replica(started: start)
        silent.fetchingSnapshot(at: start + timeout, timeout: timeout)
        silent.synchronized = true
        let fetchedBeforeAny = silent.heardHeartbeat(at: start + .seconds(4))
        #expect(fetchedBeforeAny, "fetched before any heartbeat")
        let replacedAgain = silent.heardHeartbeat(at: start + .seconds(5))
        #expect(!replacedAgain, "a second heartbeat changes nothing")
    }

    /// A restarted publisher (a new instance, numbering from 1 again) is noticed by its heartbeat: the
    /// subscriber re-synchronises and takes the new run's value, though its seq looks older.
    @Test func publisherRestartResynchronises() async throws {
        let context = try ZMQContext()
        let pub = ipcEndpoint(), rep = ipcEndpoint()
        let first = try await PublishingService(context: context, heartbeat: .milliseconds(100), pubEndpoint: pub, rpcEndpoint: rep)
        let replica = Replica()
        let tasks = follow(try first.subscriber(context: context, prefixes: ["quote."], heartbeatTimeout: .seconds(3_600)), into: replica)
        #expect(await wait { await replica.snapshots == 1 })
        try await Task.sleep(for: .milliseconds(200))
        let topic = try Topic("quote.test.BTC-USD")
        for price in 1...3 { try first.publisher.publish(Price(symbol: "BTC", price: "\(price)"), on: topic) }
        #expect(await replica.wait { $0[topic.rawValue] == "3" })
        first.stop()
        await first.publisher.close()
        let second = try await PublishingService(context: context, heartbeat: .milliseconds(100), pubEndpoint: pub, rpcEndpoint: rep)
        try second.publisher.publish(Price(symbol: "BTC", price: "restarted"), on: topic)
        #expect(await replica.wait { $0[topic.rawValue] == "restarted" })
        #expect(await replica.snapshots == 2)
        tasks.forEach { $0.cancel() }
        second.stop()
    }

    /// A publisher that goes silent is reported within three heartbeat intervals.
    @Test func silentPublisherIsReported() async throws {
        let context = try ZMQContext()
        let service = try await PublishingService(context: context, heartbeat: .milliseconds(100))
        let replica = Replica()
        let tasks = follow(try service.subscriber(context: context, prefixes: ["quote."], heartbeatTimeout: .milliseconds(300)), into: replica)
        #expect(await wait { await replica.snapshots == 1 })
        service.stop()
        await service.publisher.close()
        #expect(await wait(for: .seconds(5)) { await !replica.unavailable.isEmpty })
        tasks.forEach { $0.cancel() }
    }
}

/// Polls `condition` until it holds or `timeout` passes.
func wait(for timeout: Duration = .seconds(10), until condition: () async -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(20))
    }
    return await condition()
}

@Suite("Publishing together")
struct PublishingTogetherTests {
    /// Messages published inside `publishingTogether` (nested too) reach a subscriber all, in order, numbered per
    /// topic as always; and only once the outermost call has ended.
    @Test func aBurstArrivesWholeInOrderAtTheEnd() async throws {
        let context = try ZMQContext()
        let endpoint = "ipc://\(FileManager.default.temporaryDirectory.path)/tickwire-together-\(UUID().uuidString.prefix(8))"
        let publisher = try Publisher(context: context, service: "together", endpoints: [endpoint], logger: Logger(label: "test"))
        let sub = try Socket(context: context, type: .sub)
        defer { sub.close() }
        try sub.set(.receiveTimeout, 200)
        try sub.subscribe("quote.")
        try sub.connect(endpoint)
        let joined = try Topic("quote.together.JOIN-USD")
        var ready = false
        while !ready {
            try publisher.publish(String("join"), on: joined)
            ready = try sub.receive(dontWait: false) != nil
        }
        while try sub.receive(dontWait: false) != nil {}
        let topics = [try Topic("quote.together.AAA-USD"), try Topic("quote.together.BBB-USD")]
        func burst() throws -> Data? {
            for index in 0..<300 { _ = try publisher.publish(String(index), on: topics[index % 2]) }
            _ = try publisher.publishingTogether(inner)
            return try sub.receive(dontWait: false)?.first
        }
        func inner() throws -> UInt64? { try publisher.publish(String(300), on: topics[0]) }
        let early = try publisher.publishingTogether(burst)
        #expect(early == nil, "a message was sent before the outermost call ended")
        var received: [(topic: String, seq: UInt64, value: String)] = []
        while let frames = try sub.receive(dontWait: false) {
            let message = try BusMessage(frames: frames)
            received.append((message.topic.rawValue, message.header.seq, try message.decode(String.self).data))
        }
        #expect(received.map(\.value) == (0...300).map(String.init))
        #expect(received.filter { $0.topic == topics[0].rawValue }.map(\.seq) == Array(1...151))
        #expect(received.filter { $0.topic == topics[1].rawValue }.map(\.seq) == Array(1...150))
        await publisher.close()
    }
}
