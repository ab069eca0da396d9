import Foundation
import Money
import Synchronization

/// SplitMix64: a small generator that yields the same sequence for the same seed on every platform.
public struct SeededGenerator: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// A generator seeded with `seed`.
    public init(seed: UInt64) { state = seed }

    /// A generator for one named stream within a seed, e.g. one coin's history.
    public init(seed: UInt64, stream: String) {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325  // FNV-1a, stable across runs unlike Hasher
        for byte in stream.utf8 { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }
        state = seed ^ hash
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `range` (modulo bias is negligible for these small ranges).
    public mutating func int(in range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }
}

/// Seeded, mean-reverting random walks, one per key, measured in basis points away from a fixture price.
///
/// Every `step` moves its walk by a non-zero amount, and no walk strays more than `limit` from zero,
/// so mock prices stay positive and within a few percent of the recorded ones.
public final class PriceWalk: Sendable {
    /// Farthest a walk may stray, in basis points (4 %).
    public static let limit = 400

    private struct State {
        var generator: SeededGenerator
        var offsets: [String: Int] = [:]
    }

    private let state: Mutex<State>

    /// Walks seeded with `seed`, each starting at zero.
    public init(seed: UInt64) {
        state = Mutex(State(generator: SeededGenerator(seed: seed)))
    }

    /// Moves walk `key` one step and returns its new offset in basis points.
    public func step(_ key: String) -> Int {
        state.withLock { state in
            let old = state.offsets[key, default: 0]
            var new = old - old / 8 + state.generator.int(in: -30...30)
            if new == old { new += old > 0 ? -1 : 1 }
            new = min(max(new, -Self.limit), Self.limit)
            state.offsets[key] = new
            return new
        }
    }

    /// Walk `key`'s current offset, without moving it.
    public func offset(_ key: String) -> Int {
        state.withLock { $0.offsets[key, default: 0] }
    }

    /// `value` moved by `basisPoints`, kept to at least six significant digits so that a one-point move shows.
    public static func scale(_ value: ExactDecimal, by basisPoints: Int) throws(MoneyError) -> ExactDecimal {
        let moved = try value * ExactDecimal(10_000 + basisPoints)
        return try moved.divided(by: ExactDecimal(10_000), scale: resultScale(value))
    }

    /// Like `scale`, for an optional value.
    public static func scaleIfPresent(_ value: ExactDecimal?, by basisPoints: Int) throws(MoneyError) -> ExactDecimal? {
        guard let value else { return nil }
        return try scale(value, by: basisPoints)
    }

    /// The decimals `value` has, or more if it has fewer than six significant digits.
    private static func resultScale(_ value: ExactDecimal) -> Int {
        let parts = value.description.drop { $0 == "-" }.split(separator: ".", omittingEmptySubsequences: false)
        let integer = parts[0].drop { $0 == "0" }
        let fraction = parts.count > 1 ? parts[1] : ""
        let significant = integer.isEmpty ? fraction.prefix { $0 == "0" }.count + 6 : 6 - integer.count
        return max(fraction.count, significant, 0)
    }
}

extension Quote {
    /// The quote with every price-like field moved by `basisPoints` (a percentage change stays as it is).
    public func moved(by basisPoints: Int) throws(MoneyError) -> Quote {
        var quote = self
        quote.last = try PriceWalk.scale(last, by: basisPoints)
        quote.open = try PriceWalk.scaleIfPresent(open, by: basisPoints)
        quote.high = try PriceWalk.scaleIfPresent(high, by: basisPoints)
        quote.low = try PriceWalk.scaleIfPresent(low, by: basisPoints)
        quote.vwap = try PriceWalk.scaleIfPresent(vwap, by: basisPoints)
        quote.ask = try PriceWalk.scaleIfPresent(ask, by: basisPoints)
        quote.bid = try PriceWalk.scaleIfPresent(bid, by: basisPoints)
        quote.change24h = try PriceWalk.scaleIfPresent(change24h, by: basisPoints)
        quote.marketCap = try PriceWalk.scaleIfPresent(marketCap, by: basisPoints)
        quote.quoteVolume = try PriceWalk.scaleIfPresent(quoteVolume, by: basisPoints)
        return quote
    }
}

extension Quote {
    /// A mock history of this quote's market: one point an hour (a day beyond 90 days) over `days` days, ending at
    /// `end` exactly at ``last`` (the walk's current price, so chart and price agree) and walked back at random from
    /// it, seeded by `seed` and the market, at most 15 % away.
    public func walkedHistory(days: Int, seed: UInt64, end: Date) throws(MoneyError) -> PriceHistory {
        var generator = SeededGenerator(seed: seed, stream: "history:\(source):\(market.base)-\(market.quote):\(days)")
        let step: TimeInterval = days > 90 ? 86_400 : 3_600
        let count = Int(TimeInterval(days) * 86_400 / step) + 1
        var offset = 0
        var points: [PricePoint] = []
        points.reserveCapacity(count)
        for index in 0..<count {
            points.append(PricePoint(time: end.addingTimeInterval(-TimeInterval(index) * step), price: try PriceWalk.scale(last, by: offset)))
            offset = min(max(offset - offset / 50 + generator.int(in: -80...80), -1_500), 1_500)
        }
        return PriceHistory(asset: market.base, currency: market.quote, points: points.reversed())
    }
}
