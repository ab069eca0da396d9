import Foundation
import Market
import Money

/// Builds OHLCV candles of every market of every feed, exactly, from trades, or from quotes (`last`, volume 0) for a
/// market whose feed has sent it no trade; pure: the caller feeds messages and clock ticks, and gets the closed candles.
///
/// A candle covers `[start, start + interval)`, `start` being the message's time floored to a multiple of the interval
/// since 1970 (UTC). It closes when a message of a later interval of its market arrives, or when ``tick(now:)`` passes
/// its end plus ``closeDelay`` on its market's clock: the wall clock less how far its newest message's time was behind
/// its arrival, while its time moves; the wall clock once its time has stood still for ``quietLimit``. A live market's
/// clock is the wall clock (its messages arrive at about their time); a replay of a past day runs its markets' clocks
/// from the replayed times, so candles close by what was replayed, not by when (the same capture gives the same
/// candles at any speed). A replayed market (one whose messages arrive more than ``quietLimit`` after their time) stands
/// still only once every replayed market's time does: a market that trades once a replayed minute is not quiet while
/// a slow replay plays the rest of that minute. A replay that ended, or a feed repeating one old time, closes them on
/// the wall clock. A
/// message for a candle already closed is late: counted and dropped, never merged. The
/// first trade of a market whose open candles came from quotes drops them (``CandleRefusal/supersededQuotes``): from
/// then on its candles are built from trades and its quotes are ignored.
public struct CandleBuilder: Sendable {
    /// The intervals built.
    public let intervals: [CandleInterval]
    /// How long past its end a candle waits for late messages before a tick closes it.
    public let closeDelay: Duration
    /// How long a market's time may stand still (no message of a later time) before its clock is the wall clock.
    public let quietLimit: Duration
    /// At most this many markets (one feed's market is one) are followed; a new one past it is refused.
    public let maxMarkets: Int
    /// What was refused so far, by reason.
    public private(set) var refusals: [CandleRefusal: Int] = [:]

    private var series: [SeriesKey: Series] = [:]
    /// When a replayed market's time last moved (seconds since 1970 on the wall clock): see ``tick(now:)``.
    private var replayMovedAt: TimeInterval = -.infinity

    /// One feed's market.
    private struct SeriesKey: Hashable {
        var source: String
        var market: MarketPair
    }

    /// What is kept of one feed's market.
    private struct Series {
        /// Whether a trade of it was seen: then quotes are ignored.
        var fromTrades = false
        /// The open candle and how far candles are closed, per interval, in ``CandleBuilder/intervals``' order.
        var open: [Candle?]
        /// The open candles' starts (seconds since 1970), read without copying a candle.
        var openStart: [Int64?]
        var closedUntil: [Int64?]
        /// The newest message's time (seconds since 1970), how long after it that message arrived (the market's clock
        /// is the wall clock less that) and when it arrived.
        var newest: TimeInterval = -.infinity
        var clockLag: TimeInterval = 0
        var movedAt: TimeInterval = -.infinity

        init(intervals: Int) {
            open = Array(repeating: nil, count: intervals)
            openStart = Array(repeating: nil, count: intervals)
            closedUntil = Array(repeating: nil, count: intervals)
        }

        var hasOpenCandles: Bool { open.contains { $0 != nil } }
    }

    /// The markets followed unless told otherwise.
    public static let defaultMaxMarkets = 20_000
    /// How long the hub's candles wait for late trades past their end: a trade stamped by the exchange reaches it a
    /// little after its time.
    public static let hubCloseDelay: Duration = .seconds(2)

    /// A builder of `intervals` whose ticks close a candle `closeDelay` after its end on its market's clock, the wall
    /// clock once the market's time has stood still for `quietLimit`.
    public init(
        intervals: [CandleInterval] = CandleInterval.allCases, closeDelay: Duration = .zero, quietLimit: Duration = .seconds(5),
        maxMarkets: Int = defaultMaxMarkets
    ) {
        self.intervals = intervals
        self.closeDelay = closeDelay
        self.quietLimit = quietLimit
        self.maxMarkets = maxMarkets
    }

    /// Adds a trade that arrived at `received` (nil: at its own time); returns the candles it closed, or why it was
    /// refused.
    public mutating func add(_ trade: MarketTrade, received: Date? = nil) -> CandleUpdate {
        guard trade.price > .zero else { return refuse(.invalid) }
        guard !trade.size.isNegative else { return refuse(.invalid) }
        return add(
            source: trade.source, market: trade.market, price: trade.price, volume: trade.size, time: trade.time,
            received: received ?? trade.time, fromTrade: true)
    }

