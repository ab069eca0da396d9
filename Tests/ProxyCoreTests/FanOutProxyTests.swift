import ArgumentParser
import Bus
import Foundation
import Logging
import ProxyCore
import ServiceSupport
import Synchronization
import Testing
import ZeroMQ
import BusContract

/// A unique ipc endpoint for one test.
func ipcEndpoint(_ name: String) -> String { "ipc:///tmp/tickwire-proxy-\(UUID().uuidString.prefix(8))-\(name)" }

let testLogger = Logger(label: "tickwire.proxy-test")

/// A test payload: one counter per topic.
struct Tick: Codable, Sendable, Equatable {
    var value: Int
}

/// A publisher with its snapshot served over JSON-RPC, and a fan-out proxy in front of its stream.
final class ProxiedPublisher: @unchecked Sendable {
    // @unchecked: `proxy` and `proxyTask` are replaced only by the test that owns this value.
    let context: ZMQContext
    let publisher: Publisher
    let server: RPCServer
    let pubEndpoint = ipcEndpoint("pub")
    let rpcEndpoint = ipcEndpoint("rep")
    let proxyEndpoint = ipcEndpoint("xpub")
    private(set) var proxy: FanOutProxy
    private var proxyTask: Task<Void, Never>
    private let tasks: [Task<Void, Never>]
    /// Clients shared by the subscribers for their snapshots (each answers one call at a time).
    private let snapshotClients: [RPCClient]

    init(context: ZMQContext) throws {
        self.context = context
        let publisher = try Publisher(
            context: context, service: "feed", endpoints: [pubEndpoint], heartbeatInterval: .milliseconds(200), logger: testLogger)
        var methods = RPCMethods()
        methods.register(StandardAPI.snapshot) { publisher.snapshot(prefix: $0.prefix) }
        let server = try RPCServer(context: context, service: "feed", endpoints: [rpcEndpoint], methods: methods, logger: testLogger)
        self.publisher = publisher
        self.server = server
        tasks = [Task { try? await publisher.run() }, Task { await server.run() }]
        (proxy, proxyTask) = try Self.startProxy(context: context, upstream: pubEndpoint, bind: proxyEndpoint)
        let rpcEndpoint = rpcEndpoint
        snapshotClients = try (0..<4).map { _ in
            try RPCClient(context: context, endpoint: rpcEndpoint, timeout: .seconds(2), retries: 2, logger: testLogger)
        }
    }

    private static func startProxy(context: ZMQContext, upstream: String, bind: String) throws -> (FanOutProxy, Task<Void, Never>) {
        let proxy = try FanOutProxy(
            context: context, configuration: ProxyConfiguration(upstreams: [upstream], binds: [bind], rep: "inproc://unused"),
            logger: testLogger)
        return (proxy, Task { try? await proxy.run() })
    }

    /// Stops the proxy and starts a fresh one on the same endpoints.
    func restartProxy() async throws {
        proxyTask.cancel()
        await proxyTask.value
        (proxy, proxyTask) = try Self.startProxy(context: context, upstream: pubEndpoint, bind: proxyEndpoint)
    }

    /// A subscriber whose stream comes through the proxy and whose snapshots come from the publisher's JSON-RPC.
    func subscriber(_ index: Int) throws -> Subscriber {
        let client = snapshotClients[index % snapshotClients.count]
        return try Subscriber(
            context: context, name: "subscriber-\(index)", endpoint: proxyEndpoint, prefixes: ["tick."], heartbeatTimeout: .seconds(1),
            snapshot: { try await client.call(StandardAPI.snapshot, SnapshotRequest(prefix: $0)) }, logger: testLogger)
    }

    /// The publisher's state: each topic's last value.
    func state() throws -> [String: Int] {
        var values: [String: Int] = [:]
        for entry in publisher.snapshot(prefix: "tick.").entries {
            values[entry.topic.rawValue] = try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8)).decode(Tick.self).data.value
        }
        return values
    }

    func stop() async {
        proxyTask.cancel()
        await proxyTask.value
        tasks.forEach { $0.cancel() }
        for client in snapshotClients { await client.close() }
    }
}

