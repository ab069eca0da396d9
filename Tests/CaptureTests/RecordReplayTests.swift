import Bus
import BusContract
import Capture
import Foundation
import Logging
import Market
import Money
import RatesFetcherCore
import RecorderCore
import ReplayCore
import TickwireContract
import TickwireFeeds
import Testing
import ZeroMQ

func ipcEndpoint(_ name: String) -> String {
    "ipc://\(FileManager.default.temporaryDirectory.path)/tickwire-capture-\(name)-\(UUID().uuidString.prefix(8))"
}

/// Polls `condition` every 10 ms for at most 30 s.
func waitFor(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<3_000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A quote envelope of `feed` for `base`-USD at `last`, numbered `seq`.
func quoteEnvelope(feed: String, base: String, last: String, seq: UInt64) throws -> Data {
    let quote = Quote(source: feed, market: MarketPair(base: base, quote: "USD"), last: try ExactDecimal(last), time: Date(timeIntervalSince1970: 1_795_000_000))
    return try Wire.encode(Envelope(type: "quote", seq: seq, time: Date(timeIntervalSince1970: 1_795_000_000), source: feed, data: quote))
}

@Suite("recorder and replay", .serialized)
struct RecordReplayTests {
    let logger = Logger(label: "test")

    /// The recorder follows its prefixes only, writes every message in order with its topic and envelope bytes, counts
    /// a seq gap, and on shutdown finishes the file.
    @Test func recorderWritesWhatItFollowsAndCountsGaps() async throws {
        try await withDirectoryAsync { directory in
            let context = try ZMQContext()
            let endpoint = ipcEndpoint("recorder")
            let publisher = try OwnedSocket(context: context, type: .pub, name: "pub") { try $0.bind(endpoint) }
            let recorder = CaptureRecorder(
                context: context, streams: [RecordedStream(endpoint: endpoint)], prefixes: ["quote.", "heartbeat."], directory: directory, logger: logger)
            let running = Task { try await recorder.run() }
            try await waitUntilRecording(recorder, from: publisher)
            var sent: [CaptureRecord] = []
            for seq in 1...500 where seq != 250 {
                let envelope = try quoteEnvelope(feed: "kraken", base: "XMR", last: "\(100 + seq)", seq: UInt64(seq))
                _ = try publisher.send([Data("quote.kraken.XMR-USD".utf8), envelope])
                _ = try publisher.send([Data("price.XMR.USD".utf8), envelope])
                sent.append(CaptureRecord(received: 0, topic: "quote.kraken.XMR-USD", envelope: envelope))
            }
            #expect(await waitFor { recorder.done.messages - recorder.done.refused >= 499 + 1 })
            running.cancel()
            try await running.value
            await publisher.close()
            let counts = recorder.done
            #expect(counts.gaps == 1)
            #expect(counts.files == 1)
            let records = try readAll(directory).filter { $0.topic.hasPrefix("quote.") }
            #expect(records.map(\.topic) == sent.map(\.topic))
            #expect(records.map(\.envelope) == sent.map(\.envelope))
            #expect(records.allSatisfy { $0.received > 1_700_000_000_000_000_000 })
            let header = try CaptureReader(url: try #require(CaptureReader.files(at: directory).first)).header
            #expect(header.endpoints == [endpoint])
            #expect(header.prefixes == ["quote.", "heartbeat."])
        }
    }

    /// A recorder whose writer may fall only 10 messages behind: its socket thread sleeps until the writer takes the
    /// queue, again and again through a flood of 20,000, and every message is written, in order, with no gap (a wake-up
    /// missed would leave the socket thread asleep and the rest unrecorded).
    @Test(.timeLimit(.minutes(1))) func recorderHeldByItsWriterLosesNothing() async throws {
        try await withDirectoryAsync { directory in
            let context = try ZMQContext()
            let endpoint = ipcEndpoint("recorder-held")
            let publisher = try OwnedSocket(context: context, type: .pub, name: "pub") { socket in
                try socket.set(.sendHighWaterMark, Int32(0))
                try socket.bind(endpoint)
            }
            let recorder = CaptureRecorder(
                context: context, streams: [RecordedStream(endpoint: endpoint)], prefixes: [], directory: directory, maxPending: 10, logger: logger)
            let running = Task { try await recorder.run() }
            try await waitUntilRecording(recorder, from: publisher)
            let before = recorder.done.messages
            let flood = 20_000
            for seq in 1...flood {
                let sent = try publisher.send([Data("quote.kraken.XMR-USD".utf8), try quoteEnvelope(feed: "kraken", base: "XMR", last: "\(seq)", seq: UInt64(seq))])
                #expect(sent)
            }
            #expect(await waitFor { recorder.done.messages - before >= flood })
            running.cancel()
            try await running.value
            await publisher.close()
            #expect(recorder.done.gaps == 0)
            let quotes = try readAll(directory).filter { $0.topic.hasPrefix("quote.") }
            #expect(quotes.count == flood)
            let misplaced = quotes.enumerated().first { EnvelopeSeqProbe.seq(of: $0.element.envelope) != UInt64($0.offset + 1) }
            #expect(misplaced == nil, "out of order at \(String(describing: misplaced?.offset))")
        }
    }

    /// A capture of two feeds (and service output the replay skips) played at full speed into the hub in process: both
    /// feeds' quotes are republished under their own names, in capture order, and both are listed live.
    @Test func replayPlaysEveryFeedOnOneConnection() async throws {
        try await withDirectoryAsync { directory in
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
            for index in 1...50 {
                try writer.append(CaptureRecord(received: Int64(index), topic: "quote.kraken.XMR-USD",
                                                envelope: try quoteEnvelope(feed: "kraken", base: "XMR", last: "\(100 + index)", seq: UInt64(index))))
                try writer.append(CaptureRecord(received: Int64(index), topic: "quote.bitso.BTC-USD",
                                                envelope: try quoteEnvelope(feed: "bitso", base: "BTC", last: "\(90_000 + index)", seq: UInt64(index))))
            }
            try writer.append(CaptureRecord(received: 51, topic: "price.XMR.USD", envelope: Data("{}".utf8)))
            try writer.append(CaptureRecord(received: 51, topic: "status.kraken", envelope: Data("{}".utf8)))
            try writer.close()
            #expect(CaptureReplay.feedNames(in: writer.files) == ["kraken", "bitso"])

            try await withHub { context, publisher, hub, endpoint in
                let connection = try FeedConnection(context: context, name: "kraken", otherNames: ["bitso"], endpoint: endpoint, logger: logger)
                let replay = CaptureReplay(files: writer.files, connection: connection, speed: .max, hold: .zero, logger: logger)
                let heartbeats = Task { try await connection.run() }
                try await replay.run()
                #expect(replay.done.sent == 100)
                #expect(replay.done.skipped == 2)
                func lastBitso() -> ExactDecimal? {
                    guard let entry = publisher.snapshot(prefix: "quote.bitso.").entries.first else { return nil }
                    return try? BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8)).decode(Quote.self).data.last
                }
                let last = try ExactDecimal("90050")
                #expect(await waitFor { lastBitso() == last })
                #expect(await waitFor { hub.statuses.allSatisfy { ($0.accepted ?? 0) >= 50 } })
                #expect(Set(hub.statuses.map(\.feed)) == ["kraken", "bitso"])
                #expect(hub.statuses.allSatisfy { $0.state == .live && ($0.refused ?? [:]).isEmpty })
                heartbeats.cancel()
                try await heartbeats.value
            }
        }
    }

    /// A replay at full speed into a hub whose queue is full (it reads nothing at first; high-water marks of 1): the
    /// replay holds, sending nothing once the sockets' buffers are full, until the hub reads; then every quote arrives in capture order, numbered 1, 2,
    /// 3..., and the replay finishes. Its waits' safety net is a second, so the 5,000 quotes come only through the
    /// socket thread's wake-ups within the test's time.
    @Test func replayIntoAFullHubLosesNothingAndFinishes() async throws {
        try await withDirectoryAsync { directory in
            let count = 5_000
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
            for index in 1...count {
                try writer.append(CaptureRecord(received: Int64(index), topic: "quote.kraken.XMR-USD",
                                                envelope: try quoteEnvelope(feed: "kraken", base: "XMR", last: "\(100 + index)", seq: UInt64(index))))
            }
            try writer.close()
            let context = try ZMQContext()
            let endpoint = ipcEndpoint("full-hub")
            let hub = try Socket(context: context, type: .sub)
            defer { hub.close() }
            try hub.set(.receiveHighWaterMark, Int32(1))
            try hub.subscribe("")
            try hub.bind(endpoint)
            let connection = try FeedConnection(
                context: context, name: "kraken", endpoint: endpoint, heartbeatInterval: .seconds(600), highWaterMark: 1, logger: logger)
            let heartbeats = Task { try await connection.run() }
            let replay = CaptureReplay(files: writer.files, connection: connection, speed: .max, hold: .zero, logger: logger)
            let playing = Task { try await replay.run() }
            // A bare socket takes in its connection (and so sends its subscription) only when called.
            let subscribed = ContinuousClock.now + .seconds(30)
            while connection.subscriptions == 0, ContinuousClock.now < subscribed {
                _ = try hub.receive(dontWait: true)
                try await Task.sleep(for: .milliseconds(10))
            }
            // Held once the socket buffers are full too: nothing sent for 100 ms, well short of the end.
            var last = -1
            #expect(await waitFor {
                let sent = replay.done.sent
                defer { last = sent }
                return sent > 0 && sent == last
            })
            try await Task.sleep(for: .milliseconds(100))
            #expect(replay.done.sent == last && last < count, "sent \(replay.done.sent) while the hub read nothing")
            #expect(replay.done.waits > 0)

            var received: [(seq: UInt64, last: String)] = []
            let deadline = ContinuousClock.now + .seconds(60)
            while received.count < count, ContinuousClock.now < deadline {
                if let frames = try hub.receive(dontWait: true) {
                    let message = try BusMessage(frames: frames)
                    if message.topic.rawValue.hasPrefix("quote.") {
                        received.append((message.header.seq, try message.decode(Quote.self).data.last.description))
                    }
                } else {
                    try await Task.sleep(for: .milliseconds(1))
                }
            }
            #expect(received.count == count)
            let misplaced = received.enumerated().first { $0.element.seq != UInt64($0.offset + 1) || $0.element.last != "\(101 + $0.offset)" }
            #expect(misplaced == nil, "not numbered in capture order: \(String(describing: misplaced))")
            try await playing.value
            #expect(replay.finished)
            #expect(replay.done.sent == count)
            heartbeats.cancel()
            try await heartbeats.value
        }
    }

    /// A capture whose third record is corrupt: the replay sends the two before it and stops, naming the record and its offset.
    @Test func replayStopsAtABadRecord() async throws {
        try await withDirectoryAsync { directory in
            let good = (1...4).map { index in
                CaptureRecord(received: Int64(index), topic: "quote.kraken.XMR-USD",
                              envelope: (try? quoteEnvelope(feed: "kraken", base: "XMR", last: "\(100 + index)", seq: UInt64(index))) ?? Data())
            }
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
            try writer.append(good[0])
            try writer.append(good[1])
            try writer.append(CaptureRecord(received: 3, topic: "quote.kraken.XMR-USD", envelope: Data("{\"type\":\"quote\"}".utf8)))
            try writer.append(good[3])
            try writer.close()
            try await withHub { context, publisher, hub, endpoint in
                let connection = try FeedConnection(context: context, name: "kraken", endpoint: endpoint, logger: logger)
                let replay = CaptureReplay(files: writer.files, connection: connection, speed: .max, hold: .zero, logger: logger)
                let heartbeats = Task { try await connection.run() }
                let error = try await #require(throws: ReplayError.self) { try await replay.run() }
                #expect(error.error.record == 3)
                #expect(error.error.file == writer.files[0].path)
                #expect(error.error.offset > 0)
                #expect(error.description.contains("record 3 at byte \(error.error.offset)"))
                #expect(replay.done.sent == 2)
                #expect(await waitFor { (hub.statuses.first?.accepted ?? 0) >= 2 })
                // The hub counts a message accepted before its republication reaches the snapshot: waited for.
                func lastKraken() -> ExactDecimal? {
                    guard let entry = publisher.snapshot(prefix: "quote.kraken.").entries.first else { return nil }
                    return try? BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8)).decode(Quote.self).data.last
                }
                let last = try ExactDecimal("102")
                #expect(await waitFor { lastKraken() == last })
                heartbeats.cancel()
                try await heartbeats.value
            }
        }
    }

    /// The hub in process on an ipc endpoint, no reserved names, for `body`; closed after.
    func withHub(_ body: (ZMQContext, Publisher, IngestHub, String) async throws -> Void) async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "rates-fetcher", endpoints: ["inproc://capture-hub-\(UUID())"], logger: logger)
        let hub = IngestHub(publisher: publisher, reserved: ["rates-fetcher"], logger: logger)
        let endpoint = ipcEndpoint("hub")
        let ingest = try IngestEndpoint(binding: endpoint, hub: hub, context: context, keys: nil, service: "rates-fetcher", logger: logger)
        let serving = Task { await ingest.run() }
        do {
            try await body(context, publisher, hub, endpoint)
        } catch {
            await ingest.close()
            serving.cancel()
            await publisher.close()
            throw error
        }
        await ingest.close()
        serving.cancel()
        await serving.value
        await publisher.close()
    }
}

/// A temporary directory, removed after `body`.
func withDirectoryAsync(_ body: (URL) async throws -> Void) async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    try await body(directory)
}

/// Reads an envelope's `seq` (tests).
enum EnvelopeSeqProbe {
    static func seq(of envelope: Data) -> UInt64? {
        (try? JSONSerialization.jsonObject(with: envelope) as? [String: Any])?["seq"].flatMap { ($0 as? NSNumber)?.uint64Value }
    }
}

/// Sends heartbeats until `recorder` has recorded one (its subscription took effect), for at most 5 s.
func waitUntilRecording(_ recorder: CaptureRecorder, from publisher: OwnedSocket) async throws {
    var connected = false
    for _ in 0..<500 where !connected {
        _ = try publisher.send([Data("heartbeat.x".utf8), Data("{\"seq\":1}".utf8)])
        try await Task.sleep(for: .milliseconds(10))
        connected = recorder.done.messages > 0
    }
    #expect(connected, "the recorder's subscription did not take effect")
}
