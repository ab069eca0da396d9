import Foundation
import Market
import Money
import OrderBook

/// One Kraken v2 book kept from its snapshot plus updates, each checked against the exchange's CRC32 of the top 10
/// levels. A mismatch leaves the book unsynced until a new snapshot (the feed subscribes to the book again).
public struct KrakenBook: Sendable {
    /// The price levels; `sequence` counts the snapshots and updates applied (Kraken numbers none).
    public private(set) var book: L2Book
    /// Whether the book follows updates (false before a snapshot and after a mismatch).
    public private(set) var isSynced = false
    /// The subscribed depth: after each update the book is cut to it, as Kraken sends no removal for levels that
    /// fall out of it.
    public let depth: Int

    /// An empty, unsynced book of `market` subscribed at `depth`.
    public init(market: MarketPair, depth: Int) {
        book = L2Book(market: market)
        self.depth = depth
    }

    /// The market.
    public var market: MarketPair { book.market }

    /// Replaces the book with a snapshot and checks its checksum; throws a `checksum` event on a mismatch (the book
    /// is then unsynced).
    public mutating func load(_ snapshot: KrakenBookData) throws(ExchangeEvent) {
        isSynced = false
        try Self.checkSizes(snapshot, market)
        var fresh = L2Book(market: market)
        do {
            try fresh.replace(bids: snapshot.bids.map(Self.level), asks: snapshot.asks.map(Self.level), sequence: book.sequence + 1)
        } catch {
            throw ExchangeEvent(.badLevel, "\(market) snapshot: \(error)")
        }
        fresh.truncate(to: depth)
        book = fresh
        try verify(snapshot.checksum, "snapshot")
        isSynced = true
    }

    /// Applies an update and checks its checksum; returns false (and changes nothing) while unsynced. Throws a
    /// `checksum` event on a mismatch, and a `negative-size` or `bad-level` one for a level it cannot take (the book
    /// is then unsynced).
    @discardableResult
    public mutating func apply(_ update: KrakenBookData) throws(ExchangeEvent) -> Bool {
        guard isSynced else { return false }
        isSynced = false
        try Self.checkSizes(update, market)
        for (side, levels) in [(BookSide.bid, update.bids), (.ask, update.asks)] {
            for level in levels {
                do {
                    try book.apply(side: side, price: level.price, size: level.qty)
                } catch {
                    throw ExchangeEvent(.badLevel, "\(market): \(error)")
                }
            }
        }
        book.truncate(to: depth)
        book.sequence += 1
        try verify(update.checksum, "update")
        isSynced = true
        return true
    }

    /// Marks the book unsynced (a resubscription is under way).
    public mutating func invalidate() { isSynced = false }

    private mutating func verify(_ expected: UInt32, _ what: String) throws(ExchangeEvent) {
        let computed = book.krakenChecksum()
        guard computed == expected else {
            isSynced = false
            throw ExchangeEvent(.checksum, "\(market) \(what): checksum \(computed) computed, \(expected) sent")
        }
    }

    private static func checkSizes(_ data: KrakenBookData, _ market: MarketPair) throws(ExchangeEvent) {
        for level in data.bids + data.asks where level.qty.isNegative {
            throw ExchangeEvent(.negativeSize, "\(market): quantity \(level.qty) at \(level.price)")
        }
    }

    private static func level(_ level: KrakenLevel) -> BookLevel { BookLevel(price: level.price, size: level.qty) }
}
