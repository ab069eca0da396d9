import Bus
import BusContract
import Foundation
import TickwireContract
import Testing
import ZeroMQ

@Suite("replay end to end", .serialized)
struct ReplayDeterminismTests {
    /// The shipped capture.
    static let capture = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("captures/demo.ndjson.gz")

    /// The shipped capture replayed at full speed into two fresh stacks (rates-fetcher --feeds none, a converter
    /// ranking the capture's feeds) gives the converter the same `price.*` data in the same order (times aside).
    @Test func fullSpeedReplaysGiveIdenticalPrices() async throws {
        let feeds = try feedNames(of: Self.capture)
        try #require(!feeds.isEmpty)
        async let first = replayedPrices(feeds: feeds)
        async let second = replayedPrices(feeds: feeds)
        let (one, two) = try await (first, second)
        #expect(one.count > 20, "the capture gives the converter prices")
        #expect(one.count == two.count)
        if let difference = zip(one, two).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("price \(difference.offset) differs: \(difference.element.0) vs \(difference.element.1)")
        }
    }

    /// The capture's feed names (`quote.<feed>.`, ...), for the converter's ranking, read with the shell's gzip.
    private func feedNames(of capture: URL) throws -> [String] {
        let text = try gunzip(capture)
        var names: [String] = []
        for line in text.split(separator: "\n").dropFirst() {
            guard let topicStart = line.range(of: "\"topic\":\"") else { continue }
            let topic = line[topicStart.upperBound...].prefix { $0 != "\"" }
            let parts = topic.split(separator: ".")
            guard parts.count >= 2, ["quote", "rate", "limits", "book", "trade", "coin"].contains(String(parts[0])) else { continue }
            if !names.contains(String(parts[1])) { names.append(String(parts[1])) }
        }
        return names
    }

    /// One fresh stack, the capture replayed into it at full speed: every `price.*` message the converter published,
    /// as `topic data` with the quote's time taken out.
    private func replayedPrices(feeds: [String]) async throws -> [String] {
        let endpoints = try Endpoints()
        let ingest = "ipc://\(endpoints.directory.path)/fetcher-ingest"
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "none"], in: endpoints.directory)
        let converter = try await ServiceProcess(
            "converter", endpoints.converterArguments + ["--sources", feeds.joined(separator: ","), "--no-conflation"], in: endpoints.directory)
        let context = try ZMQContext()
        let converterRPC = try client(context, endpoints.converterRep)
        try await waitUntilHealthy(converterRPC, converter)
        let prices = try OwnedSocket(context: context, type: .sub, name: "prices", receiveBuffer: 1_000_000) { socket in
            try socket.subscribe("price.")
            try socket.subscribe("heartbeat.")
            try socket.connect(endpoints.converterPub)
        }
        // Connected once the converter's heartbeat comes through.
        _ = await prices.incoming.first(within: .seconds(10)) { String(decoding: $0[0], as: UTF8.self).hasPrefix("heartbeat.") }
        let replay = try await ServiceProcess(
            "tickwire-replay", [Self.capture.path, "--speed", "max", "--ingest", ingest], in: endpoints.directory)
        _ = await eventually(within: .seconds(60)) { !replay.isRunning }
        #expect(await replay.stop() == 0, "tickwire-replay's log:\n\(replay.log.suffix(3000))")
        var seen: [String] = []
        // What the converter still has to publish comes within a second (the replay ended 2 s after its last message).
        while let frames = await prices.incoming.first(within: .seconds(1), where: { String(decoding: $0[0], as: UTF8.self).hasPrefix("price.") }) {
            var price = try Wire.decode(Envelope<AssetPrice>.self, from: frames[1]).data
            price.quoteTime = nil
            seen.append("\(String(decoding: frames[0], as: UTF8.self)) \(String(decoding: try Wire.encode(price), as: UTF8.self))")
        }
        await prices.close()
        await converterRPC.close()
        #expect(await converter.stop() == 0)
        #expect(await fetcher.stop() == 0)
        return seen
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
