import Foundation
import Market
import Money

/// One market's order book as a depth ladder: the best bids and asks with their cumulative sizes and a depth bar,
/// the spread, the exchange's sequence and the feed, and the last trades.
public struct DepthLadder: Codable, Sendable, Equatable {
    /// The feed the book came from, e.g. `bitso-ws`.
    public var feed: String
    /// The market, e.g. `BTC-MXN`.
    public var market: String
    /// The name shown, e.g. "BTC MXN".
    public var name: String
    /// The currency traded, e.g. "BTC": sizes are in it.
    public var base: String
    /// The currency prices are in, e.g. "MXN".
    public var quote: String
    /// The exchange's sequence number of the book.
    public var sequence: Int64
    /// The bids, best (highest) first.
    public var bids: [Level]
    /// The asks, best (lowest) first.
    public var asks: [Level]
    /// Best ask minus best bid, in the quote currency; nil when a side is empty.
    public var spread: DisplayAmount?
    /// The spread in percent of the mid price; nil when a side is empty.
    public var spreadPercent: DisplayAmount?
    /// The last trades, newest first.
    public var trades: [Trade]
    /// How old the book is, when the exchange timed it.
    public var dataAge: DataAge?

    /// One price level.
    public struct Level: Codable, Sendable, Equatable {
        /// The price, in the quote currency.
        public var price: DisplayAmount
        /// The size at this price, in the base currency.
        public var size: DisplayAmount
        /// The size at this price and every better one.
        public var total: DisplayAmount
        /// The cumulative size in percent (whole, at least 1 for a level with a size) of the largest cumulative size of either side: the bar's length.
        public var depth: Int
    }

    /// One trade.
    public struct Trade: Codable, Sendable, Equatable {
        /// The exchange's trade id.
        public var id: String
        /// The price, in the quote currency.
        public var price: DisplayAmount
        /// The size, in the base currency.
        public var size: DisplayAmount
        /// `buy` or `sell` (the taker's side), when the exchange says.
        public var side: String?
        /// When it traded, ISO 8601.
        public var time: String
        /// When it traded, for the reader's locale.
        public var timeText: String
    }

    /// The most trades shown.
    public static let maxTrades = 12

    /// The ladder of `depth`, with the last of `trades` (those of the same feed and market, newest first).
    public static func make(depth: BookDepth, trades: [MarketTrade] = [], context: ViewContext) -> DepthLadder {
        let locale = context.locale
        let base = depth.market.base, quote = depth.market.quote
        let sizeDigits = max(([depth.bids, depth.asks].joined().map { $0.size.normalized.scale }.max() ?? 0), 0)
        let priceDigits = [depth.bids, depth.asks].joined().map { Precision.priceDigits($0.price, code: quote) }.max()
            ?? Precision.digits(forCode: quote)
        func totals(_ levels: [BookLevel]) -> [ExactDecimal] {
            var running = ExactDecimal.zero
            return levels.map { level in
                running = (try? running + level.size) ?? running
                return running
            }
        }
        let bidTotals = totals(depth.bids), askTotals = totals(depth.asks)
        let deepest = max(bidTotals.last ?? .zero, askTotals.last ?? .zero)
        func levels(_ levels: [BookLevel], _ totals: [ExactDecimal]) -> [Level] {
            zip(levels, totals).map { level, total in
                Level(
                    price: .number(level.price, locale: locale, fractionDigits: priceDigits),
                    size: .number(level.size, locale: locale, fractionDigits: sizeDigits),
                    total: .number(total, locale: locale, fractionDigits: sizeDigits),
                    depth: percent(total, of: deepest))
            }
        }
        var spread: DisplayAmount?, spreadPercent: DisplayAmount?
        if let bid = depth.bids.first?.price, let ask = depth.asks.first?.price, let gap = try? ask - bid {
            spread = .money(gap, code: quote, locale: locale, fractionDigits: priceDigits)
            if let sum = try? ask + bid, !sum.isZero, let share = try? (gap * ExactDecimal(200)).divided(by: sum, scale: 6) {
                spreadPercent = DisplayAmount(
                    raw: share.description, text: MoneyFormatter.percent(share, locale: locale, fractionDigits: 4, signed: false), currency: nil)
            }
        }
        let shownTrades = trades.filter { $0.source == depth.source && $0.market == depth.market }
            .sorted { $0.time > $1.time }.prefix(maxTrades).map { trade in
                Trade(
                    id: trade.id, price: .number(trade.price, locale: locale, fractionDigits: priceDigits),
                    size: .number(trade.size, locale: locale, fractionDigits: sizeDigits), side: trade.side?.rawValue,
                    time: DisplayDate.iso(trade.time), timeText: DisplayDate.time(trade.time, locale: locale))
            }
        return DepthLadder(
            feed: depth.source, market: "\(base)-\(quote)", name: depth.market.displayName, base: base, quote: quote,
            sequence: depth.sequence, bids: levels(depth.bids, bidTotals), asks: levels(depth.asks, askTotals),
            spread: spread, spreadPercent: spreadPercent, trades: Array(shownTrades),
            dataAge: depth.time.map { DataAge(asOf: $0, now: context.now, locale: locale) })
    }

    /// `part` in whole percent of `whole` (0 when `whole` is zero), rounded half-even, at least 1 for a part above
    /// zero so that every level's bar shows.
    private static func percent(_ part: ExactDecimal, of whole: ExactDecimal) -> Int {
        guard !whole.isZero, let share = try? (part * ExactDecimal(100)).divided(by: whole, scale: 0) else { return 0 }
        return part > .zero ? max(Int(share.mantissa), 1) : Int(share.mantissa)
    }
}

/// A book the Books screen can show the ladder of: its feed and market.
public struct DepthChoice: Codable, Sendable, Equatable, Hashable {
    /// The feed, e.g. `bitso-ws`.
    public var feed: String
    /// The market, e.g. `BTC-MXN`.
    public var market: String

    /// A choice.
    public init(feed: String, market: String) {
        self.feed = feed
        self.market = market
    }
}
