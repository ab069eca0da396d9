import Foundation
import Market
import Money

/// The stream payload of the bus benchmarks: a book ticker with decimal-string money,
/// about 200 bytes of JSON once wrapped in an ``Envelope``.
/// 64 distinct `quote.*` payloads (the product's own `Quote`), cycled by the publishers; the
/// Python peers build the same ones.
let sampleQuotes: [Quote] = (0..<64).map { index in
    let cents = 129_876_543 + Int128(index) * 137
    func money(_ m: Int128, _ scale: Int = 2) -> ExactDecimal { try! ExactDecimal(mantissa: m, scale: scale) }
    return Quote(
        source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: money(cents),
        high: money(131_000_000 + Int128(index)), low: money(128_000_050 - Int128(index)),
        volume: money(12_345_678_901 + Int128(index) * 7, 8),
        ask: money(cents + 712), bid: money(cents - 650))
}

/// Percentile of sorted samples (nearest rank).
func percentile(_ sorted: [Double], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return .nan }
    let rank = Int((p / 100 * Double(sorted.count)).rounded(.up)) - 1
    return sorted[min(max(rank, 0), sorted.count - 1)]
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) * 1e-18 }
    var microseconds: Double { seconds * 1e6 }
}

/// A box for state two threads share under the benchmark's own ordering (zmq's queues
/// publish the writes before the reader sees the message).
final class Unsafe<T>: @unchecked Sendable {
    var value: T
    init(_ value: T) { self.value = value }
}

/// splitmix64: the seeded generator both Swift and bench/conversion.py use.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Runs a blocking body on a thread of its own (never on the cooperative pool).
func onThread<T: Sendable>(_ name: String, _ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        let thread = Thread { continuation.resume(with: Result { try body() }) }
        thread.name = name
        thread.start()
    }
}

import Logging

/// The Bus's own log lines stay out of the figures (warnings and errors still show).
func quietLogger() -> Logger {
    var logger = Logger(label: "bench")
    logger.logLevel = .warning
    return logger
}

/// Runs `body` on a detached task while the main thread waits on a semaphore, not in an `await`: valgrind crashes
/// once the main thread parks in libdispatch's `sigsuspend` (the async main's idle loop), so a profiling mode's run
/// happens before it ever gets there.
func waitingOnSemaphore<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let done = DispatchSemaphore(value: 0)
    let outcome = Unsafe<Result<T, any Error>?>(nil)
    Task.detached {
        do { outcome.value = .success(try await body()) } catch { outcome.value = .failure(error) }
        done.signal()
    }
    done.wait()
    return try outcome.value!.get()
}
