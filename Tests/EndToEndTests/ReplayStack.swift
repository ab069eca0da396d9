import Bus
import ChildProcesses
import BusContract
import Foundation
import Money
import Testing
import TickwireContract
import ZeroMQ

/// A capture file (docs/capture.md) read with the shell's gzip: what a replay of it must give is computed from it.
struct CaptureFile: Sendable {
    /// One message of the capture.
    struct Record: Sendable {
        let topic: String
        /// The envelope's JSON text.
        let envelope: String
    }

    /// The shipped capture, captures/demo.ndjson.gz (`make capture` records it again).
    static let demo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("captures/demo.ndjson.gz")

    /// The message kinds the replay plays into a hub; the others it skips.
    static let feedKinds: Set<String> = ["quote", "rate", "limits", "book", "trade", "coin"]

    let url: URL
    /// Every message, in capture order.
    let records: [Record]

    /// Reads `url` (the header line is checked, not kept).
    init(_ url: URL = demo) throws {
        self.url = url
        let lines = try gunzip(url).split(separator: "\n")
        let header = try #require(lines.first.flatMap { try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] })
        try #require(header["format"] as? String == "tickwire-capture", "\(url.path) is not a capture")
        records = try lines.dropFirst().map { line in
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line.prefix(200))")
            return Record(topic: try #require(object["topic"] as? String), envelope: try #require(object["envelope"] as? String))
        }
    }

    /// The feed a replayed record is published under (`quote.<feed>.…`), nil for a record the replay skips.
    static func feed(of topic: String) -> String? {
        let parts = topic.split(separator: ".")
        guard parts.count >= 2, feedKinds.contains(String(parts[0])) else { return nil }
        return String(parts[1])
    }

    /// The capture's feed names in order of appearance (for the converter's ranking).
    var feedNames: [String] {
        var names: [String] = []
        for record in records {
            if let feed = Self.feed(of: record.topic), !names.contains(feed) { names.append(feed) }
        }
        return names
    }

    /// How many records the replay plays on each topic, the records of `feeds` left out.
    func counts(excluding feeds: Set<String> = []) -> [String: UInt64] {
        var counts: [String: UInt64] = [:]
        for record in records {
            guard let feed = Self.feed(of: record.topic), !feeds.contains(feed) else { continue }
            counts[record.topic, default: 0] += 1
        }
        return counts
    }

    /// The data of every record on a topic starting with `prefix`, in capture order.
    func data<Payload: Codable & Sendable>(under prefix: String, as type: Payload.Type) throws -> [(topic: String, data: Payload)] {
        try records.filter { $0.topic.hasPrefix(prefix) }.map { ($0.topic, try Wire.decode(Envelope<Payload>.self, from: Data($0.envelope.utf8)).data) }
    }

    /// The data of the last record on `topic`.
    func last<Payload: Codable & Sendable>(_ topic: String, as type: Payload.Type) throws -> Payload {
        let record = try #require(records.last { $0.topic == topic }, "\(url.lastPathComponent) has no \(topic)")
        return try Wire.decode(Envelope<Payload>.self, from: Data(record.envelope.utf8)).data
    }
}

/// A stack fed by a replay instead of feeds of its own: rates-fetcher with `--feeds none` (but for the built-in feeds
/// a test still needs, on their `test` clients), a converter ranking the capture's feeds with `--no-conflation` (so it
/// prices every message, in order), and `tickwire-replay` playing the capture into the hub's ingest at full speed. What
/// the stack then holds is what the capture determines, not what a paced mock had sent by some time.
final class ReplayStack: Stoppable, @unchecked Sendable {
    // @unchecked: `replay` is only touched by the test that owns this value.
    let capture: CaptureFile
    let endpoints: Endpoints
    let fetcher: ServiceProcess
    let converter: ServiceProcess?
    let context: ZMQContext
    let fetcherRPC: RPCClient
    let converterRPC: RPCClient?
    /// The built-in feeds running beside the replay: the hub refuses the capture's records of these names.
    let testFeeds: Set<String>
    private(set) var replay: ServiceProcess?

