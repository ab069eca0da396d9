import Candles
import Foundation
import Market
import Money

/// Benchmark 13: 1 M trades of four markets to 1m candles with ``CandleBuilder`` (the hub's builder, one interval),
/// against bench/candles.py (Python's decimal) on the same trades, written to a CSV file both read.
enum CandleBench {
    /// The trades: four markets, prices walking in cents around their start, sizes of 1 to 10^8 satoshi (8 decimals),
    /// 0 to 199 ms apart (about 28 hours in all), in time order; seeded, so every run has the same.
    static func trades(count: Int, seed: UInt64 = 20_261_126) throws -> [MarketTrade] {
        let markets = ["BTC-USD", "ETH-USD", "SOL-USD", "XRP-USD"].compactMap(MarketPair.init(symbol:))
        var cents: [Int128] = [9_500_000, 350_000, 24_000, 250]
        var random = SplitMix64(state: seed)
        var milliseconds: Int64 = 1_795_651_200_000  // 2026-11-26 00:00 UTC
        var trades: [MarketTrade] = []
        trades.reserveCapacity(count)
        for index in 0..<count {
            let r1 = random.next(), r2 = random.next()
            let market = Int(r1 % 4)
            milliseconds += Int64((r1 >> 8) % 200)
            cents[market] = max(cents[market] + Int128((r1 >> 20) % 41) - 20, 1)
            trades.append(MarketTrade(
                source: "bench", market: markets[market], id: String(index),
                price: try ExactDecimal(mantissa: cents[market], scale: 2), size: try ExactDecimal(mantissa: Int128(r2 % 100_000_000 + 1), scale: 8),
                time: Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1_000)))
        }
        return trades
    }

    /// Writes `trades` as `market,time_ms,price,size` lines to `path`.
    static func write(_ trades: [MarketTrade], to path: String) throws {
        var text = ""
        text.reserveCapacity(trades.count * 48)
        for trade in trades {
            let milliseconds = Int64((trade.time.timeIntervalSince1970 * 1_000).rounded())
            text += "\(trade.market.symbol),\(milliseconds),\(trade.price),\(trade.size)\n"
        }
        try text.write(toFile: path, atomically: true, encoding: .ascii)
    }

    /// Builds the 1m candles of `trades`; returns them (a final tick closes the last ones) and the loop's time.
    static func build(_ trades: [MarketTrade]) -> (candles: [Candle], elapsed: Duration) {
        var builder = CandleBuilder(intervals: [.oneMinute])
        var candles: [Candle] = []
        candles.reserveCapacity(trades.count / 100)
        let start = ContinuousClock.now
        for trade in trades { candles += builder.add(trade).closed }
        candles += builder.tick(now: .distantFuture)
        return (candles, ContinuousClock.now - start)
    }

    /// FNV-1a 64 over `market,start,open,high,low,close,volume,count` lines of every candle, sorted by market and start
    /// (bench/candles.py's digest).
    static func digest(_ candles: [Candle]) -> String {
        var value: UInt64 = 0xCBF2_9CE4_8422_2325
        let sorted = candles.sorted { ($0.market.symbol, $0.start) < ($1.market.symbol, $1.start) }
        for candle in sorted {
            let line = "\(candle.market.symbol),\(Int64(candle.start.timeIntervalSince1970)),\(candle.open),\(candle.high),\(candle.low),"
                + "\(candle.close),\(candle.volume),\(candle.count)\n"
            for byte in line.utf8 { value = (value ^ UInt64(byte)) &* 0x100_0000_01B3 }
        }
        return String(value, radix: 16).leftPadded(to: 16)
    }
}

extension String {
    /// The string with zeros in front up to `length` characters.
    fileprivate func leftPadded(to length: Int) -> String { String(repeating: "0", count: max(length - count, 0)) + self }
}
