import Benchmark
import Bus
import TickwireClients
import Foundation
import Market
import Money

// Micro-benchmarks of the hot paths behind `make bench`, for package-benchmark's allocation and
// instruction counts: `swift package --scratch-path .build benchmark` in Benchmarks/.
// (The peers, ratios and RESULTS.md come from the `tickwire-bench` executable.)

let benchmarks: @Sendable () -> Void = {
    let tick = Quote(
        source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: try! ExactDecimal("1298765.43"),
        high: try! ExactDecimal("1310000.00"), low: try! ExactDecimal("1280000.50"), volume: try! ExactDecimal("123.45678901"),
        ask: try! ExactDecimal("1298772.55"), bid: try! ExactDecimal("1298758.93"))
    let body = try! Wire.encode(Envelope(type: "quote", seq: 1, time: Date(), source: "bitso", data: tick))
    let topic = Data("quote.bitso.BTC-MXN".utf8)

    Benchmark("Wire.encode quote envelope", configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal])) { benchmark in
        for index in benchmark.scaledIterations {
            blackHole(try Wire.encode(Envelope(type: "quote", seq: UInt64(index), time: Date(), source: "bitso", data: tick)))
        }
    }

    Benchmark("BusMessage + decode quote envelope", configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal])) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try BusMessage(frames: [topic, body]).decode(Quote.self))
        }
    }

    let graph = try! RateGraph([
        ExchangeRate(from: "USD", to: "EUR", rate: try! ExactDecimal("0.7361")),
        ExchangeRate(from: "CAD", to: "USD", rate: try! ExactDecimal("0.7312")),
        ExchangeRate(from: "AUD", to: "CAD", rate: try! ExactDecimal("0.9234")),
    ])
    let rate = try! graph.rate(from: "AUD", to: "EUR")
    let amount = try! ExactDecimal("1234.56")
    Benchmark("DerivedRate.convert half-even (3 hops)", configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal], scalingFactor: .kilo)) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(try rate.convert(amount, scale: 2))
        }
    }

    Benchmark("MoneyFormatter.currency de_AT", configuration: .init(metrics: [.wallClock, .throughput, .mallocCountTotal])) { benchmark in
        for _ in benchmark.scaledIterations {
            blackHole(MoneyFormatter.currency(amount, code: "EUR", locale: "de_AT", fractionDigits: 2))
        }
    }
}
