import Foundation
import Market
import Money
import OrderBook

/// One Bitso book kept from its REST snapshot plus `diff-orders`: the orders by id, summed into price levels of an
/// exact ``L2Book``.
///
/// Bitso's recipe: queue the diffs, fetch the whole book (`aggregate=false`) with its `sequence`, drop queued diffs
/// at or below it and apply the rest; then each diff must be the previous sequence plus one. A jump is a gap: the
/// book goes back to queueing until a new snapshot covers it.
public struct BitsoBook: Sendable {
    /// Whether the book follows the diffs or waits for a snapshot.
    public enum Phase: Sendable, Hashable {
        /// Waiting for a snapshot; diffs are queued.
        case syncing
        /// Applying each diff as it comes.
        case live
    }

    /// What a diff did.
    public enum DiffResult: Sendable, Hashable {
        /// Queued until a snapshot (the book is syncing).
        case queued
        /// Applied to the book.
        case applied
        /// At or before the book's sequence: already in it, skipped.
        case stale
        /// Past the next sequence number: the book now syncs again, with this diff queued.
        case gap(expected: Int64, received: Int64)
    }

    /// What a snapshot did.
    public enum SnapshotResult: Sendable, Hashable {
        /// The book is live, with `applied` queued diffs applied on top of the snapshot.
        case synced(applied: Int)
        /// The snapshot is older than the first queued diff: the book still syncs and needs a newer one.
        case behind(snapshot: Int64, firstQueued: Int64)
    }

    private struct Order: Sendable, Hashable {
        var side: BookSide
        var price: ExactDecimal
        var amount: ExactDecimal
    }

    /// The price levels.
    public private(set) var book: L2Book
    /// Syncing or live.
    public private(set) var phase = Phase.syncing
    /// Most diffs kept while syncing; older ones are dropped (the next snapshot is then behind and fetched again).
    public let maxQueued: Int
    private var orders: [String: Order] = [:]
    private var levels: [BookSide: [ExactDecimal: ExactDecimal]] = [.bid: [:], .ask: [:]]
    private var queue: [BitsoDiff] = []
    private var tracker = SequenceTracker()

    /// An empty, syncing book of `market`.
    public init(market: MarketPair, maxQueued: Int = 10_000) {
        book = L2Book(market: market)
        self.maxQueued = maxQueued
    }

    /// The market.
    public var market: MarketPair { book.market }
    /// How many diffs wait for a snapshot.
    public var queuedCount: Int { queue.count }
    /// How many orders the book holds.
    public var orderCount: Int { orders.count }

    /// Takes one diff. Throws for an order the book cannot take (a negative amount, a bad side or price); the book
    /// is then syncing, since it missed a change.
    public mutating func apply(_ diff: BitsoDiff) throws(ExchangeEvent) -> DiffResult {
        switch phase {
        case .syncing:
            queue.append(diff)
            if queue.count > maxQueued { queue.removeFirst(queue.count - maxQueued) }
            return .queued
        case .live:
            switch tracker.check(diff.sequence) {
            case .stale:
                return .stale
            case .gap(let expected, let received):
                phase = .syncing
                queue = [diff]
                return .gap(expected: expected, received: received)
            case .ok:
                do {
                    try applyChanges(diff)
                } catch {
                    phase = .syncing
                    queue = []
                    throw error
                }
                return .applied
            }
        }
    }

