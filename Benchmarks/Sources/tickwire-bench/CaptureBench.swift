import Bus
import BusContract
import Foundation
import TickwireContract
import ZeroMQ

/// Benchmark 13: record and replay. A flood of quote envelopes (4 feeds x 16 topics, each topic numbered 1, 2, 3...)
/// from an XPUB that waits for the recorder's subscription, sent at a fixed rate, into a real `tickwire-recorder`;
/// its capture is then read back with Python's gzip and checked by seq (none lost), and the recorder's CPU share is
/// read from /proc. The replay: a capture so made played by `tickwire-replay --speed max` into a real rates-fetcher
/// (`--feeds none`), counted on the hub's stream, against raw libzmq PUB -> SUB of the same bytes.
enum CaptureBench {
    static let feeds = 4
    static let topicsPerFeed = 16

    /// Envelope bytes around a spliced `seq`: what comes before its digits and after them, per topic.
    struct Template {
        let topic: Data
        let head: Data
        let tail: Data

        func envelope(seq: UInt64) -> Data { head + Data(String(seq).utf8) + tail }
    }

    /// One template per topic: a real quote envelope of feed `bench<N>` split at its `seq`.
    static func templates() throws -> [Template] {
        try (1...feeds).flatMap { feed in
            try (0..<topicsPerFeed).map { index -> Template in
                let publication = try IngestBench.publication(plugin: feed, index: index)
                let envelope = try publication.envelope(seq: 987_654_321, time: Date(), source: "bench\(feed)")
                let marker = Data("987654321".utf8)
                guard let range = envelope.range(of: marker) else { throw BenchError("no seq in the envelope") }
                return Template(topic: Data(publication.topic.rawValue.utf8), head: envelope[..<range.lowerBound], tail: envelope[range.upperBound...])
            }
        }
    }

    struct RecorderRun {
        var sent: Int
        var seconds: Double
        var recorded: Int
        var lost: Int
        var gaps: Int
        /// The recorder's CPU time over the flood's wall time, in % of one core.
        var cpuShare: Double
        var fileBytes: Int
    }

