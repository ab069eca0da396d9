import Foundation
import Market
import Money

/// One market's level-2 order book, kept exactly from a snapshot plus diffs: prices and sizes are `ExactDecimal`,
/// never floating point.
///
/// Prices are compared as integers: each is its mantissa raised to the book's scale (the most fractional digits of
/// any price seen, trailing zeros aside), which grows, and every key with it, when a price with more digits comes.
public struct L2Book: Sendable {
    /// The market the book is of.
    public let market: MarketPair
    /// The exchange's sequence number of the last change applied (the caller sets it; ``replace(bids:asks:sequence:)`` too).
    public var sequence: Int64 = 0

    private var bids = PriceLadder()
    /// Asks under negated keys, so both ladders keep their best level last.
    private var asks = PriceLadder()
    /// The fractional digits of every key.
    private var keyScale = 0

    /// An empty book of `market`.
    public init(market: MarketPair) {
        self.market = market
    }

    /// Replaces the whole book with a snapshot taken at `sequence`. Levels of size zero are left out; where a price
    /// comes twice on one side, the later level counts. Throws, leaving the book as it was, for a price of zero or
    /// below or a negative size.
    public mutating func replace(bids newBids: [BookLevel], asks newAsks: [BookLevel], sequence: Int64) throws(BookError) {
        var scale = 0
        for level in newBids + newAsks {
            try Self.validate(price: level.price, size: level.size)
            scale = max(scale, level.price.normalized.scale)
        }
        func entries(_ levels: [BookLevel], sign: Int128) throws(BookError) -> [(key: Int128, level: BookLevel)] {
            var byKey: [Int128: BookLevel] = [:]
            for level in levels where !level.size.isZero {
                byKey[try Self.key(of: level.price, scale: scale) * sign] = level
            }
            return byKey.map { (key: $0.key, level: $0.value) }
        }
        let bidEntries = try entries(newBids, sign: 1)
        let askEntries = try entries(newAsks, sign: -1)
        keyScale = scale
        bids.replace(with: bidEntries)
        asks.replace(with: askEntries)
        self.sequence = sequence
    }

    /// Sets the size at `price` on `side`; a size of zero removes the level. Throws, changing nothing, for a price of
    /// zero or below, a negative size, or a price too precise to compare exactly with the book's others.
    @discardableResult
    public mutating func apply(side: BookSide, price: ExactDecimal, size: ExactDecimal) throws(BookError) -> BookChange {
        try Self.validate(price: price, size: size)
        let key = try key(of: price)
        switch side {
        case .bid: return bids.set(key, BookLevel(price: price, size: size))
        case .ask: return asks.set(-key, BookLevel(price: price, size: size))
        }
    }

    /// The best `n` levels of each side, best first: bids highest price first, asks lowest first.
    public func top(_ n: Int) -> (bids: [BookLevel], asks: [BookLevel]) {
        (bids.best(n), asks.best(n))
    }

    /// The book's top `levels` levels as the `book.<feed>.<BASE>-<QUOTE>` message, with ``sequence``.
    public func depth(source: String, levels: Int, time: Date? = nil) -> BookDepth {
        let (bids, asks) = top(levels)
        return BookDepth(source: source, market: market, sequence: sequence, bids: bids, asks: asks, time: time)
    }

    /// Whether the best bid is at or above the best ask (crossed or locked): a book the exchange would not show,
    /// so a sign that a diff was missed.
    public var isCrossed: Bool {
        guard let bid = bids.bestKey, let ask = asks.bestKey else { return false }
        return bid >= -ask
    }

    /// The highest bid.
    public var bestBid: BookLevel? { bids.first }

    /// The lowest ask.
    public var bestAsk: BookLevel? { asks.first }

    /// How many levels `side` has.
    public func count(_ side: BookSide) -> Int {
        side == .bid ? bids.count : asks.count
    }

    /// Whether both sides are empty.
    public var isEmpty: Bool { bids.count == 0 && asks.count == 0 }

    /// Keeps the best `depth` levels of each side (Kraken: after each update the book is cut to the subscribed
    /// depth, since levels that fall out of it are never removed by a diff).
    public mutating func truncate(to depth: Int) {
        bids.truncate(to: depth)
        asks.truncate(to: depth)
    }

    /// Empties the book (before a re-synchronisation).
    public mutating func clear() {
        bids = PriceLadder()
        asks = PriceLadder()
        keyScale = 0
        sequence = 0
    }

    /// Throws for a price of zero or below or a negative size.
    private static func validate(price: ExactDecimal, size: ExactDecimal) throws(BookError) {
        guard price.mantissa > 0 else { throw BookError(.price, "price \(price) is not above zero") }
        guard !size.isNegative else { throw BookError(.size, "size \(size) at price \(price) is negative") }
    }

    /// The key of `price`, raising the book's scale (and every key) first when `price` has more fractional digits.
    private mutating func key(of price: ExactDecimal) throws(BookError) -> Int128 {
        if price.scale > keyScale {
            let normalized = price.normalized
            if normalized.scale > keyScale { try raiseScale(to: normalized.scale, for: normalized) }
            return try Self.key(of: normalized, scale: keyScale)
        }
        return try Self.key(of: price, scale: keyScale)
    }

    /// `price`'s mantissa at `scale` (at least its own), or a precision error when it leaves the exact range.
    private static func key(of price: ExactDecimal, scale: Int) throws(BookError) -> Int128 {
        if price.scale == scale { return price.mantissa }
        let raised = price.mantissa.multipliedReportingOverflow(by: powerOfTen(scale - price.scale))
        guard !raised.overflow, raised.partialValue <= ExactDecimal.maxMantissa else {
            throw BookError(.precision, "price \(price) does not fit the book's \(scale) decimal places")
        }
        return raised.partialValue
    }

    /// Raises every key to `scale`; throws, changing nothing, when one would leave the exact range.
    private mutating func raiseScale(to scale: Int, for price: ExactDecimal) throws(BookError) {
        let factor = Self.powerOfTen(scale - keyScale)
        guard let bidKeys = bids.keys(scaledBy: factor), let askKeys = asks.keys(scaledBy: factor) else {
            throw BookError(.precision, "price \(price) needs \(scale) decimal places, which the book's other prices do not fit")
        }
        bids.setKeys(bidKeys)
        asks.setKeys(askKeys)
        keyScale = scale
    }

    /// 10^exponent, exponent 0...38.
    private static func powerOfTen(_ exponent: Int) -> Int128 {
        var value: Int128 = 1
        for _ in 0..<exponent { value &*= 10 }
        return value
    }
}
