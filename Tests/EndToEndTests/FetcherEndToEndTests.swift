import Bus
import ChildProcesses
import Foundation
import Logging
import Market
import TickwireContract
import Money
import Testing
import ZeroMQ
import BusContract

@Suite("rates-fetcher end to end", .serialized)
struct FetcherEndToEndTests {
    /// A subscriber that joins late gets the snapshot of every topic kind, then the updates, with no gap.
    @Test func lateJoinerReceivesSnapshotThenUpdatesWithoutGaps() async throws {
        let endpoints = try Endpoints()
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + [
            "--feeds", "mock", "--seed", "7", "--period", "fiat=1", "--period", "gnb=1", "--period", "masterdata=1",
        ], in: endpoints.directory)
        defer { Task { await fetcher.stop() } }
        let context = try ZMQContext()
        let rpc = try client(context, endpoints.fetcherRep)
        try await waitUntilHealthy(rpc, fetcher)
        try await Task.sleep(for: .seconds(2))

        let kinds = ["quote", "rate", "limits", "coin", "status", "assets", "wallets", "transactions"]
        let subscriber = try Subscriber(
            context: context, name: "late", endpoint: endpoints.fetcherPub, prefixes: kinds.map { "\($0)." },
            snapshot: { try await rpc.call("snapshot", params: SnapshotRequest(prefix: $0), as: Snapshot.self) },
            logger: Logger(label: "test"))
        let following = Task { await subscriber.run() }
        var snapshots: [[BusMessage]] = []
        var updates: [BusMessage] = []
        // Collect four seconds of updates after the snapshot arrives (the snapshot itself may be slow
        // on a loaded machine); give up after thirty seconds in all.
        let giveUp = ContinuousClock.now + .seconds(30)
        var deadline = giveUp
        for await event in subscriber.events {
            switch event {
            case .snapshot(_, _, let messages):
                snapshots.append(messages)
                deadline = min(giveUp, ContinuousClock.now + .seconds(4))
            case .message(let message): updates.append(message)
            case .unavailable(let reason): Issue.record("unavailable: \(reason)")
            }
            if ContinuousClock.now > deadline { break }
        }
        following.cancel()