    /// Adds a quote, at its own time or else `received`; returns the candles it closed, or why it was refused (a quote
    /// of a market that has trades is ``CandleRefusal/tradedMarket``).
    public mutating func add(_ quote: Quote, received: Date) -> CandleUpdate {
        guard quote.last > .zero else { return refuse(.invalid) }
        if series[SeriesKey(source: quote.source, market: quote.market)]?.fromTrades == true { return refuse(.tradedMarket) }
        return add(
            source: quote.source, market: quote.market, price: quote.last, volume: .zero, time: quote.time ?? received, received: received,
            fromTrade: false)
    }

    /// Closes every open candle whose end plus ``closeDelay`` is at or before `now` on its market's clock; returns them,
    /// oldest first.
    public mutating func tick(now: Date) -> [Candle] {
        let wall = now.timeIntervalSince1970
        let wallCutoff = wall - Self.seconds(closeDelay)
        let quiet = Self.seconds(quietLimit)
        var closed: [Candle] = []
        // Changed in place through the dictionary's storage: no look-up by key, no copy of a series.
        let replayMoving = wall - replayMovedAt < quiet
        for position in series.indices {
            let lag = series.values[position].clockLag
            let moving = wall - series.values[position].movedAt < quiet || (lag > quiet && replayMoving)
            let cutoff = wallCutoff - (moving ? lag : 0)
            for index in intervals.indices {
                guard let candle = series.values[position].open[index] else { continue }
                let end = Self.seconds(candle.start) + candle.interval.seconds
                if Double(end) <= cutoff {
                    series.values[position].open[index] = nil
                    series.values[position].openStart[index] = nil
                    series.values[position].closedUntil[index] = end
                    closed.append(candle)
                }
            }
        }
        return closed.sorted(by: Self.order)
    }

    /// The candle being built of one feed's market and interval, if any.
    public func openCandle(source: String, market: MarketPair, interval: CandleInterval) -> Candle? {
        guard let index = intervals.firstIndex(of: interval) else { return nil }
        return series[SeriesKey(source: source, market: market)]?.open[index]
    }

    /// Every candle being built, oldest first.
    public var openCandles: [Candle] {
        series.values.flatMap { $0.open.compactMap { $0 } }.sorted(by: Self.order)
    }

    /// How many feeds' markets are followed.
    public var marketCount: Int { series.count }

    /// The start of the candle of `interval` that `time` falls in: `time` floored to a multiple of the interval (UTC).
    public static func start(of time: Date, interval: CandleInterval) -> Date {
        Date(timeIntervalSince1970: TimeInterval(floor(seconds(time), interval)))
    }

    // MARK: Building

    private mutating func add(
        source: String, market: MarketPair, price: ExactDecimal, volume: ExactDecimal, time: Date, received: Date, fromTrade: Bool
    ) -> CandleUpdate {
        let key = SeriesKey(source: source, market: market)
        var found = series.index(forKey: key)
        if found == nil {
            guard makeRoom() else { return refuse(.tooManyMarkets) }
            series[key] = Series(intervals: intervals.count)
            found = series.index(forKey: key)
        }
        guard let position = found else { return refuse(.tooManyMarkets) }
        // Changed in place through the dictionary's storage: one look-up, no copy of its arrays.
        var superseded = false
        let update = Self.add(
            to: &series.values[position], intervals: intervals, source: source, market: market, price: price, volume: volume, time: time,
            received: received, fromTrade: fromTrade, superseded: &superseded)
        if superseded { refusals[.supersededQuotes, default: 0] += 1 }
        let moved = series.values[position]
        if moved.movedAt == received.timeIntervalSince1970, moved.clockLag > Self.seconds(quietLimit) { replayMovedAt = moved.movedAt }
        if let refusal = update.refusal, refusal != .supersededQuotes { refusals[refusal, default: 0] += 1 }
        return update
    }

