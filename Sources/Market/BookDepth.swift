import Foundation
import Money

/// One price level of an order book: a price and the size resting at it.
public struct BookLevel: Sendable, Hashable, Codable {
    /// The level's price, in the market's quote currency.
    public var price: ExactDecimal
    /// The size resting at `price`, in the market's base currency; always positive in a published book.
    public var size: ExactDecimal

    /// A level.
    public init(price: ExactDecimal, size: ExactDecimal) {
        self.price = price
        self.size = size
    }
}

/// The top of one market's level-2 order book as a feed keeps it from the exchange's snapshot and diffs:
/// the `book.<feed>.<BASE>-<QUOTE>` stream.
public struct BookDepth: Sendable, Hashable, Codable {
    /// The feed that keeps the book, e.g. `bitso-ws`.
    public var source: String
    /// The market, e.g. BTC-MXN.
    public var market: MarketPair
    /// The exchange's sequence number of the last change applied (Bitso's `sequence`; a count of applied
    /// updates where the exchange numbers none).
    public var sequence: Int64
    /// Bids, best (highest price) first.
    public var bids: [BookLevel]
    /// Asks, best (lowest price) first.
    public var asks: [BookLevel]
    /// When the exchange made the last change applied, if it says.
    public var time: Date?

    /// A book's top levels.
    public init(source: String, market: MarketPair, sequence: Int64, bids: [BookLevel], asks: [BookLevel], time: Date? = nil) {
        self.source = source
        self.market = market
        self.sequence = sequence
        self.bids = bids
        self.asks = asks
        self.time = time
    }
}