    /// Floods `tickwire-recorder` (from `bin`) at `rate` messages a second for `seconds`; its capture stays in `folder/capture`.
    static func recorder(bin: String, rate: Int, seconds: Double, folder: URL, peers: Peers) async throws -> RecorderRun {
        let endpoint = "ipc://\(folder.path)/flood"
        let templates = try templates()
        let total = Int(Double(rate) * seconds)
        let subscribed = Shared(), sentAll = Shared(), done = Shared()
        let sender = Task {
            try await onThread("flood") { () -> Void in
                let context = try ZMQContext()
                let pub = try Socket(context: context, type: .xpub)
                try pub.set(.sendHighWaterMark, 0)
                try pub.bind(endpoint)
                subscribed.flag.store(true, ordering: .releasing)
                while try pub.receive(dontWait: false) == nil {}
                var seqs = [UInt64](repeating: 0, count: templates.count)
                let start = ContinuousClock.now
                let batch = max(rate / 1000, 1)
                var sent = 0
                while sent < total {
                    let due = start + .seconds(Double(sent) / Double(rate))
                    let now = ContinuousClock.now
                    if due > now { Thread.sleep(forTimeInterval: (due - now).seconds) }
                    for _ in 0..<min(batch, total - sent) {
                        let index = sent % templates.count
                        seqs[index] += 1
                        _ = try pub.send([templates[index].topic, templates[index].envelope(seq: seqs[index])], dontWait: false)
                        sent += 1
                    }
                }
                // Microseconds the flood took; its socket stays open (linger 0) until the recorder has read everything.
                sentAll.count.store(Int((ContinuousClock.now - start).seconds * 1e6), ordering: .relaxed)
                sentAll.flag.store(true, ordering: .releasing)
                while !done.flag.load(ordering: .acquiring) { Thread.sleep(forTimeInterval: 0.01) }
                pub.close()
            }
        }
        while !subscribed.flag.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(5)) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "\(bin)/tickwire-recorder")
        process.arguments = ["--connect", endpoint, "--prefix", "quote.", "--out", folder.appendingPathComponent("capture").path, "--log-level", "warning"]
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        while !sentAll.flag.load(ordering: .acquiring) { try await Task.sleep(for: .milliseconds(20)) }
        let elapsed = Double(sentAll.count.load(ordering: .relaxed)) / 1e6
        // The recorder writes out what is queued and finishes its file on SIGTERM; its CPU is read just before.
        try await Task.sleep(for: .milliseconds(500))
        let cpu = cpuSeconds(of: process.processIdentifier)
        process.terminate()
        process.waitUntilExit()
        done.flag.store(true, ordering: .releasing)
        try await sender.value
        let check = await peers.run("check_capture.py", [folder.appendingPathComponent("capture").path])
        let recorded = Int(check?.number("records") ?? 0)
        let bytes = Int(check?.number("bytes") ?? 0)
        return RecorderRun(sent: total, seconds: elapsed, recorded: recorded, lost: total - recorded, gaps: Int(check?.number("gaps") ?? -1),
                           cpuShare: cpu / elapsed * 100, fileBytes: bytes)
    }

    /// A process's user + system CPU seconds, from /proc/PID/stat (clock ticks of 1/100 s).
    static func cpuSeconds(of pid: Int32) -> Double {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return .nan }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return .nan }
        return (user + system) / 100
    }

    /// `tickwire-replay --speed max` of the capture in `folder/capture` into a rates-fetcher from `bin`: quotes/s
    /// republished by the hub (first to last on its stream) and how many of `expected` arrived.
    static func replay(bin: String, expected: Int, folder: URL) async throws -> (rate: Double, received: Int) {
        let pub = "ipc://\(folder.path)/pub", rep = "ipc://\(folder.path)/rep", ingest = "ipc://\(folder.path)/ingest"
        let hub = Process()
        hub.executableURL = URL(fileURLWithPath: "\(bin)/rates-fetcher")
        hub.arguments = ["--feeds", "none", "--pub", pub, "--rep", rep, "--ingest", ingest, "--ingest-rate", "100000000",
                         "--state-dir", folder.path, "--log-level", "warning"]
        hub.standardOutput = FileHandle.nullDevice
        try hub.run()
        defer { if hub.isRunning { hub.terminate(); hub.waitUntilExit() } }
        let context = try ZMQContext()
        let rpc = try RPCClient(context: context, endpoint: rep, timeout: .seconds(2), retries: 0)
        let ready = ContinuousClock.now + .seconds(20)
        while (try? await rpc.call("health", as: Health.self)) == nil {
            guard ContinuousClock.now < ready else { throw BenchError("rates-fetcher did not answer health within 20 s") }
            try await Task.sleep(for: .milliseconds(50))
        }
        await rpc.close()
        let sub = try OwnedSocket(context: context, type: .sub, name: "replay-sub", receiveBuffer: expected + 10_000) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try socket.subscribe("quote.bench")
            try socket.subscribe("heartbeat.")
            try socket.connect(pub)
        }
        var iterator = sub.incoming.makeAsyncIterator()
        while let frames = await iterator.next(), !(String(decoding: frames[0], as: UTF8.self).hasPrefix("heartbeat.")) {}
        let replay = Process()
        replay.executableURL = URL(fileURLWithPath: "\(bin)/tickwire-replay")
        replay.arguments = [folder.appendingPathComponent("capture").path, "--speed", "max", "--ingest", ingest, "--log-level", "warning"]
        replay.standardOutput = FileHandle.nullDevice
        try replay.run()
        defer { if replay.isRunning { replay.terminate(); replay.waitUntilExit() } }
        var received = 0
        var first: ContinuousClock.Instant?, last = ContinuousClock.now
        let deadline = ContinuousClock.now + .seconds(120)
        while received < expected, ContinuousClock.now < deadline {
            guard let frames = await sub.incoming.first(within: .seconds(5), where: { $0[0].starts(with: Data("quote.".utf8)) }) else { break }
            _ = frames
            received += 1
            last = ContinuousClock.now
            if first == nil { first = last }
        }
        await sub.close()
        guard let first, received > 1 else { return (0, received) }
        return (Double(received - 1) / (last - first).seconds, received)
    }

    /// The same bytes (the flood's envelopes, `count` of them) from one raw PUB to one SUB over ipc, lossless: msg/s.
    static func raw(count: Int, folder: URL) async throws -> Double {
        let endpoint = "ipc://\(folder.path)/raw"
        let templates = try templates()
        var seqs = [UInt64](repeating: 0, count: templates.count)
        let messages = (0..<count).map { sent -> [Data] in
            let index = sent % templates.count
            seqs[index] += 1
            return [templates[index].topic, templates[index].envelope(seq: seqs[index])]
        }
        return try await RawPubSub.run(senders: [messages], endpoint: endpoint).rate
    }
}
