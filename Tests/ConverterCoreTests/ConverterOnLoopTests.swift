import Bus
import ConverterCore
import Foundation
import Logging
import Market
import Money
import ServiceSupport
import Testing
import TickwireClients
import TickwireContract
import TickwireStack
import BusContract

/// The converter's services in this process, as its executable runs them: its RPC server and its clients of
/// rates-fetcher on the runtime's loop, its stream and re-pricing off it, against a rates-fetcher stand-in.
@Suite("Converter on its service loop")
struct ConverterOnLoopTests {
    private static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// The kernel names of this process's threads (their first 15 bytes).
    private func threadNames() -> [String] {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.compactMap { id in
            (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8))?.trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// Rates and a quote published by the stand-in reach the converter through its snapshot and its stream: `convert`
    /// answers from them, a new quote is re-priced and published at once; the converter's RPC socket is read by its
    /// loop's thread, with no thread of its own.
    @Test func convertsAndRepricesOnTheLoop() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-converter-loop-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        func ipc(_ name: String) -> String { "ipc://\(folder.path)/\(name)" }

        // rates-fetcher's stand-in: its stream and its `snapshot` method, its server on a loop of its own.
        let fetcherRuntime = try Runtime(service: "rates-fetcher", logger: Self.logger)
        let fetcherPublisher = try fetcherRuntime.publisher(binding: [ipc("fetcher-pub")])
        let fetcherServer = try fetcherRuntime.rpcServer(
            binding: [ipc("fetcher-rep")], methods: fetcherRuntime.standardMethods(publisher: fetcherPublisher) {
                Health(service: "rates-fetcher", started: fetcherRuntime.started, upstreams: [:])
            },
            onLoop: true)
        let btc = MarketPair(base: "BTC", quote: "USD")
        try fetcherPublisher.publish(ExchangeRate(from: "USD", to: "SEK", rate: try ExactDecimal("10.5")), on: Topics.rate(source: "ecb", from: "USD", to: "SEK"))
        try fetcherPublisher.publish(Quote(source: "coingecko", market: btc, last: 70_000), on: Topics.quote(feed: "coingecko", market: btc))

        // A name of its own, so that its threads are told apart from those of other tests' converters.
        let runtime = try Runtime(service: "cvloop", logger: Self.logger)
        #expect(!threadNames().contains("loop-cvloop"), "a runtime starts its loop only when asked for it")
        let fetcher = try RatesFetcherClient.live(runtime.connection(onLoop: true), rep: ipc("fetcher-rep"), pub: ipc("fetcher-pub"))
        let services = try [fetcherPublisher, fetcherServer] + Converter.services(
            ConverterConfiguration(rep: ipc("converter-rep"), pub: ipc("converter-pub"), displayCurrencies: ["USD", "SEK"]),
            fetcher: fetcher, runtime: runtime)
        let tasks = services.map { service in Task { try? await service.run() } }

        let converter = try ConverterClient.live(LiveConnection(logger: Self.logger), rep: ipc("converter-rep"), pub: ipc("converter-pub"))
        let request = ConvertRequest(amount: 100, from: "USD", to: "SEK")
        var converted: ConvertResult?
        for _ in 0..<150 where converted == nil {
            converted = try? await converter.convert(request)
            if converted == nil { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(converted?.amount == 1_050)

        // The price stream: its snapshot holds the price made from the first quote; a new quote is re-priced at once.
        let seen = PricesSeen()
        let following = Task { for await event in converter.prices() { await seen.note(event) } }
        let first = await seen.wait { $0["BTC/SEK"] == 735_000 }
        #expect(first["BTC/SEK"] == 735_000, "prices seen: \(first)")
        try fetcherPublisher.publish(Quote(source: "coingecko", market: btc, last: 71_000), on: Topics.quote(feed: "coingecko", market: btc))
        let repriced = await seen.wait { $0["BTC/SEK"] == 745_500 }
        #expect(repriced["BTC/SEK"] == 745_500, "prices seen: \(repriced)")
        following.cancel()

        let names = threadNames()
        #expect(names.filter { $0 == "loop-cvloop" }.count == 1, "one loop per runtime: \(names)")
        #expect(try runtime.loop === runtime.loop)
        // Without the loop, its RPC server's socket would have a thread of its own.
        #expect(!names.contains("zmq-cvloop-rpc"), "threads: \(names)")

        tasks.forEach { $0.cancel() }
        for task in tasks { await task.value }
        await (try runtime.loop).shutdown()
        await (try fetcherRuntime.loop).shutdown()
    }
}

/// The last price a reader of the converter's stream saw of each `ASSET/FIAT`.
private actor PricesSeen {
    var prices: [String: ExactDecimal] = [:]

    func note(_ event: StreamEvent<AssetPrice>) {
        switch event {
        case .snapshot(let updates):
            prices = [:]
            for update in updates { prices["\(update.value.asset)/\(update.value.currency)"] = update.value.price }
        case .update(let update): prices["\(update.value.asset)/\(update.value.currency)"] = update.value.price
        case .removed, .unavailable: break
        }
    }

    /// Waits up to 20 s for `condition` to hold on the prices seen; returns them.
    func wait(until condition: ([String: ExactDecimal]) -> Bool) async -> [String: ExactDecimal] {
        let deadline = ContinuousClock.now + .seconds(20)
        while ContinuousClock.now < deadline, !condition(prices) {
            try? await Task.sleep(for: .milliseconds(20))
        }
        return prices
    }
}
