import Bus
import BusContract
import Foundation
import Market
import RatesFetcherCore
import Testing
import ZeroMQ

/// A hub behind real sockets: its ingest endpoint and its publisher on ipc:// endpoints of a fresh folder, and a
/// SUB socket following the publisher.
private struct RealHub {
    let folder: URL
    let context: ZMQContext
    let publisher: Publisher
    let hub: IngestHub
    let endpoint: IngestEndpoint
    let follower: OwnedSocket
    private let running: Task<Void, Never>

    init(keys: KeyDirectory? = nil) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-ingest-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        context = try ZMQContext()
        let pub = "ipc://\(folder.path)/pub"
        publisher = try Publisher(context: context, service: "rates-fetcher", endpoints: [pub], logger: quietLogger)
        hub = IngestHub(publisher: publisher, reserved: ["bitso"], logger: quietLogger)
        endpoint = try IngestEndpoint(
            binding: "ipc://\(folder.path)/ingest", hub: hub, context: context, keys: keys, service: "rates-fetcher", logger: quietLogger)
        follower = try OwnedSocket(context: context, type: .sub, name: "follower") { socket in
            try socket.subscribe("quote.")
            try socket.connect(pub)
        }
        let endpoint = endpoint
        running = Task { await endpoint.run() }
    }

    /// A plugin's PUB socket connected to the ingest endpoint, with `security`.
    func plugin(_ security: SocketSecurity = SocketSecurity()) throws -> OwnedSocket {
        let ingest = "ipc://\(folder.path)/ingest"
        return try OwnedSocket(context: context, type: .pub, name: "plugin") { socket in
            try security.apply(to: socket)
            try socket.connect(ingest)
        }
    }

    /// Sends heartbeats of `feed` from `plugin` until the hub lists `feed` with something accepted (a PUB drops what
    /// it sends before its connection is up), or 5 s pass; returns the next heartbeat seq.
    func join(_ plugin: OwnedSocket, feed: String) async -> Int {
        var seq = 1
        let deadline = ContinuousClock.now + .seconds(5)
        while ContinuousClock.now < deadline {
            plugin.post(Plugin.frames("heartbeat.\(feed)", seq: seq, data: Plugin.heartbeat(feed: feed, instance: "\(feed)-run")))
            seq += 1
            try? await Task.sleep(for: .milliseconds(50))
            if hub.statuses.contains(where: { $0.feed == feed && ($0.accepted ?? 0) > 0 }) { break }
        }
        return seq
    }

    /// The next quote the follower receives, within `timeout`.
    func nextQuote(within timeout: Duration = .seconds(5)) async -> BusMessage? {
        await follower.incoming.first(within: timeout).flatMap { try? BusMessage(frames: $0) }
    }

    func stop() async {
        running.cancel()
        await endpoint.close()
        await follower.close()
        await publisher.close()
        try? FileManager.default.removeItem(at: folder)
    }
}

@Suite("Ingest endpoint", .serialized)
struct IngestEndpointTests {
    /// A plugin's PUB connected to the hub: its quote comes out of the hub's PUB with the hub's seq; the seq
    /// it sends again is refused and does not come out.
    @Test func plainPluginIsRepublished() async throws {
        let hub = try RealHub()
        let plugin = try hub.plugin()
        _ = await hub.join(plugin, feed: "testfeed")
        try await Task.sleep(for: .milliseconds(200))  // the follower's subscription reaches the publisher
        plugin.post(Plugin.goodQuote(seq: 7))
        let quote = try #require(await hub.nextQuote())
        #expect(quote.topic.rawValue == "quote.testfeed.ZZZ-USD" && quote.header.seq == 1 && quote.header.source == "testfeed")
        plugin.post(Plugin.goodQuote(seq: 7, last: "99"))
        plugin.post(Plugin.goodQuote(seq: 8, last: "2"))
        let next = try #require(await hub.nextQuote())
        #expect(try next.decode(Quote.self).data.last.description == "2", "the repeated seq never came out")
        #expect(hub.hub.statuses.first?.refused == ["seq": 1])
        await plugin.close()
        await hub.stop()
    }

    /// With keys, only writers' keys get in: a writer's quote is republished; a reader's key never reaches the
    /// hub; a second writer claiming the first one's name is refused `name-taken`.
    @Test func withKeysOnlyWritersFeedTheirOwnNames() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-ingest-keys-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: folder) }
        try KeyDirectory.generate(at: folder, services: ["rates-fetcher"], clients: ["alice", "bob", "carol"], writers: ["alice", "bob"])
        let keys = try KeyDirectory(folder)
        let hub = try RealHub(keys: keys)
        let alice = try hub.plugin(keys.clientSecurity("alice", connectingTo: "rates-fetcher"))
        let bob = try hub.plugin(keys.clientSecurity("bob", connectingTo: "rates-fetcher"))
        let carol = try hub.plugin(keys.clientSecurity("carol", connectingTo: "rates-fetcher"))
        let stranger = try hub.plugin(SocketSecurity(curve: .client(try CurveCertificate.generate(), serverKey: try keys.serverKey(of: "rates-fetcher"))))
        _ = await hub.join(alice, feed: "alicefeed")
        try await Task.sleep(for: .milliseconds(200))
        alice.post(Plugin.goodQuote(seq: 1, feed: "alicefeed"))
        let quote = try #require(await hub.nextQuote())
        #expect(quote.topic.rawValue == "quote.alicefeed.ZZZ-USD")

        _ = await hub.join(bob, feed: "bobfeed")
        for seq in 2...20 {
            bob.post(Plugin.goodQuote(seq: seq, feed: "alicefeed"))
            carol.post(Plugin.frames("heartbeat.carolfeed", seq: seq, data: Plugin.heartbeat(feed: "carolfeed")))
            stranger.post(Plugin.frames("heartbeat.strangerfeed", seq: seq, data: Plugin.heartbeat(feed: "strangerfeed")))
            try await Task.sleep(for: .milliseconds(20))
        }
        // Until all 19 are counted, or a generous deadline on a loaded machine.
        let deadline = ContinuousClock.now + .seconds(20)
        while hub.hub.statuses.first(where: { $0.feed == "alicefeed" })?.refused?["name-taken"] ?? 0 < 19, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let statuses = Dictionary(uniqueKeysWithValues: hub.hub.statuses.map { ($0.feed, $0) })
        #expect(Set(statuses.keys) == ["alicefeed", "bobfeed"], "a reader's and an unknown key never get in")
        #expect(statuses["alicefeed"]?.refused == ["name-taken": 19])
        #expect(await hub.nextQuote(within: .milliseconds(300)) == nil, "bob's quotes under alice's name are not republished")
        for socket in [alice, bob, carol, stranger] { await socket.close() }
        await hub.stop()
    }
}
