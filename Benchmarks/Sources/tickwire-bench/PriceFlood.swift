import Bus
import BusContract
import TickwireClients
import Foundation
import TickwireContract
import Money
import ZeroMQ

/// `tickwire-bench flood-prices PUB REP SECONDS RATE`: stands in for the converter in front of a real
/// presenter (benchmark 6b, `bench/services.py`). It binds the converter's PUB and REP endpoints,
/// answers `snapshot` as the converter does, and publishes `price.*` updates on 100 topics (20 assets
/// in 5 currencies) for SECONDS, RATE per second (0: flat out), then prints `{"published": N, "dropped": D}`.
enum PriceFlood {
    static let assets = ["BTC", "ETH", "XRP", "LTC", "SOL", "ADA", "DOT", "DOGE", "AVAX", "LINK",
                         "TRX", "BCH", "XLM", "ATOM", "UNI", "ETC", "FIL", "NEAR", "ALGO", "AAVE"]
    static let currencies = ["USD", "EUR", "SEK", "MXN", "INR"]

    /// One price per topic, 100 topics.
    static func updates() throws -> [(StreamTopic<AssetPrice>, AssetPrice)] {
        try assets.flatMap { asset in
            try currencies.map { currency in
                (try Topics.price(asset: asset, currency: currency),
                 AssetPrice(asset: asset, currency: currency, price: try ExactDecimal("65212.34000000"),
                            changePercent24h: try ExactDecimal("-1.25"), path: [asset, "USD", currency], quoteTime: Date()))
            }
        }
    }

    static func run(pub: String, rep: String, seconds: Double, rate: Double) async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "converter", endpoints: [pub], logger: quietLogger())
        var methods = RPCMethods()
        methods.register(StandardAPI.snapshot) { publisher.snapshot(prefix: $0.prefix) }
        let server = try RPCServer(context: context, service: "converter", endpoints: [rep], methods: methods, logger: quietLogger())
        let serving = Task { await server.run() }
        let heartbeats = Task { try await publisher.run() }
        let updates = try updates()
        print("ready")
        fflush(nil)
        try await Task.sleep(for: .seconds(2))  // the presenter connects and takes its first snapshot
        let published = try await onThread("flood") {
            let start = ContinuousClock.now
            let deadline = start + .seconds(seconds)
            let total = rate > 0 ? Int(rate * seconds) : Int.max
            var count = 0
            while count < total, ContinuousClock.now < deadline || rate > 0 {
                if rate > 0 {
                    // Paced in bursts of 1,000, each at its own time (absolute, so no drift).
                    let due = start + .seconds(Double(count) / rate)
                    if due > ContinuousClock.now { Thread.sleep(forTimeInterval: (due - ContinuousClock.now).seconds) }
                }
                for _ in 0..<min(1000, total - count) {
                    var (topic, price) = updates[count % updates.count]
                    price.price = try ExactDecimal(mantissa: 6_521_234_000_000 + Int128(count), scale: 8)
                    price.quoteTime = Date()
                    try publisher.publish(price, on: topic)
                    count += 1
                }
            }
            return count
        }
        try await Task.sleep(for: .seconds(1))  // the last messages drain before the counts are read
        print(#"{"published": \#(published), "dropped": \#(publisher.droppedMessages)}"#)
        fflush(nil)
        try await Task.sleep(for: .seconds(3))
        serving.cancel()
        heartbeats.cancel()
        await publisher.close()
    }
}