    private static func add(
        to current: inout Series, intervals: [CandleInterval], source: String, market: MarketPair, price: ExactDecimal, volume: ExactDecimal,
        time: Date, received: Date, fromTrade: Bool, superseded: inout Bool
    ) -> CandleUpdate {
        var refusal: CandleRefusal?
        if fromTrade && !current.fromTrades {
            current.fromTrades = true
            if current.hasOpenCandles {
                current.open = Array(repeating: nil, count: intervals.count)
                current.openStart = Array(repeating: nil, count: intervals.count)
                refusal = .supersededQuotes
                superseded = true
            }
        }
        let seconds = Self.seconds(time)
        // Checked for every interval before any changes: a message is counted in every interval or in none. Candles of
        // one market nest (a minute's trades are in its hour's), so the longest open candle it joins has the largest
        // volume, at the largest scale: if its sum fits, every sum does.
        var longest: Int?
        for index in intervals.indices {
            let start = Self.floor(seconds, intervals[index])
            if let until = current.closedUntil[index], start < until { return CandleUpdate(closed: [], refusal: .late) }
            if let openStart = current.openStart[index] {
                if start < openStart { return CandleUpdate(closed: [], refusal: .late) }
                if start == openStart, intervals[index].seconds > longest.map({ intervals[$0].seconds }) ?? 0 { longest = index }
            }
        }
        if let longest, let open = current.open[longest], (try? open.volume + volume) == nil {
            return CandleUpdate(closed: [], refusal: .overflow)
        }
        var closed: [Candle] = []
        for index in intervals.indices {
            let start = Self.floor(seconds, intervals[index])
            if let openStart = current.openStart[index] {
                if start == openStart {
                    current.open[index]!.extend(price: price, volume: volume)
                    continue
                }
                if let open = current.open[index] { closed.append(open) }
                current.closedUntil[index] = openStart + intervals[index].seconds
            }
            current.openStart[index] = start
            current.open[index] = Candle(
                source: source, market: market, interval: intervals[index], start: Date(timeIntervalSince1970: TimeInterval(start)),
                open: price, high: price, low: price, close: price, volume: volume, count: 1)
        }
        let taken = time.timeIntervalSince1970
        if taken > current.newest {
            current.newest = taken
            current.clockLag = received.timeIntervalSince1970 - taken
            current.movedAt = received.timeIntervalSince1970
        }
        return CandleUpdate(closed: closed, refusal: refusal)
    }

    /// Whether a new market fits: when full, the markets with no open candle are forgotten first.
    private mutating func makeRoom() -> Bool {
        guard series.count >= maxMarkets else { return true }
        series = series.filter { $0.value.hasOpenCandles }
        return series.count < maxMarkets
    }

    private mutating func refuse(_ refusal: CandleRefusal) -> CandleUpdate {
        refusals[refusal, default: 0] += 1
        return CandleUpdate(closed: [], refusal: refusal)
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    /// `seconds` floored to a multiple of `interval`.
    private static func floor(_ seconds: Int64, _ interval: CandleInterval) -> Int64 {
        let remainder = seconds % interval.seconds
        return seconds - (remainder < 0 ? remainder + interval.seconds : remainder)
    }

    /// Oldest start first, then by interval, feed and market.
    private static func order(_ lhs: Candle, _ rhs: Candle) -> Bool {
        (lhs.start, lhs.interval.seconds, lhs.source, lhs.market.symbol) < (rhs.start, rhs.interval.seconds, rhs.source, rhs.market.symbol)
    }
}

extension Candle {
    /// Takes one more price and volume (checked by the caller not to overflow).
    fileprivate mutating func extend(price: ExactDecimal, volume: ExactDecimal) {
        try? self.volume += volume
        if price > high { high = price }
        if price < low { low = price }
        close = price
        count += 1
    }
}

/// What adding a message did: the candles it closed (oldest first) and, if it was not taken, or took the place of
/// open candles, why.
public struct CandleUpdate: Sendable, Equatable {
    /// The candles the message closed.
    public var closed: [Candle]
    /// Why the message was dropped, or (``CandleRefusal/supersededQuotes``) what it dropped.
    public var refusal: CandleRefusal?

    /// An update.
    public init(closed: [Candle], refusal: CandleRefusal? = nil) {
        self.closed = closed
        self.refusal = refusal
    }
}

/// Why a message made no candle, or was taken at the cost of others.
public enum CandleRefusal: String, Sendable, Hashable, CaseIterable {
    /// For a candle already closed: dropped.
    case late
    /// A price of zero or less, or a negative size: dropped.
    case invalid
    /// A quote of a market whose feed sends trades: ignored.
    case tradedMarket = "traded-market"
    /// The volume would need more than 38 digits: dropped.
    case overflow
    /// A new market past ``CandleBuilder/maxMarkets``: dropped.
    case tooManyMarkets = "too-many-markets"
    /// The first trade of a market dropped the open candles built from its quotes (the trade was taken).
    case supersededQuotes = "superseded-quotes"
}
