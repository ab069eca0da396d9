import Bus
import BusContract
import Foundation
import Logging
import Market
import Money
import Synchronization
import TickwireContract
import TickwireFeeds
import Testing
import ZeroMQ

/// A SUB socket bound where a hub's ingest endpoint would be, subscribed to everything, as rates-fetcher's is.
struct StandInHub {
    let socket: OwnedSocket

    init(context: ZMQContext, endpoint: String) throws {
        socket = try OwnedSocket(context: context, type: .sub, name: "hub") { socket in
            try socket.subscribe("")
            try socket.bind(endpoint)
        }
    }

    /// The next message whose topic starts with `prefix`, as a parsed stream message, or nil after `timeout`.
    func next(_ prefix: String, within timeout: Duration = .seconds(30)) async throws -> BusMessage? {
        let frames = await socket.incoming.first(within: timeout) { String(decoding: $0.first ?? Data(), as: UTF8.self).hasPrefix(prefix) }
        return try frames.map { try BusMessage(frames: $0) }
    }

    func close() async { await socket.close() }
}

/// A fresh ipc:// endpoint in the temporary folder.
func ipcEndpoint(_ name: String) -> String {
    "ipc://\(FileManager.default.temporaryDirectory.path)/tickwire-feeds-\(name)-\(UUID().uuidString.prefix(8))"
}

func xmr(_ last: String) throws -> Quote {
    Quote(source: "kraken", market: MarketPair(base: "XMR", quote: "USD"), last: try ExactDecimal(last))
}

@Suite("FeedConnection", .serialized)
struct FeedConnectionTests {
    let logger = Logger(label: "test")

    /// Each publication reaches the hub as `[topic, envelope]`, numbered per topic, with the feed's name as source;
    /// an unchanged value is not sent again.
    @Test func sendsNumberedEnvelopesUnderTheFeedsName() async throws {
        let context = try ZMQContext()
        let endpoint = ipcEndpoint("frames")
        let hub = try StandInHub(context: context, endpoint: endpoint)
        let connection = try FeedConnection(context: context, name: "kraken", endpoint: endpoint, logger: logger)
        let running = Task { try await connection.run() }
        #expect(await connection.waitForHub(within: .seconds(30)))

        let topic = try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD"))
        #expect(try connection.publish(try xmr("116.41"), on: topic) == 1)
        #expect(try connection.publish(try xmr("116.41"), on: topic) == nil, "unchanged: not sent")
        #expect(try connection.publish(try xmr("116.66"), on: topic) == 2)
        let coin = CoinInfo(id: "monero", symbol: "XMR", name: "Monero", image: "")
        #expect(try connection.publish(coin, on: try Topics.coin(feed: "kraken", symbol: "XMR")) == 1)

        let first = try #require(try await hub.next("quote."))
        #expect(first.topic.rawValue == "quote.kraken.XMR-USD")
        #expect(first.header.seq == 1)
        #expect(first.header.source == "kraken")
        #expect(first.header.type == "quote")
        #expect(first.header.version == 1)
        #expect(try first.decode(Quote.self).data == (try xmr("116.41")))
        let second = try #require(try await hub.next("quote."))
        #expect(second.header.seq == 2)
        #expect(try second.decode(Quote.self).data.last == (try ExactDecimal("116.66")))
        let coinMessage = try #require(try await hub.next("coin."))
        #expect(coinMessage.topic.rawValue == "coin.kraken.XMR")
        #expect(coinMessage.header.seq == 1)
        #expect(try coinMessage.decode(CoinInfo.self).data == coin)
        // The body is the documented envelope, member for member.
        let object = try #require(try JSONSerialization.jsonObject(with: coinMessage.body) as? [String: Any])
        #expect(Set(object.keys) == ["version", "type", "seq", "time", "source", "data"])

        running.cancel()
        try await running.value
        await hub.close()
    }

