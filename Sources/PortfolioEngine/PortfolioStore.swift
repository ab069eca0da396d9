import Foundation
import TickwireContract
import Money

/// The portfolio's durable storage: trades, the watch list, last known prices and
/// cached upstream documents (masterdata, transactions), so it works offline.
public struct PortfolioStore: Sendable {
    /// Records a trade unless `requestId` was seen before; either way returns the trade of that request.
    public var addTrade: @Sendable (_ request: AddTradeRequest, _ id: String, _ now: Date) async throws -> Trade
    /// Removes a trade; `false` when there was none with that id.
    public var removeTrade: @Sendable (_ id: String) async throws -> Bool
    /// Every trade, oldest first.
    public var trades: @Sendable () async throws -> [Trade]
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

    /// A store from its operations.
    public init(
        addTrade: @escaping @Sendable (_ request: AddTradeRequest, _ id: String, _ now: Date) async throws -> Trade,
        removeTrade: @escaping @Sendable (_ id: String) async throws -> Bool,
        trades: @escaping @Sendable () async throws -> [Trade],
        watch: @escaping @Sendable (_ asset: String, _ now: Date) async throws -> Bool,
        unwatch: @escaping @Sendable (_ asset: String) async throws -> Bool,
        watchlist: @escaping @Sendable () async throws -> [String],
        savePrices: @escaping @Sendable (_ prices: [StoredPrice]) async throws -> Void,
        prices: @escaping @Sendable () async throws -> [StoredPrice],
        saveDocument: @escaping @Sendable (_ key: String, _ body: Data) async throws -> Void,
        document: @escaping @Sendable (_ key: String) async throws -> Data?
    ) {
        self.addTrade = addTrade
        self.removeTrade = removeTrade
        self.trades = trades
        self.watch = watch
        self.unwatch = unwatch
        self.watchlist = watchlist
        self.savePrices = savePrices
        self.prices = prices
        self.saveDocument = saveDocument
        self.document = document
    }
}

