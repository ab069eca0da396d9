import Bus
import BusContract
import Foundation
import Market
import Money
import Synchronization
import TickwireContract
import TickwireFeeds
import ZeroMQ

/// Benchmark 10: feed plugins into one hub. Four `FeedConnection`s (TickwireFeeds, each in a ZeroMQ context of its own, as
/// four processes would be) publish `quote.*` flat out into a real rates-fetcher's ingest endpoint; a subscriber of the
/// hub's stream counts what it accepted and republished and checks every topic's sequence (the hub's own, 1, 2, 3...),
/// so a lost message shows as a gap. The raw figure of the same round: four raw PUB sockets sending the same envelope
/// bytes to one SUB, over the same transport.
enum IngestBench {
    static let plugins = 4
    static let topicsPerPlugin = 16

    struct HubRun {
        var rate: Double
        var received: Int
        var expected: Int
        /// Topics whose sequence skipped a number (a message lost between the hub and the subscriber).
        var gaps: Int
        /// What the hub's `feeds` says it refused of the plugins' messages, by reason.
        var refused: [String: Int]
        /// What the plugins' accepted counts add up to in `feeds`.
        var accepted: Int
    }

    /// Plugin `plugin`'s `index`th quote: one of its 16 markets, a price that differs from the last on that topic.
    static func publication(plugin: Int, index: Int) throws -> FeedPublication {
        let name = "bench\(plugin)"
        let market = MarketPair(base: "C\(String(format: "%02d", index % topicsPerPlugin))", quote: "USD")
        var quote = sampleQuotes[index & 63]
        quote.source = name
        quote.market = market
        quote.last = try ExactDecimal(mantissa: 129_876_543 + Int128(index), scale: 2)
        return FeedPublication(quote, on: try Topics.quote(feed: name, market: market))
    }

    /// One round through a rates-fetcher started from `bin` for it: `perPlugin` quotes from each plugin.
    static func hub(bin: String, perPlugin: Int, folder: URL) async throws -> HubRun {
        let pub = "ipc://\(folder.path)/pub", rep = "ipc://\(folder.path)/rep", ingest = "ipc://\(folder.path)/ingest"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(bin)/rates-fetcher")
        process.arguments = ["--feeds", "mock", "--pub", pub, "--rep", rep, "--ingest", ingest, "--ingest-rate", "100000000",
                             "--state-dir", folder.path, "--log-level", "warning"]
            + ["bitso", "wazirx", "fiat", "coingecko", "gnb", "masterdata"].flatMap { ["--period", "\($0)=3600"] }
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate(); process.waitUntilExit() } }

        let context = try ZMQContext()
        let rpc = try RPCClient(context: context, endpoint: rep, timeout: .seconds(2), retries: 0)
        defer { Task { await rpc.close() } }
        let ready = ContinuousClock.now + .seconds(20)
        while (try? await rpc.call("health", as: Health.self)) == nil {
            guard ContinuousClock.now < ready else { throw BenchError("rates-fetcher did not answer health within 20 s") }
            try await Task.sleep(for: .milliseconds(50))
        }
        let expected = plugins * perPlugin
        let sub = try OwnedSocket(context: context, type: .sub, name: "ingest-sub", receiveBuffer: expected + 1_000) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try socket.subscribe("quote.bench")
            try socket.subscribe("heartbeat.")
            try socket.connect(pub)
        }
        var iterator = sub.incoming.makeAsyncIterator()
        while let frames = await iterator.next(), !(String(decoding: frames[0], as: UTF8.self).hasPrefix("heartbeat.")) {}

        let connections = try (1...plugins).map { plugin in
            try FeedConnection(context: try ZMQContext(), name: "bench\(plugin)", endpoint: ingest, heartbeatInterval: .seconds(1),
                               highWaterMark: 0, logger: quietLogger())
        }
        let running = connections.map { connection in Task { try await connection.run() } }
        for connection in connections where !(await connection.waitForHub(within: .seconds(10))) {
            throw BenchError("the hub did not subscribe to \(connection.name) within 10 s")
        }
        let publications = try (1...plugins).map { plugin in try (0..<perPlugin).map { try publication(plugin: plugin, index: $0) } }

        let start = ContinuousClock.now
        let senders = connections.enumerated().map { offset, connection in
            let own = publications[offset]
            return Task { try await onThread("plugin-\(offset + 1)") { for publication in own { try connection.publish(publication, onlyIfChanged: false) } } }
        }
        let progress = Shared()
        let consumer = sub.incoming
        let counting = Task { () -> (received: Int, gaps: Int, last: ContinuousClock.Instant) in
            var received = 0, gaps = 0, last = start
            var seqs: [Data: UInt64] = [:]
            var iterator = consumer.makeAsyncIterator()
            while received < expected, let frames = await iterator.next() {
                guard frames.count == 2, frames[0].starts(with: Data("quote.".utf8)), let message = try? BusMessage(frames: frames) else { continue }
                if message.header.seq != (seqs[frames[0]] ?? 0) + 1 { gaps += 1 }
                seqs[frames[0]] = message.header.seq
                received += 1
                last = ContinuousClock.now
                progress.count.store(received, ordering: .relaxed)
            }
            return (received, gaps, last)
        }
        for sender in senders { try await sender.value }
        // Done when every quote came, or when none has come for 3 s (the rest were lost).
        var seen = -1, quietSince = ContinuousClock.now
        while progress.count.load(ordering: .relaxed) < expected {
            let now = progress.count.load(ordering: .relaxed)
            if now != seen {
                seen = now
                quietSince = ContinuousClock.now
            } else if ContinuousClock.now - quietSince > .seconds(3) {
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        counting.cancel()
        let counted = await counting.value
        let feeds = (try? await rpc.call("feeds", as: [FeedStatus].self))?.filter { $0.feed.hasPrefix("bench") } ?? []
        let refused = feeds.compactMap(\.refused).reduce(into: [String: Int]()) { total, each in total.merge(each, uniquingKeysWith: +) }
        let accepted = feeds.compactMap(\.accepted).reduce(0, +)
        for task in running { task.cancel() }
        for connection in connections { await connection.close() }
        await sub.close()
        return HubRun(rate: Double(counted.received) / (counted.last - start).seconds, received: counted.received, expected: expected, gaps: counted.gaps,
                      refused: refused, accepted: accepted)
    }

    /// The same round's raw figure: the envelopes the plugins sent, prebuilt, from four raw PUB sockets (each in a context
    /// and on a thread of its own, blocking sends) to one SUB, over ipc, lossless (HWM 0); messages / (first send ... last
    /// receive).
    static func raw(perPlugin: Int, folder: URL) async throws -> (rate: Double, received: Int) {
        let endpoint = "ipc://\(folder.path)/raw"
        let messages = try (1...plugins).map { plugin in
            try (0..<perPlugin).map { index -> [Data] in
                let publication = try publication(plugin: plugin, index: index)
                return [Data(publication.topic.rawValue.utf8),
                        try publication.envelope(seq: UInt64(index / topicsPerPlugin + 1), time: Date(), source: "bench\(plugin)")]
            }
        }
        return try await RawPubSub.run(senders: messages, endpoint: endpoint)
    }
}

