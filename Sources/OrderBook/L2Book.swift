import Foundation
import Market
import Money

/// One market's level-2 order book, kept exactly from a snapshot plus diffs: prices and sizes are `ExactDecimal`,
/// never floating point.
///
/// Prices are compared as integers: each is its mantissa raised to the book's scale (the most fractional digits any
/// price was written with), which grows, and every key with it, when a price with more digits comes. The levels keep
/// the price and size as they came, for output.
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
        let all = newBids + newAsks
        for level in all { try Self.validate(price: level.price, size: level.size) }
        func entries(_ levels: [BookLevel], scale: Int, sign: Int128) throws(BookError) -> [(key: Int128, level: BookLevel)] {
            var byKey: [Int128: BookLevel] = [:]
            for level in levels where !level.size.isZero {
                byKey[try Self.key(of: level.price, scale: scale) * sign] = level
            }
            return byKey.map { (key: $0.key, level: $0.value) }
        }
        func sides(scale: Int) throws(BookError) -> (bids: [(key: Int128, level: BookLevel)], asks: [(key: Int128, level: BookLevel)]) {
            (try entries(newBids, scale: scale, sign: 1), try entries(newAsks, scale: scale, sign: -1))
        }
        // The digits as written (as `apply` keeps them), or, when those do not fit, the fewest that do.
        var scale = all.map(\.price.scale).max() ?? 0
        let built: (bids: [(key: Int128, level: BookLevel)], asks: [(key: Int128, level: BookLevel)])
        if let written = try? sides(scale: scale) {
            built = written
        } else {
            scale = all.map(\.price.normalized.scale).max() ?? 0
            built = try sides(scale: scale)
        }
        keyScale = scale
        bids.replace(with: built.bids)
        asks.replace(with: built.asks)
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
    /// The scale follows the digits as written ("1200087.50" makes it 2) so that no price is normalised (a 128-bit
    /// division per digit) on the way in; only a price whose written digits would not fit is normalised.
    @inline(__always)
    private mutating func key(of price: ExactDecimal) throws(BookError) -> Int128 {
        if price.scale == keyScale { return price.mantissa }
        if price.scale < keyScale { return try Self.key(of: price, scale: keyScale) }
        if raiseScale(to: price.scale) { return price.mantissa }
        let normalized = price.normalized
        if normalized.scale <= keyScale { return try Self.key(of: normalized, scale: keyScale) }
        guard raiseScale(to: normalized.scale) else {
            throw BookError(.precision, "price \(price) needs \(normalized.scale) decimal places, which the book's other prices do not fit")
        }
        return normalized.mantissa
    }

    /// `price`'s mantissa at `scale` (at least its own), or a precision error when it leaves the exact range.
    private static func key(of price: ExactDecimal, scale: Int) throws(BookError) -> Int128 {
        if price.scale == scale { return price.mantissa }
        let raised = price.mantissa.multipliedReportingOverflow(by: powersOfTen[scale - price.scale])
        guard !raised.overflow, raised.partialValue <= ExactDecimal.maxMantissa else {
            throw BookError(.precision, "price \(price) does not fit the book's \(scale) decimal places")
        }
        return raised.partialValue
    }

    /// Raises every key to `scale`; false, changing nothing, when one would leave the exact range.
    private mutating func raiseScale(to scale: Int) -> Bool {
        let factor = powersOfTen[scale - keyScale]
        guard let bidKeys = bids.keys(scaledBy: factor), let askKeys = asks.keys(scaledBy: factor) else { return false }
        bids.setKeys(bidKeys)
        asks.setKeys(askKeys)
        keyScale = scale
        return true
    }
}

/// 10^0 ... 10^38.
private let powersOfTen: [Int128] = (0...ExactDecimal.maxScale).reduce(into: []) { powers, exponent in
    powers.append(exponent == 0 ? 1 : powers[exponent - 1] * 10)
}