    /// A hub that does not read fills the connection's queue: what it has no room for is refused (NODROP), not lost
    /// silently, and counted; everything published either reached the hub or was counted, and the heartbeats say so.
    @Test func whatTheHubsFullQueueRefusesIsCounted() async throws {
        let context = try ZMQContext()
        let (hub, connection, running) = try await Self.connectBareHub(context: context, endpoint: ipcEndpoint("full"), logger: logger)
        defer { hub.close() }
        try await Task.sleep(for: .milliseconds(100))
        while try hub.receive(dontWait: true) != nil {}
        let droppedBefore = connection.droppedMessages
        let topic = try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD"))
        let published = 20_000
        for index in 0..<published {
            try connection.publish(try xmr("116.\(index)"), on: topic, onlyIfChanged: false)
        }
        let dropped = connection.droppedMessages - droppedBefore
        #expect(dropped > 0, "the full queue refused nothing")
        // Read until every message not counted arrived, or a generous deadline on a loaded machine.
        var received = 0
        let deadline = ContinuousClock.now + .seconds(30)
        while received + dropped < published, ContinuousClock.now < deadline {
            if let frames = try hub.receive(dontWait: true) {
                if String(decoding: frames[0], as: UTF8.self).hasPrefix("quote.") { received += 1 }
            } else {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        // Nothing more than that comes afterwards.
        try await Task.sleep(for: .milliseconds(100))
        while let frames = try hub.receive(dontWait: true) {
            if String(decoding: frames[0], as: UTF8.self).hasPrefix("quote.") { received += 1 }
        }
        #expect(received + dropped == published, "received \(received), counted \(dropped)")
        connection.sendHeartbeat()
        running.cancel()
        try await running.value
    }

    /// `publish(waitingForRoom:)` on a thread of its own into a hub that does not read: it stops once the queue and the
    /// socket buffers are full and sleeps (its safety-net timeout is a minute, so only the socket thread's wake-ups can
    /// move it on); once the hub reads, every message arrives, in order and numbered 1, 2, 3..., none counted dropped.
    @Test func publishWaitingForRoomHoldsAtAFullHubAndLosesNothing() async throws {
        let context = try ZMQContext()
        let endpoint = ipcEndpoint("wait")
        let (hub, connection, running) = try await Self.connectBareHub(context: context, endpoint: endpoint, logger: logger)
        defer { hub.close() }
        let topic = try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD"))
        let published = 5_000
        let publications = try (1...published).map { FeedPublication(try xmr("116.\($0)"), on: topic) }
        let progress = SenderProgress()
        let droppedBefore = connection.droppedMessages
        let publisher = Thread {
            for publication in publications {
                guard let (_, waited) = try? connection.publish(waitingForRoom: publication, timeout: .seconds(60)) else { break }
                progress.state.withLock {
                    $0.sent += 1
                    if waited { $0.waits += 1 }
                }
            }
            progress.state.withLock { $0.done = true }
        }
        publisher.start()
        // Held once the socket buffers are full too: nothing sent for 100 ms, well short of the end.
        var held = -1
        #expect(await eventually {
            let sent = progress.state.withLock { $0.sent }
            defer { held = sent }
            return sent > 0 && sent == held
        })
        try await Task.sleep(for: .milliseconds(100))
        #expect(progress.state.withLock { $0.sent } == held && held < published, "it sent while the hub read nothing")
        #expect(progress.state.withLock { $0.waits } > 0)

        var seqs: [UInt64] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while seqs.count < published, ContinuousClock.now < deadline {
            if let frames = try hub.receive(dontWait: true) {
                let message = try BusMessage(frames: frames)
                if message.topic.rawValue.hasPrefix("quote.") { seqs.append(message.header.seq) }
            } else {
                try await Task.sleep(for: .milliseconds(1))
            }
        }
        #expect(seqs.count == published)
        #expect(seqs.elementsEqual(1...UInt64(published)), "first out of order: \(String(describing: seqs.enumerated().first { $0.element != UInt64($0.offset + 1) }))")
        #expect(await eventually { progress.state.withLock { $0.done } })
        #expect(progress.state.withLock { $0.sent } == published)
        #expect(connection.droppedMessages == droppedBefore)
        running.cancel()
        try await running.value
    }

