import Foundation
import Market
import Money
import OrderBook

/// Benchmark 11: an order book kept from a recorded stream of level-2 diffs, against cryptofeed's C `order-book` package
/// (`bench/book_maintenance.py`) applying the same diffs from Python.
///
/// The stream is generated (splitmix64, ``seed``) and written to a file both sides read untimed: one diff a line, `b` or
/// `a`, the price (2 decimals, a 0.10 tick around 1,200,000 MXN) and the size (8 decimals; `0` removes the level). A
/// mid price walks; most diffs land within 20 ticks of it, a few up to 1,500 away; levels the mid walks over are
/// removed, so the book never crosses; only levels the book has are removed (the peer's `del` needs the key).
enum BookBench {
    static let seed: UInt64 = 0xB00C_2032
    static let market = MarketPair(base: "BTC", quote: "MXN")

    /// One diff of the stream.
    struct Diff {
        var side: BookSide
        var price: ExactDecimal
        var size: ExactDecimal
    }

    /// The stream of `count` diffs as the file's text.
    static func generate(count: Int) -> String {
        var random = SplitMix64(state: seed)
        var bids = Set<Int>(), asks = Set<Int>()
        var mid = 12_000_000  // in ticks of 0.10
        var lines: [String] = []
        lines.reserveCapacity(count)
        func price(_ ticks: Int) -> String { "\(ticks / 10).\(ticks % 10)0" }
        func emit(_ side: String, _ ticks: Int, _ satoshis: UInt64) {
            let size = satoshis == 0 ? "0" : "\(satoshis / 100_000_000).\(String(String(satoshis % 100_000_000 + 100_000_000).dropFirst()))"
            lines.append("\(side) \(price(ticks)) \(size)")
        }
        while lines.count < count {
            let draw = random.next()
            if draw % 40 == 0 {
                mid += Int(random.next() % 5) - 2
                for ticks in bids.filter({ $0 >= mid }).sorted(by: >) { emit("b", ticks, 0); bids.remove(ticks) }
                for ticks in asks.filter({ $0 <= mid }).sorted() { emit("a", ticks, 0); asks.remove(ticks) }
                continue
            }
            let isBid = (draw >> 20) & 1 == 0
            let band = random.next() % 100
            let distance = 1 + Int(random.next() % (band < 60 ? 20 : band < 90 ? 200 : 1_500))
            let ticks = isBid ? mid - distance : mid + distance
            let exists = isBid ? bids.contains(ticks) : asks.contains(ticks)
            if exists && random.next() % 100 < 30 {
                emit(isBid ? "b" : "a", ticks, 0)
                if isBid { bids.remove(ticks) } else { asks.remove(ticks) }
            } else {
                emit(isBid ? "b" : "a", ticks, 1_000 + random.next() % 200_000_000)
                if isBid { bids.insert(ticks) } else { asks.insert(ticks) }
            }
        }
        return lines.prefix(count).joined(separator: "\n") + "\n"
    }

    /// The diffs of the file's text.
    static func parse(_ text: String) throws -> [Diff] {
        try text.split(separator: "\n").map { line in
            let parts = line.split(separator: " ")
            guard parts.count == 3, let side = parts[0] == "b" ? BookSide.bid : parts[0] == "a" ? .ask : nil else {
                throw BenchError("bad diff line: \(line)")
            }
            return Diff(side: side, price: try ExactDecimal(String(parts[1])), size: try ExactDecimal(String(parts[2])))
        }
    }

    /// Applies every diff to a new book: the time of the loop.
    static func apply(_ diffs: [Diff]) throws -> Duration {
        var book = L2Book(market: market)
        let clock = ContinuousClock()
        let start = clock.now
        for diff in diffs {
            try book.apply(side: diff.side, price: diff.price, size: diff.size)
        }
        return clock.now - start
    }

    /// Applies the first `skip` diffs untimed, then `count` more each followed by a read of the book's top 10 levels of
    /// each side: the time of those and how many levels they read (so the reads are not optimised away).
    static func applyReadingTop(_ diffs: [Diff], skip: Int, count: Int) throws -> (elapsed: Duration, levels: Int) {
        var book = L2Book(market: market)
        for diff in diffs.prefix(skip) {
            try book.apply(side: diff.side, price: diff.price, size: diff.size)
        }
        var levels = 0
        let clock = ContinuousClock()
        let start = clock.now
        for diff in diffs.dropFirst(skip).prefix(count) {
            try book.apply(side: diff.side, price: diff.price, size: diff.size)
            let top = book.top(10)
            levels &+= top.bids.count &+ top.asks.count
        }
        return (clock.now - start, levels)
    }

    /// The CRC32 of every diff's top 10 as text, one line a diff (`b` then each bid `price size` best first, `|a` then
    /// each ask, as `bench/book_maintenance.py verify` writes it), and the digest after every `every` diffs, to find
    /// the first place two runs part.
    static func digest(_ diffs: [Diff], every: Int = 100_000) throws -> (crc: UInt32, checkpoints: [String]) {
        var book = L2Book(market: market)
        var crc = CRC32()
        var checkpoints: [String] = []
        var line: [UInt8] = []
        for (index, diff) in diffs.enumerated() {
            try book.apply(side: diff.side, price: diff.price, size: diff.size)
            let top = book.top(10)
            line.removeAll(keepingCapacity: true)
            line.append(UInt8(ascii: "b"))
            for level in top.bids { append(level, to: &line) }
            line.append(contentsOf: "|a".utf8)
            for level in top.asks { append(level, to: &line) }
            line.append(UInt8(ascii: "\n"))
            crc.update(line)
            if (index + 1) % every == 0 { checkpoints.append(String(format: "%08x", crc.value)) }
        }
        return (crc.value, checkpoints)
    }

    private static func append(_ level: BookLevel, to line: inout [UInt8]) {
        line.append(UInt8(ascii: " "))
        level.price.withDigits { line.append(contentsOf: $0) }
        line.append(UInt8(ascii: " "))
        level.size.withDigits { line.append(contentsOf: $0) }
    }
}