/// What a subscriber holds: each topic's last value, as a consumer applies its events.
final class Replica: Sendable {
    private let values = Mutex<[String: Int]>([:])
    private let snapshotCount = Atomic<Int>(0)

    var current: [String: Int] { values.withLock { $0 } }
    var snapshots: Int { snapshotCount.load(ordering: .relaxed) }

    func apply(_ event: SubscriberEvent) throws {
        switch event {
        case .snapshot(_, _, let messages):
            snapshotCount.add(1, ordering: .relaxed)
            let fresh = try Dictionary(messages.map { ($0.topic.rawValue, try $0.decode(Tick.self).data.value) }, uniquingKeysWith: { $1 })
            values.withLock { $0 = fresh }
        case .message(let message):
            let value = try message.decode(Tick.self).data.value
            values.withLock { $0[message.topic.rawValue] = value }
        case .unavailable:
            break
        }
    }
}

/// Runs `subscriber` and applies its events to a new replica.
func follow(_ subscriber: Subscriber) -> (Replica, [Task<Void, Never>]) {
    let replica = Replica()
    return (replica, [Task { await subscriber.run() }, Task { for await event in subscriber.events { try? replica.apply(event) } }])
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(within timeout: Duration = .seconds(20), _ condition: () throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try condition() { return true }
        try? await Task.sleep(for: .milliseconds(50))
    }
    return try condition()
}

/// Publishes round after round on `topics` topics until cancelled; each round counts one up.
func publishing(_ publisher: Publisher, topics: Int, every interval: Duration = .milliseconds(50)) -> Task<Void, Never> {
    Task {
        var round = 0
        while !Task.isCancelled {
            round += 1
            for index in 0..<topics { _ = try? publisher.publish(Tick(value: round), on: Topic("tick.feed.T\(index)")) }
            try? await Task.sleep(for: interval)
        }
    }
}

@Suite("Fan-out through libzmq's proxy", .serialized)
struct FanOutProxyTests {
    /// A hundred subscribers through one proxy all converge to the publisher's state, and again after the
    /// proxy is restarted mid-stream.
    @Test func hundredSubscribersConvergeAndSurviveARestart() async throws {
        let context = try ZMQContext()
        let stack = try ProxiedPublisher(context: context)
        // A modest stream (100 messages a second, to each of 100 subscribers): the suites run side by side.
        let stream = publishing(stack.publisher, topics: 5)
        let followers = try (0..<100).map { follow(try stack.subscriber($0)) }
        let replicas = followers.map(\.0)

        try await Task.sleep(for: .seconds(1))
        try await stack.restartProxy()
        try await Task.sleep(for: .seconds(2))
        stream.cancel()
        await stream.value
        let final = try stack.state()
        #expect(final.count == 5)
        let converged = await eventually(within: .seconds(60)) { replicas.allSatisfy { $0.current == final } }
        #expect(converged, "\(replicas.filter { $0.current != final }.count) of 100 subscribers differ from the publisher")
        #expect(replicas.allSatisfy { $0.snapshots >= 1 })

        let statistics = try #require(stack.proxy.statistics)
        #expect(statistics.frontendReceived > 0, "the restarted proxy forwarded messages")
        #expect(stack.proxy.upstreamState() == "ok")
        followers.flatMap(\.1).forEach { $0.cancel() }
        await stack.stop()
    }

    /// A subscriber that joins through the proxy after everything was published gets the whole state from
    /// the publisher's snapshot, then the updates that pass through the proxy.
    @Test func lateJoinerThroughTheProxyGetsTheFullState() async throws {
        let context = try ZMQContext()
        let stack = try ProxiedPublisher(context: context)
        for round in 1...20 {
            for index in 0..<5 { try stack.publisher.publish(Tick(value: round), on: Topic("tick.feed.T\(index)")) }
        }
        let (late, tasks) = follow(try stack.subscriber(0))
        let expected = try stack.state()
        #expect(await eventually(within: .seconds(60)) { late.current == expected })
        #expect(late.current["tick.feed.T0"] == 20)

        try stack.publisher.publish(Tick(value: 21), on: Topic("tick.feed.T0"))
        #expect(await eventually { late.current["tick.feed.T0"] == 21 }, "an update through the proxy after the snapshot")
        tasks.forEach { $0.cancel() }
        await stack.stop()
    }