    /// A sender held by a full queue returns nil at once when its `stop` says so and `wakeWaiters()` is called, with no
    /// wait for its (minute-long) timeout; nothing more is sent.
    @Test func wakeWaitersEndsAWaitForRoom() async throws {
        let context = try ZMQContext()
        let endpoint = ipcEndpoint("stop")
        let (hub, connection, running) = try await Self.connectBareHub(context: context, endpoint: endpoint, logger: logger)
        defer { hub.close() }
        let topic = try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD"))
        let publications = try (1...100_000).map { FeedPublication(try xmr("116.\($0)"), on: topic) }
        let progress = SenderProgress()
        let publisher = Thread {
            for publication in publications {
                let stop = { progress.state.withLock { $0.stopped } }
                if (try? connection.publish(waitingForRoom: publication, timeout: .seconds(60), stop: stop)) == nil { break }
                progress.state.withLock { $0.sent += 1 }
            }
            progress.state.withLock { $0.done = true }
        }
        publisher.start()
        // Held: nothing sent for 100 ms.
        var last = -1
        #expect(await eventually {
            let sent = progress.state.withLock { $0.sent }
            defer { last = sent }
            return sent > 0 && sent == last
        })
        let stoppedAt = ContinuousClock.now
        progress.state.withLock { $0.stopped = true }
        connection.wakeWaiters()
        #expect(await eventually { progress.state.withLock { $0.done } })
        #expect(ContinuousClock.now - stoppedAt < .seconds(20), "it waited for its timeout")
        #expect(progress.state.withLock { $0.sent } < publications.count)
        running.cancel()
        try await running.value
    }

    /// A bare SUB socket bound at `endpoint` with a receive high-water mark of 1, and a running connection to it with
    /// a send high-water mark of 1 (heartbeats every 10 minutes), once the hub's subscription has arrived; the hub has
    /// read nothing of the feed's.
    static func connectBareHub(
        context: ZMQContext, endpoint: String, logger: Logger
    ) async throws -> (Socket, FeedConnection, Task<Void, any Error>) {
        let hub = try Socket(context: context, type: .sub)
        try hub.set(.receiveHighWaterMark, Int32(1))
        try hub.subscribe("")
        try hub.bind(endpoint)
        let connection = try FeedConnection(
            context: context, name: "kraken", endpoint: endpoint, heartbeatInterval: .seconds(600), highWaterMark: 1, logger: logger)
        let running = Task { try await connection.run() }
        // A bare socket takes in its connection (and so sends its subscription) only when called.
        let subscribed = ContinuousClock.now + .seconds(30)
        while connection.subscriptions == 0, ContinuousClock.now < subscribed {
            _ = try hub.receive(dontWait: true)
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(connection.subscriptions == 1)
        return (hub, connection, running)
    }

    /// `heartbeat.<feed>` comes every interval: the feed's name as service, one instance per run, numbered on.
    @Test func heartbeatsNameTheFeedAndItsInstance() async throws {
        let context = try ZMQContext()
        let endpoint = ipcEndpoint("heartbeat")
        let hub = try StandInHub(context: context, endpoint: endpoint)
        let connection = try FeedConnection(
            context: context, name: "kraken", endpoint: endpoint, heartbeatInterval: .milliseconds(200), logger: logger)
        let running = Task { try await connection.run() }
        let first = try #require(try await hub.next("heartbeat."))
        let second = try #require(try await hub.next("heartbeat."))
        #expect(first.topic.rawValue == "heartbeat.kraken")
        #expect(first.header.source == "kraken")
        #expect(second.header.seq == first.header.seq + 1)
        let heartbeat = try first.decode(Heartbeat.self).data
        #expect(heartbeat.service == "kraken")
        #expect(heartbeat.instance == connection.instance)
        #expect(heartbeat.intervalMilliseconds == 200)
        running.cancel()
        try await running.value

        let restarted = try FeedConnection(context: context, name: "kraken", endpoint: endpoint, logger: logger)
        #expect(restarted.instance != connection.instance, "a new run is a new instance")
        await restarted.close()
        await hub.close()
    }

    /// What was published before a hub listened (or before it restarted) goes out again, numbered on, when its
    /// subscription arrives.
    @Test func aHubThatSubscribesLateGetsEveryLastValue() async throws {
        let context = try ZMQContext()
        let endpoint = ipcEndpoint("late")
        let connection = try FeedConnection(context: context, name: "kraken", endpoint: endpoint, logger: logger)
        let running = Task { try await connection.run() }
        let topic = try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD"))
        #expect(try connection.publish(try xmr("116.41"), on: topic) == 1, "sent to no one")

        let hub = try StandInHub(context: context, endpoint: endpoint)
        let resent = try #require(try await hub.next("quote."))
        #expect(resent.header.seq == 2)
        #expect(try resent.decode(Quote.self).data == (try xmr("116.41")))
        await hub.close()

        let restartedHub = try StandInHub(context: context, endpoint: endpoint)
        let again = try #require(try await restartedHub.next("quote."))
        #expect(again.header.seq == 3)
        #expect(connection.subscriptions >= 2)
        running.cancel()
        try await running.value
        await restartedHub.close()
    }

    /// A bad name, or a topic of another feed, is refused with a clear error before anything is sent.
    @Test func refusesBadNamesAndOtherFeedsTopics() async throws {
        let context = try ZMQContext()
        for name in ["", "Kraken", "1kraken", "kra.ken", String(repeating: "k", count: 33)] {
            #expect(throws: FeedError.invalidName(name)) {
                _ = try FeedConnection(context: context, name: name, endpoint: ipcEndpoint("name"), logger: logger)
            }
        }
        #expect(FeedName.isValid("bitso2") && FeedName.isValid("my-feed_1") && FeedName.isValid(String(repeating: "k", count: 32)))
        let connection = try FeedConnection(context: context, name: "kraken", endpoint: ipcEndpoint("other"), logger: logger)
        let topic = try Topics.quote(feed: "bitso", market: MarketPair(base: "BTC", quote: "MXN"))
        #expect(throws: FeedError.topicOfAnotherFeed(topic: "quote.bitso.BTC-MXN", feed: "kraken")) {
            try connection.publish(Quote(source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: 1), on: topic)
        }
        await connection.close()
        #expect(throws: FeedError.closed("kraken")) {
            try connection.publish(try xmr("1"), on: try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD")))
        }
    }
}

/// What a sender on a thread of its own has done, for the test to read.
final class SenderProgress: Sendable {
    let state = Mutex((sent: 0, waits: 0, done: false, stopped: false))
}

/// Polls `condition` every 100 ms for at most 30 s.
func eventually(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<300 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return condition()
}