    /// Starts rates-fetcher (with `testFeeds` on their test clients) and, with `converter`, a converter; returns once
    /// they are healthy, before anything is played.
    init(capture: CaptureFile, testFeeds: [String] = [], converter withConverter: Bool = true) async throws {
        self.capture = capture
        self.testFeeds = Set(testFeeds)
        endpoints = try Endpoints()
        fetcher = try await ServiceProcess(
            "rates-fetcher", endpoints.fetcherArguments + ["--feeds", "none"] + testFeeds.flatMap { ["--feed", "\($0)=test"] }, in: endpoints.directory)
        context = try ZMQContext()
        fetcherRPC = try client(context, endpoints.fetcherRep)
        if withConverter {
            let converter = try await ServiceProcess(
                "converter", endpoints.converterArguments + ["--sources", capture.feedNames.joined(separator: ","), "--no-conflation"],
                in: endpoints.directory)
            let rpc = try client(context, endpoints.converterRep)
            try await waitUntilHealthy(rpc, converter)
            (self.converter, converterRPC) = (converter, rpc)
        } else {
            (converter, converterRPC) = (nil, nil)
            try await waitUntilHealthy(fetcherRPC, fetcher)
        }
    }

    /// Plays the capture at `speed` (`max`: as fast as the hub takes it), its feeds kept live until ``stop()``.
    func startPlaying(speed: String = "max") async throws {
        replay = try await ServiceProcess(
            "tickwire-replay", [capture.url.path, "--speed", speed, "--hold", "--ingest", "ipc://\(endpoints.directory.path)/fetcher-ingest"],
            in: endpoints.directory)
    }

    /// Plays the capture at full speed, its feeds kept live until ``stop()``, and returns once rates-fetcher has
    /// republished every record of it (each topic's `seq` is the number of its records in the capture): from then on
    /// the hub holds the capture's last value of every topic.
    func playAndHold() async throws {
        try await startPlaying()
        let expected = capture.counts(excluding: testFeeds)
        var held: [String: UInt64] = [:]
        let complete = await eventually(within: .seconds(60)) {
            guard let snapshot = try? await fetcherRPC.call("snapshot", params: SnapshotRequest(prefix: ""), as: Snapshot.self) else { return false }
            held = Dictionary(snapshot.entries.map { ($0.topic.rawValue, $0.seq) }, uniquingKeysWith: max)
            return expected.allSatisfy { held[$0.key] == $0.value }
        }
        let missing = expected.filter { held[$0.key] != $0.value }.sorted { $0.key < $1.key }.prefix(10)
            .map { "\($0.key): \(held[$0.key].map(String.init) ?? "none") of \($0.value)" }
        try #require(complete, "rates-fetcher did not republish the whole capture: \(missing.joined(separator: ", ")); tickwire-replay's log:\n\(replay?.log.suffix(2000) ?? "")")
    }

    /// Waits until the converter's `price.<asset>.<currency>` is `expected` (it prices every message the hub republished,
    /// in order, and may still be catching up when ``playAndHold()`` returns); records an issue naming the price it
    /// stood at when that does not come within 30 s.
    func waitForPrice(_ asset: String, in currency: String, toBe expected: ExactDecimal) async throws {
        let rpc = try #require(converterRPC, "this stack has no converter")
        let topic = "price.\(asset).\(currency)"
        var seen: ExactDecimal?
        let deadline = ContinuousClock.now + .seconds(30)
        while ContinuousClock.now < deadline {
            let snapshot = try await rpc.call("snapshot", params: SnapshotRequest(prefix: topic), as: Snapshot.self)
            if let entry = snapshot.entries.first(where: { $0.topic.rawValue == topic }) {
                seen = try Wire.decode(Envelope<AssetPrice>.self, from: Data(entry.body.utf8)).data.price
                if seen == expected { return }
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        Issue.record("the converter's \(topic) stays \(seen.map { "\($0)" } ?? "none"), not \(expected)")
    }

    /// Stops the replay, the converter and rates-fetcher; expects each to exit cleanly.
    func stop() async {
        await fetcherRPC.close()
        await converterRPC?.close()
        if let replay, replay.isRunning { #expect(await replay.stop() == 0, "tickwire-replay's log:\n\(replay.log.suffix(2000))") }
        if let converter { #expect(await converter.stop() == 0) }
        #expect(await fetcher.stop() == 0)
    }
}

/// What `gzip -dc` makes of `file`.
func gunzip(_ file: URL) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "gzip -dc < \"$0\"", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
}