    /// Frames pass through untouched: a message read through the proxy is byte for byte what the publisher
    /// sent (its retained envelope, sequence number included), and heartbeats come through as well.
    @Test func framesPassThroughUntouched() async throws {
        let context = try ZMQContext()
        let stack = try ProxiedPublisher(context: context)
        let sub = try OwnedSocket(context: context, type: .sub, name: "raw-sub") { [endpoint = stack.proxyEndpoint] socket in
            try socket.subscribe("tick.")
            try socket.subscribe("heartbeat.")
            try socket.connect(endpoint)
        }
        // Closing the socket finishes its messages: the reads below end after 20 s at the latest.
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(20))
            await sub.close()
        }
        var incoming = sub.incoming.makeAsyncIterator()
        let heartbeat = await incoming.next()
        #expect(heartbeat.map { String(decoding: $0[0], as: UTF8.self) } == "heartbeat.feed")
        // A heartbeat can come before this subscriber's `tick.` reaches the publisher (the proxy subscribes to
        // heartbeats itself), so a tick goes out every 50 ms until one comes through; it must be byte for byte
        // what the publisher sent under its sequence number.
        let sent = Mutex<[UInt64: String]>([:])
        let publishing = Task {
            while !Task.isCancelled {
                let seq = try stack.publisher.publish(Tick(value: 7), on: Topic("tick.feed.T0"))
                if let seq, let entry = stack.publisher.snapshot(prefix: "tick.").entries.first { sent.withLock { $0[seq] = entry.body } }
                try await Task.sleep(for: .milliseconds(50))
            }
        }
        var received: [Data]?
        while received == nil, let frames = await incoming.next() {
            if String(decoding: frames[0], as: UTF8.self) != "heartbeat.feed" { received = frames }
        }
        publishing.cancel()
        let frames = try #require(received)
        let message = try BusMessage(frames: frames)
        let body = sent.withLock { $0[message.header.seq] }
        #expect(frames == [Data("tick.feed.T0".utf8), Data((body ?? "").utf8)])
        watchdog.cancel()
        await sub.close()
        await stack.stop()
    }

    /// A proxy needs somewhere to take from and somewhere to offer to; the flags and environment say where.
    @Test func configuration() throws {
        let context = try ZMQContext()
        #expect(throws: ProxyConfigurationError.noUpstream) {
            try FanOutProxy(context: context, configuration: ProxyConfiguration(upstreams: [], binds: ["inproc://x"], rep: "inproc://y"), logger: testLogger)
        }
        let missing = #expect(throws: ValidationError.self) { try ProxyOptions.parse([]).configuration(environment: [:]) }
        #expect(missing?.message == "the proxy needs an upstream to connect to (--upstream, env TICKWIRE_PROXY_UPSTREAM) or to bind for "
            + "publishers (--upstream-bind, env TICKWIRE_PROXY_UPSTREAM_BIND)")
        let flags = try ProxyOptions.parse(["--upstream", "tcp://10.0.0.2:7202", "--bind", "tcp://0.0.0.0:7211"]).configuration(environment: [:])
        #expect(flags == ProxyConfiguration(upstreams: ["tcp://10.0.0.2:7202"], binds: ["tcp://0.0.0.0:7211"], rep: ProxyOptions.defaultRep))
        let environment = try ProxyOptions.parse([]).configuration(environment: [
            "TICKWIRE_PROXY_UPSTREAM": "tcp://a:1, tcp://b:2", "TICKWIRE_PROXY_REP": "tcp://0.0.0.0:7212"])
        #expect(environment.upstreams == ["tcp://a:1", "tcp://b:2"])
        #expect(environment.binds == [ProxyOptions.defaultBind])
        #expect(environment.rep == "tcp://0.0.0.0:7212")
        #expect(throws: (any Error).self) { try ProxyOptions.parse([]).configuration(environment: [:]) }
    }
}
