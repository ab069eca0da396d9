import Bus
import BusContract
import ChildProcesses
import Foundation
import Market
import Money
import Synchronization
import TickwireContract
import Testing
import ZeroMQ

@Suite("Python feed plugin end to end", .serialized)
struct PythonFeedEndToEndTests {
    /// The Done-when of issue 30 over the real binaries: Examples/python-feed's Kraken plugin joins a running stack.
    /// Within 5 s its new asset (XMR) is priced in USD and SEK at a subscriber of the converter and it is listed live in
    /// `feeds`; killed (SIGKILL), it is stale within 5 s, the converter's price of a market another feed also has (BTC,
    /// ranked kraken first) falls back to that feed and says so, and no service restarted.
    @Test func pluginJoinsAndItsMarketsFallBackWhenItDies() async throws {
        let endpoints = try Endpoints()
        let ingest = "ipc://\(endpoints.directory.path)/fetcher-ingest"
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "mock"], in: endpoints.directory)
        let converter = try await ServiceProcess(
            "converter", endpoints.converterArguments + ["--sources", "kraken,coingecko,bitso,wazirx"], in: endpoints.directory)
        let context = try ZMQContext()
        let fetcherRPC = try client(context, endpoints.fetcherRep)
        let converterRPC = try client(context, endpoints.converterRep)
        try await waitUntilHealthy(fetcherRPC, fetcher)
        try await waitUntilHealthy(converterRPC, converter)
        let pids = (fetcher.processIdentifier, converter.processIdentifier)

        let prices = Mutex<[String: AssetPrice]>([:])
        let subscriber = try OwnedSocket(context: context, type: .sub, name: "prices") { socket in
            try socket.subscribe("price.XMR.")
            try socket.subscribe("price.BTC.USD")
            try socket.connect(endpoints.converterPub)
        }
        let incoming = subscriber.incoming
        let following = Task {
            for await frames in incoming {
                guard let message = try? BusMessage(frames: frames), let price = try? message.decode(AssetPrice.self).data else { continue }
                prices.withLock { $0[message.topic.rawValue] = price }
            }
        }
        try await Task.sleep(for: .milliseconds(500))

        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let venvPython = root.appendingPathComponent(".venv/bin/python3").path
        let python = FileManager.default.isExecutableFile(atPath: venvPython) ? venvPython : "python3"
        let pluginLog = endpoints.directory.appendingPathComponent("kraken-feed.log")
        let plugin = try await ChildProcess.start(
            python, [root.appendingPathComponent("Examples/python-feed/kraken_feed.py").path, "--ingest", ingest, "--name", "kraken"],
            environment: ["PYTHONDONTWRITEBYTECODE": "1"], output: pluginLog)
        let log = { (try? String(contentsOf: pluginLog, encoding: .utf8)) ?? "" }

        let priced = await eventually(within: .seconds(5)) {
            prices.withLock { $0["price.XMR.USD"] != nil && $0["price.XMR.SEK"] != nil }
        }
        #expect(priced, "XMR not priced in USD and SEK within 5 s: \(prices.withLock { Array($0.keys) }); plugin: \(log())")
        let xmr = try #require(prices.withLock { $0["price.XMR.USD"] })
        #expect(xmr.price == (try ExactDecimal("116.41")), "the recorded last trade")
        #expect(try #require(prices.withLock { $0["price.XMR.SEK"] }).price > xmr.price, "a krona is worth less than a dollar")
        let live = try await eventually(within: .seconds(5)) {
            try await fetcherRPC.call("feeds", as: [FeedStatus].self).first { $0.feed == "kraken" }?.state == .live
        }
        #expect(live, "kraken is listed live in feeds")
        let krakenFirst = await eventually(within: .seconds(5)) { prices.withLock { $0["price.BTC.USD"]?.source == "kraken" } }
        #expect(krakenFirst, "BTC in USD from kraken, ranked first: \(String(describing: prices.withLock { $0["price.BTC.USD"] }))")

        plugin.signal(SIGKILL)
        _ = await plugin.stop()
        let stale = try await eventually(within: .seconds(5)) {
            try await fetcherRPC.call("feeds", as: [FeedStatus].self).first { $0.feed == "kraken" }?.state == .stale
        }
        #expect(stale, "kraken is stale within 5 s of SIGKILL")
        let fellBack = await eventually(within: .seconds(5)) {
            prices.withLock { $0["price.BTC.USD"]?.source == "coingecko (kraken stale)" }
        }
        #expect(fellBack, "BTC falls back to coingecko: \(String(describing: prices.withLock { $0["price.BTC.USD"] }))")
        #expect(prices.withLock { $0["price.BTC.USD"]?.price } != (try ExactDecimal("10724.8")))

        #expect(fetcher.isRunning && converter.isRunning)
        #expect((fetcher.processIdentifier, converter.processIdentifier) == pids, "no service restarted")
        following.cancel()
        await subscriber.close()
        await fetcherRPC.close()
        await converterRPC.close()
        #expect(await converter.stop() == 0)
        #expect(await fetcher.stop() == 0)
    }
}