    /// Replaces the book with `snapshot` and applies the queued diffs after its sequence. Throws for an order it
    /// cannot take (the book then stays syncing).
    public mutating func load(_ snapshot: BitsoOrderBook) throws(ExchangeEvent) -> SnapshotResult {
        var newOrders: [String: Order] = [:]
        var newLevels: [BookSide: [ExactDecimal: ExactDecimal]] = [.bid: [:], .ask: [:]]
        for (side, list) in [(BookSide.bid, snapshot.bids), (.ask, snapshot.asks)] {
            for (index, order) in list.enumerated() {
                guard !order.amount.isNegative else {
                    throw ExchangeEvent(.negativeSize, "\(market) snapshot: \(side) of \(order.amount) at \(order.price)")
                }
                let id = order.oid ?? "\(side.rawValue)@\(order.price)#\(index)"
                newOrders[id] = Order(side: side, price: order.price, amount: order.amount)
                newLevels[side, default: [:]][order.price] = try Self.sum(newLevels[side]?[order.price], order.amount, market)
            }
        }
        var fresh = L2Book(market: market)
        do {
            try fresh.replace(bids: Self.levels(newLevels[.bid]), asks: Self.levels(newLevels[.ask]), sequence: snapshot.sequence)
        } catch {
            throw ExchangeEvent(.badLevel, "\(market) snapshot: \(error)")
        }
        book = fresh
        orders = newOrders
        levels = newLevels
        tracker.reset(to: snapshot.sequence)
        queue.removeAll { $0.sequence <= snapshot.sequence }
        if let first = queue.first, first.sequence > snapshot.sequence + 1 {
            return .behind(snapshot: snapshot.sequence, firstQueued: first.sequence)
        }
        let queued = queue
        queue = []
        phase = .live
        var applied = 0
        for diff in queued {
            switch try apply(diff) {
            case .applied: applied += 1
            case .gap: return .synced(applied: applied)
            case .queued, .stale: break
            }
        }
        return .synced(applied: applied)
    }

    /// Applies each order change of `diff` and sets the book's sequence.
    private mutating func applyChanges(_ diff: BitsoDiff) throws(ExchangeEvent) {
        for change in diff.payload {
            let side: BookSide
            switch change.side {
            case 0: side = .bid
            case 1: side = .ask
            default: throw ExchangeEvent(.malformed, "\(market) diff \(diff.sequence): order \(change.id) has side t=\(change.side)")
            }
            if let amount = change.amount, amount.isNegative {
                throw ExchangeEvent(.negativeSize, "\(market) diff \(diff.sequence): order \(change.id) of \(amount) at \(change.price)")
            }
            if let old = orders.removeValue(forKey: change.id) {
                try setLevel(old.side, old.price, try Self.difference(levels[old.side]?[old.price], old.amount, market))
            }
            if change.status ?? "open" == "open", let amount = change.amount, !amount.isZero {
                orders[change.id] = Order(side: side, price: change.price, amount: amount)
                try setLevel(side, change.price, try Self.sum(levels[side]?[change.price], amount, market))
            }
        }
        book.sequence = diff.sequence
    }

    private mutating func setLevel(_ side: BookSide, _ price: ExactDecimal, _ total: ExactDecimal) throws(ExchangeEvent) {
        levels[side, default: [:]][price] = total.isZero ? nil : total
        do {
            try book.apply(side: side, price: price, size: total)
        } catch {
            throw ExchangeEvent(.badLevel, "\(market): \(error)")
        }
    }

    private static func levels(_ totals: [ExactDecimal: ExactDecimal]?) -> [BookLevel] {
        (totals ?? [:]).map { BookLevel(price: $0.key, size: $0.value) }
    }

    private static func sum(_ total: ExactDecimal?, _ amount: ExactDecimal, _ market: MarketPair) throws(ExchangeEvent) -> ExactDecimal {
        do {
            return try (total ?? .zero) + amount
        } catch {
            throw ExchangeEvent(.malformed, "\(market): \(error)")
        }
    }

    private static func difference(_ total: ExactDecimal?, _ amount: ExactDecimal, _ market: MarketPair) throws(ExchangeEvent) -> ExactDecimal {
        do {
            let left = try (total ?? .zero) - amount
            return left.isNegative ? .zero : left
        } catch {
            throw ExchangeEvent(.malformed, "\(market): \(error)")
        }
    }
}