        #expect(snapshots.count == 1, "a second snapshot means the subscriber saw a gap and re-synchronised")
        let snapshot = try #require(snapshots.first)
        #expect(Set(snapshot.map { String($0.topic.kind) }) == Set(kinds))
        #expect(snapshot.contains { $0.header.seq > 1 }, "the late joiner's snapshot should stand past the first value")
        // Each topic's updates go on from the snapshot's seq. A reader that falls behind sees only the newest of a
        // topic's waiting messages (the queue supersedes the older, counted), so a seq may skip; a lost message would
        // have made the subscriber re-synchronise, a second snapshot, which the first expectation above rules out.
        var seqs = Dictionary(snapshot.map { ($0.topic, $0.header.seq) }, uniquingKeysWith: max)
        for update in updates {
            let last = seqs[update.topic] ?? 0
            #expect(update.header.seq > last, "\(update.topic): seq \(update.header.seq) after \(last)")
            seqs[update.topic] = update.header.seq
        }
        for kind in ["quote", "rate", "status"] {
            #expect(updates.contains { $0.topic.kind == kind }, "no \(kind) update after the snapshot")
        }
        let quote = try #require(updates.first { $0.topic.rawValue == "quote.bitso.BTC-MXN" })
        #expect(try quote.decode(Quote.self).data.last > .zero)
        await rpc.close()
        #expect(await fetcher.stop() == 0, "rates-fetcher should exit cleanly on SIGTERM")
    }

    /// A Python subscriber (pyzmq) reads the stream with nothing but json: fed by the shipped capture (at 10x, so it
    /// joins while Bitso's quotes still come), it prints three of them, each exactly a quote of the capture, and in
    /// capture order.
    @Test func pythonSubscriberReadsTheStream() async throws {
        try await ReplayStack(capture: try CaptureFile(), converter: false).use { stack in
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python/subscribe.py")
            let outputURL = stack.endpoints.directory.appendingPathComponent("python.out")
            let errorURL = stack.endpoints.directory.appendingPathComponent("python.err")
            let python = try await ChildProcess.start(
                "python3", [script.path, stack.endpoints.fetcherPub, "quote.bitso.", "3"], output: outputURL, error: errorURL)
            try await stack.startPlaying(speed: "10")
            // The subscriber waits up to 30 s for each quote: under make test's load, the replay's first quotes came after
            // its 10 s once (tickwire-replay had logged nothing yet).
            let status = await python.waitForExit(within: .seconds(45))
            if status == nil { await python.stop() }
            #expect(status == 0, "python3 with pyzmq is needed (make test installs it): \((try? String(contentsOf: errorURL, encoding: .utf8)) ?? "")")
            let lines = String(decoding: try Data(contentsOf: outputURL), as: UTF8.self).split(separator: "\n")
            #expect(lines.count == 3)
            var read: [(topic: String, data: Quote)] = []
            for line in lines {
                let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                #expect(object["type"] as? String == "quote")
                let data = try #require(object["data"] as? [String: Any])
                #expect((data["last"] as? String).flatMap { try? ExactDecimal($0) } != nil, "money is a decimal string on the wire")
                read.append((try #require(object["topic"] as? String), try Wire.decode(Quote.self, from: try JSONSerialization.data(withJSONObject: data))))
            }
            let captured = try stack.capture.data(under: "quote.bitso.", as: Quote.self)
            let start = captured.indices.first { captured[$0].topic == read.first?.topic && captured[$0].data == read.first?.data }
            let matched = start.map { Array(captured[$0...].prefix(read.count)) }
            #expect(matched?.map(\.topic) == read.map(\.topic) && matched?.map(\.data) == read.map(\.data),
                    "the subscriber's quotes are consecutive quotes of the capture: \(read.map(\.topic))")
        }
    }

    /// The Python client (the tickwire package in clients/python/src) against rates-fetcher and the converter: its
    /// own test suite, with the Clone subscriber and the Lazy Pirate calls run against the real services.
    @Test func pythonClientPassesItsTestsAgainstTheStack() async throws {
        let endpoints = try Endpoints()
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "mock"], in: endpoints.directory)
        let converter = try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let outputURL = endpoints.directory.appendingPathComponent("python-client.out")
        let python = try await ChildProcess.start(
            "python3", [root.appendingPathComponent("clients/python/tests/test_tickwire.py").path], environment: [
                "TICKWIRE_TEST_STACK": "1", "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": root.appendingPathComponent("clients/python/src").path,
                "TICKWIRE_RATES_FETCHER_PUB": endpoints.fetcherPub, "TICKWIRE_RATES_FETCHER_REP": endpoints.fetcherRep,
                "TICKWIRE_CONVERTER_PUB": endpoints.converterPub, "TICKWIRE_CONVERTER_REP": endpoints.converterRep,
            ], output: outputURL)
        let status = await python.waitForExit(within: .seconds(120))
        let report = String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self)
        #expect(status == 0, "clients/python/tests/test_tickwire.py:\n\(report.suffix(3000))")
        #expect(report.contains("OK") && !report.contains("skipped=3"), "the stack tests ran: \(report.suffix(300))")
        if status == nil { await python.stop() }
        #expect(await converter.stop() == 0)
        #expect(await fetcher.stop() == 0)
    }

    /// Bad requests get JSON-RPC errors and the service keeps serving.
    @Test func badRequestsGetClearErrors() async throws {
        let endpoints = try Endpoints()
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "test"], in: endpoints.directory)
        defer { Task { await fetcher.stop() } }
        let context = try ZMQContext()
        let rpc = try client(context, endpoints.fetcherRep)
        try await waitUntilHealthy(rpc, fetcher)
        await #expect(throws: RPCError.self) { try await rpc.call("refresh", params: RefreshRequest(feed: "nope"), as: FeedStatus.self) }
        await #expect(throws: RPCError.self) { try await rpc.call("history", params: HistoryRequest(asset: "BTC", days: 0), as: PriceHistory.self) }
        await #expect(throws: RPCError.self) { try await rpc.call("history", params: HistoryRequest(asset: "NOPE"), as: PriceHistory.self) }
        await #expect(throws: RPCError.self) { try await rpc.call("history", params: HistoryRequest(asset: "BTC", currency: "not a code"), as: PriceHistory.self) }
        await #expect(throws: RPCError.self) { try await rpc.call("nope", as: String.self) }
        let history = try await rpc.call("history", params: HistoryRequest(asset: "BTC", days: 30), as: PriceHistory.self)
        #expect(history.points.count >= 30)
        let status = try await rpc.call("refresh", params: RefreshRequest(feed: "bitso"), as: FeedStatus.self)
        #expect(status.state == .ok)
        let feeds = try await rpc.call("feeds", as: [FeedStatus].self)
        #expect(Set(feeds.map(\.feed)) == ["bitso", "wazirx", "fiat", "coingecko", "gnb", "masterdata"])
        await rpc.close()
    }
}
