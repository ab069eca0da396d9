import Bus
import BusContract
import Foundation
import Market
import TickwireContract
import Synchronization
import Testing
import ZeroMQ

/// A raw ZeroMQ PUB socket as a feed plugin in any language would have: it writes the envelopes itself.
private final class TestPlugin: @unchecked Sendable {
    // @unchecked: the socket is used only by the test that owns this value, one call at a time.
    private let socket: Socket
    private var seqs: [String: Int] = [:]

    init(context: ZMQContext, ingest: String) throws {
        socket = try Socket(context: context, type: .pub)
        try socket.connect(ingest)
    }

    /// Sends `[topic, body]` as they are.
    func send(_ topic: String, body: String) throws {
        try socket.send([Data(topic.utf8), Data(body.utf8)])
    }

    /// Sends an envelope of `data` (JSON text) on `topic` with the topic's next seq, or `seq` if given, and a
    /// `traceparent` if given.
    func publish(_ topic: String, data: String, seq: Int? = nil, source: String = "testfeed", traceparent: String? = nil) throws {
        let next = seq ?? (seqs[topic] ?? 0) + 1
        seqs[topic] = max(next, seqs[topic] ?? 0)
        let kind = topic.prefix { $0 != "." }
        let trace = traceparent.map { #""traceparent":"\#($0)","# } ?? ""
        try send(topic, body: #"{"version":1,"type":"\#(kind)","seq":\#(next),"time":"2026-11-26T12:00:00.000Z","source":"\#(source)",\#(trace)"data":\#(data)}"#)
    }

    func heartbeat() throws {
        try publish("heartbeat.testfeed", data: #"{"service":"testfeed","instance":"e2e-run","topics":1,"dropped":0,"intervalMilliseconds":1000}"#)
    }

    func quote(last: String, seq: Int? = nil, traceparent: String? = nil) throws {
        try publish("quote.testfeed.ZZZ-USD", data: #"{"source":"testfeed","market":{"base":"ZZZ","quote":"USD"},"last":"\#(last)","open":"1.00"}"#,
                    seq: seq, traceparent: traceparent)
    }

    func close() { socket.close() }
}

@Suite("Feed plugins into the hub, end to end", .serialized)
struct FeedIngestEndToEndTests {
    /// A test plugin on the ingest endpoint of the real rates-fetcher sends garbage, a built-in feed's name, seq
    /// backwards, a flood past `--ingest-rate`, price 0, a negative price and a 10,000-digit number: each is refused and
    /// counted in `feeds`; its good quote of a new asset is priced by the real converter, which never sees a refused
    /// value; both services stay healthy.
    @Test func badInputsAreRefusedAndAGoodQuoteIsPriced() async throws {
        let endpoints = try Endpoints()
        let ingest = "ipc://\(endpoints.directory.path)/fetcher-ingest"
        let fetcher = try await ServiceProcess(
            "rates-fetcher", endpoints.fetcherArguments + ["--feeds", "mock", "--seed", "7", "--ingest-rate", "20"], in: endpoints.directory)
        defer { Task { await fetcher.stop() } }
        let converter = try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory)
        defer { Task { await converter.stop() } }
        let context = try ZMQContext()
        let fetcherRPC = try client(context, endpoints.fetcherRep)
        let converterRPC = try client(context, endpoints.converterRep)
        try await waitUntilHealthy(fetcherRPC, fetcher)
        try await waitUntilHealthy(converterRPC, converter)

        let prices = try OwnedSocket(context: context, type: .sub, name: "prices") { socket in
            try socket.subscribe("price.ZZZ.")
            try socket.connect(endpoints.converterPub)
        }
        let seen = PricesSeen()
        let watching = Task { for await frames in prices.incoming { seen.add(frames) } }
        defer { watching.cancel() }

        let plugin = try TestPlugin(context: context, ingest: ingest)
        defer { plugin.close() }
        func feeds() async throws -> [String: FeedStatus] {
            let list = try await fetcherRPC.call("feeds", as: [FeedStatus].self)
            return Dictionary(list.map { ($0.feed, $0) }, uniquingKeysWith: { first, _ in first })
        }
        // A PUB drops what it sends before it is connected: heartbeats until the hub lists the plugin.
        let joined = try await eventually(within: .seconds(15)) {
            try plugin.heartbeat()
            return try await feeds()["testfeed"]?.state == .live
        }
        #expect(joined, "the hub never listed the plugin live:\n\(fetcher.log.suffix(2000))")

        let traceID = "4bf92f3577b34da6a3ce929d0e0e4736"
        try plugin.quote(last: "1.25", seq: 10, traceparent: "00-\(traceID)-00f067aa0ba902b7-01")
        try plugin.send("quote.testfeed.ZZZ-USD", body: "garbage, not an envelope")
        try plugin.publish("quote.bitso.BTC-MXN", data: #"{"source":"bitso","market":{"base":"BTC","quote":"MXN"},"last":"1"}"#, source: "bitso")
        try plugin.quote(last: "7", seq: 5)
        try plugin.quote(last: "0", seq: 11)
        try plugin.quote(last: "-5", seq: 12)
        try plugin.quote(last: String(repeating: "9", count: 10_000), seq: 13)
        try await Task.sleep(for: .milliseconds(1500))  // a second's budget again before the flood
        for _ in 0..<200 { try plugin.heartbeat() }

        let counted = try await eventually(within: .seconds(10)) {
            let refused = try await feeds()["testfeed"]?.refused ?? [:]
            return refused["malformed"] == 1 && refused["seq"] == 1 && refused["value"] == 3 && (refused["rate-limit"] ?? 0) >= 150
        }
        let all = try await feeds()
        #expect(counted, "refusals of testfeed: \(all["testfeed"]?.refused ?? [:])")
        #expect(all["testfeed"]?.kind == .plugin && all["testfeed"]?.state == .live)
        #expect(all["bitso"]?.refused == ["reserved": 1] && all["bitso"]?.kind == .builtIn)

        let priced = await eventually(within: .seconds(10)) { seen.prices["USD"] != nil }
        #expect(priced, "the converter priced ZZZ in USD from the plugin's quote")
        #expect(Set(seen.prices["USD"] ?? []) == ["1.25000000"], "only the accepted price reached the converter: \(seen.prices)")
        #expect(seen.traceIDs.contains(traceID), "the price continues the trace the plugin published its quote in: \(seen.traceIDs)")
        let snapshot = try await fetcherRPC.call("snapshot", params: SnapshotRequest(prefix: "quote.bitso.BTC-MXN"), as: Snapshot.self)
        let bitso = try #require(snapshot.entries.first)
        #expect(try BusMessage(topic: bitso.topic.rawValue, body: Data(bitso.body.utf8)).decode(Quote.self).data.last != 1,
                "the plugin's quote under bitso's name was not republished")

        try await waitUntilHealthy(fetcherRPC, fetcher, within: .seconds(5))
        try await waitUntilHealthy(converterRPC, converter, within: .seconds(5))
        await prices.close()
        await fetcherRPC.close()
        await converterRPC.close()
        #expect(await converter.stop() == 0)
        #expect(await fetcher.stop() == 0, "rates-fetcher exits cleanly on SIGTERM")
    }
}

/// The converter's `price.ZZZ.<FIAT>` prices, by currency, in the order they came.
private final class PricesSeen: Sendable {
    private let seen = Mutex<(prices: [String: [String]], traceIDs: Set<String>)>(([:], []))

    func add(_ frames: [Data]) {
        guard let message = try? BusMessage(frames: frames), !message.isRetraction,
              let price = try? message.decode(AssetPrice.self).data else { return }
        seen.withLock { seen in
            seen.prices[price.currency, default: []].append(price.price.description)
            if let traceparent = message.header.traceparent { seen.traceIDs.insert(String(traceparent.split(separator: "-")[1])) }
        }
    }

    var prices: [String: [String]] { seen.withLock { $0.prices } }
    var traceIDs: Set<String> { seen.withLock { $0.traceIDs } }
}
