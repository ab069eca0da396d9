import BusContract
import Foundation
import TickwireContract
import Money

/// The portfolio's durable storage: activities (trades) with their audit history, the watch list, last known prices
/// and cached upstream documents (masterdata, transactions), so it works offline.
///
/// A `requestId` names one write: a retried add or edit answers the first result, a retried removal `true`; one
/// used by a write of another kind is refused. Every add, edit and removal is kept as a ``TradeRevision``.
public struct PortfolioStore: Sendable {
    /// Checks the activities of the assets a change touches (in every portfolio: the ledger keeps each portfolio's
    /// apart), as they would be after it, inside the write: throwing refuses the change and nothing is written.
    public typealias Check = @Sendable (_ after: [Trade]) throws -> Void

    /// Records an activity as `id`, in the request's portfolio (`main` when nil), unless `requestId` was seen before;
    /// either way returns the activity of that request.
    public var addTrade: @Sendable (_ request: AddTradeRequest, _ id: String, _ now: Date, _ by: String, _ check: Check) async throws -> Trade
    /// Replaces the fields of activity `request.id` (keeping its `recordedAt`, and its portfolio unless the request names
    /// one) unless the request's `requestId` was seen before; either way answers the activity of that request. Throws
    /// not-found for an unknown id.
    public var editTrade: @Sendable (_ request: EditTradeRequest, _ now: Date, _ by: String, _ check: Check) async throws -> Written<Trade>
    /// Removes an activity; `false` when there was none with that id (and `requestId` was not seen before).
    public var removeTrade: @Sendable (_ id: String, _ requestId: String?, _ now: Date, _ by: String, _ check: Check) async throws -> Written<Bool>
    /// Every activity of every portfolio, oldest first (by date, then when recorded, then id); callers pick a portfolio's.
    public var trades: @Sendable () async throws -> [Trade]
    /// The audit history of activity `id` (every activity's when nil), oldest first.
    public var tradeHistory: @Sendable (_ id: String?) async throws -> [TradeRevision]
    /// Adds an asset to the watch list; `false` when it was there already.
    public var watch: @Sendable (_ asset: String, _ now: Date) async throws -> Bool
    /// Removes an asset from the watch list; `false` when it was not there.
    public var unwatch: @Sendable (_ asset: String) async throws -> Bool
    /// The watch list in the order assets were added.
    public var watchlist: @Sendable () async throws -> [String]
    /// Stores the latest prices (one row per asset and currency).
    public var savePrices: @Sendable (_ prices: [StoredPrice]) async throws -> Void
    /// Every stored price.
    public var prices: @Sendable () async throws -> [StoredPrice]
    /// Stores an upstream document under `key`.
    public var saveDocument: @Sendable (_ key: String, _ body: Data) async throws -> Void
    /// The document stored under `key`.
    public var document: @Sendable (_ key: String) async throws -> Data?
    /// Which of `requestIds` named a write before.
    public var seenRequests: @Sendable (_ requestIds: [String]) async throws -> Set<String>
    /// Records many activities in one write, each as `addTrade` would (a `requestId` seen before answers its first activity
    /// and adds nothing), then runs `check` once over the activities of every asset touched: throwing writes none of them.
    public var addTrades: @Sendable (_ requests: [(request: AddTradeRequest, id: String)], _ now: Date, _ by: String, _ check: Check) async throws -> [Written<Trade>]

    /// A store from its operations.
    public init(
        addTrade: @escaping @Sendable (_ request: AddTradeRequest, _ id: String, _ now: Date, _ by: String, _ check: Check) async throws -> Trade,
        editTrade: @escaping @Sendable (_ request: EditTradeRequest, _ now: Date, _ by: String, _ check: Check) async throws -> Written<Trade>,
        removeTrade: @escaping @Sendable (_ id: String, _ requestId: String?, _ now: Date, _ by: String, _ check: Check) async throws -> Written<Bool>,
        trades: @escaping @Sendable () async throws -> [Trade],
        tradeHistory: @escaping @Sendable (_ id: String?) async throws -> [TradeRevision],
        watch: @escaping @Sendable (_ asset: String, _ now: Date) async throws -> Bool,
        unwatch: @escaping @Sendable (_ asset: String) async throws -> Bool,
        watchlist: @escaping @Sendable () async throws -> [String],
        savePrices: @escaping @Sendable (_ prices: [StoredPrice]) async throws -> Void,
        prices: @escaping @Sendable () async throws -> [StoredPrice],
        saveDocument: @escaping @Sendable (_ key: String, _ body: Data) async throws -> Void,
        document: @escaping @Sendable (_ key: String) async throws -> Data?,
        seenRequests: @escaping @Sendable (_ requestIds: [String]) async throws -> Set<String>,
        addTrades: @escaping @Sendable (_ requests: [(request: AddTradeRequest, id: String)], _ now: Date, _ by: String, _ check: Check) async throws -> [Written<Trade>]
    ) {
        self.addTrade = addTrade
        self.editTrade = editTrade
        self.removeTrade = removeTrade
        self.trades = trades
        self.tradeHistory = tradeHistory
        self.watch = watch
        self.unwatch = unwatch
        self.watchlist = watchlist
        self.savePrices = savePrices
        self.prices = prices
        self.saveDocument = saveDocument
        self.document = document
        self.seenRequests = seenRequests
        self.addTrades = addTrades
    }
}

/// What a write answers, and whether it acted: a retried request answers its first result without acting again.
public struct Written<Value: Sendable & Equatable>: Sendable, Equatable {
    /// The answer.
    public var value: Value
    /// `false` when the request's id was seen before (or there was nothing to act on), so nothing changed.
    public var acted: Bool

    /// An answer, and whether the write acted.
    public init(_ value: Value, acted: Bool) {
        self.value = value
        self.acted = acted
    }
}

/// Why a store refused a write for its `requestId`.
public enum RequestReuse {
    /// The error for `requestId` being used again by a write of another kind than its first (`add`, `edit`, `remove`).
    public static func error(_ requestId: String, first: String, now: String) -> RPCError {
        RPCError.invalidParams("requestId \(requestId) already named a trades.\(first); a trades.\(now) needs a requestId of its own")
    }

    /// The error for the `requestId` of an edit of trade `first` being used again for an edit of trade `now`.
    public static func error(_ requestId: String, editOf first: String, now: String) -> RPCError {
        RPCError.invalidParams("requestId \(requestId) already named the edit of trade \(first); the edit of trade \(now) needs a requestId of its own")
    }
}