/// Raw libzmq PUB -> SUB, the limit the hub's rows are judged against.
enum RawPubSub {
    /// Sends each sender's prebuilt messages from a PUB socket of its own (in its own context, on its own thread,
    /// blocking sends) to one SUB bound at `endpoint`, lossless (HWM 0); messages / (first send ... last receive).
    static func run(senders messages: [[[Data]]], endpoint: String) async throws -> (rate: Double, received: Int) {
        let expected = messages.reduce(0) { $0 + $1.count }
        let bound = Shared(), go = Shared(), finished = Shared()
        let receiver = Task {
            try await onThread("raw-sub") { () -> (Int, ContinuousClock.Instant) in
                let context = try ZMQContext()
                let sub = try Socket(context: context, type: .sub)
                try sub.set(.receiveHighWaterMark, 0)
                try sub.set(.receiveTimeout, 3000)
                try sub.subscribe("")
                try sub.bind(endpoint)
                bound.flag.store(true, ordering: .releasing)
                var received = 0, last = ContinuousClock.now
                while received < expected, try sub.receive(dontWait: false) != nil {
                    received += 1
                    last = ContinuousClock.now
                }
                sub.close()
                return (received, last)
            }
        }
        while !bound.flag.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        let senders = messages.enumerated().map { offset, own in
            Task {
                try await onThread("raw-pub-\(offset + 1)") {
                    let context = try ZMQContext()
                    let pub = try Socket(context: context, type: .pub)
                    try pub.set(.sendHighWaterMark, 0)
                    try pub.connect(endpoint)
                    while !go.flag.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) }
                    for frames in own { _ = try pub.send(frames, dontWait: false) }
                    // Linger 0: closing would drop what is still queued, so wait until the subscriber is done.
                    while !finished.flag.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.001) }
                    pub.close()
                }
            }
        }
        try await Task.sleep(for: .milliseconds(300))  // slow joiner: the subscriptions reach every PUB
        let start = ContinuousClock.now
        go.flag.store(true, ordering: .releasing)
        let (received, last) = try await receiver.value
        finished.flag.store(true, ordering: .releasing)
        for sender in senders { try await sender.value }
        return (Double(received) / (last - start).seconds, received)
    }
}

/// A flag or a count the benchmark's threads share.
final class Shared: Sendable {
    let flag = Atomic<Bool>(false)
    let count = Atomic<Int>(0)
}
