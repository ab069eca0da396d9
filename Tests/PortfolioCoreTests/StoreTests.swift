import PortfolioEngine
import Bus
import Foundation
import TickwireContract
import Money
import GRDB
@testable import PortfolioCore
import Testing
import BusContract

@Suite("Portfolio store")
struct StoreTests {
    /// A retried `addTrade` with the same requestId returns the first trade and stores only one.
    @Test(arguments: StoreKind.allCases)
    func addTradeIsIdempotent(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        let request = try tradeRequest("BTC", amount: "0.50", price: "30000.00", requestId: "req-1")
        let first = try await store.add(request, "trade-1", now)
        let retried = try await store.add(request, "trade-2", now.addingTimeInterval(5))
        #expect(first.id == "trade-1")
        #expect(retried == first)
        #expect(first.asset == "BTC")
        #expect(first.amount == (try dec("0.5")))
        #expect(first.amount.description == "0.50")
        #expect(first.price == (try dec("30000")))
        #expect(first.currency == "USD")
        #expect(first.date == request.date)
        #expect(first.recordedAt == now)
        #expect(try await store.trades().map(\.id) == ["trade-1"])

        let other = try await store.add(try tradeRequest("ETH", amount: "2", price: "1500", requestId: "req-2"), "trade-3", now)
        #expect(other.id == "trade-3")
        #expect(try await store.trades().count == 2)
    }

    /// Trades list oldest first by trade date; removing one returns true once, then false.
    @Test(arguments: StoreKind.allCases)
    func removeTrade(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        _ = try await store.add(try tradeRequest("ETH", amount: "1", price: "2000", date: now.addingTimeInterval(-60), requestId: "b"), "late", now)
        _ = try await store.add(try tradeRequest("BTC", amount: "1", price: "60000", date: now.addingTimeInterval(-3600), requestId: "a"), "early", now)
        #expect(try await store.trades().map(\.id) == ["early", "late"])
        #expect(try await store.remove("early"))
        #expect(try await store.remove("early") == false)
        #expect(try await store.remove("never") == false)
        #expect(try await store.trades().map(\.id) == ["late"])
    }

    /// Watching twice adds once, unwatching twice removes once, and the list keeps the order assets were added.
    @Test(arguments: StoreKind.allCases)
    func watchlistIsIdempotentAndOrdered(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        #expect(try await store.watch("ETH", now))
        #expect(try await store.watch("BTC", now.addingTimeInterval(1)))
        #expect(try await store.watch("ETH", now.addingTimeInterval(2)) == false)
        #expect(try await store.watch("ADA", now.addingTimeInterval(3)))
        #expect(try await store.watchlist() == ["ETH", "BTC", "ADA"])
        #expect(try await store.unwatch("BTC"))
        #expect(try await store.unwatch("BTC") == false)
        #expect(try await store.unwatch("DOGE") == false)
        #expect(try await store.watchlist() == ["ETH", "ADA"])
        #expect(try await store.watch("BTC", now.addingTimeInterval(4)))
        #expect(try await store.watchlist() == ["ETH", "ADA", "BTC"])
    }

    /// Prices come back exactly as saved, one row per asset and currency, the newest replacing the older.
    @Test(arguments: StoreKind.allCases)
    func pricesRoundTrip(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        let btcUSD = StoredPrice(asset: "BTC", currency: "USD", price: try dec("70187.12345678"), changePercent24h: try dec("-1.25"), updatedAt: now)
        let btcSEK = StoredPrice(asset: "BTC", currency: "SEK", price: try dec("654809.6165"), changePercent24h: nil, updatedAt: now)
        let eth = StoredPrice(asset: "ETH", currency: "USD", price: try dec("0.00000001"), changePercent24h: try dec("3"), updatedAt: now)
        try await store.savePrices([eth, btcUSD, btcSEK])
        #expect(try await store.prices() == [btcSEK, btcUSD, eth])
        #expect(try await store.prices()[1].price.description == "70187.12345678")

        let newer = StoredPrice(asset: "BTC", currency: "USD", price: try dec("71000"), changePercent24h: nil, updatedAt: now.addingTimeInterval(60))
        try await store.savePrices([newer])
        #expect(try await store.prices() == [btcSEK, newer, eth])
    }

    /// Documents come back byte for byte; a missing key is nil; saving again replaces.
    @Test(arguments: StoreKind.allCases)
    func documentsRoundTrip(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        #expect(try await store.document("wallets.masterdata") == nil)
        let body = Data(#"{"type":"wallets","data":["é", 1]}"#.utf8) + Data([0, 255])
        try await store.saveDocument("wallets.masterdata", body)
        #expect(try await store.document("wallets.masterdata") == body)
        try await store.saveDocument("wallets.masterdata", Data("second".utf8))
        #expect(try await store.document("wallets.masterdata") == Data("second".utf8))
        #expect(try await store.document("assets.masterdata") == nil)
    }

    /// Reopening the same file finds its trade, watch list and prices, and still honours the old requestId.
    @Test func fileStoreSurvivesReopening() async throws {
        let (store, path) = try makeStore(.file)
        defer { removeStore(at: path) }
        let request = try tradeRequest("BTC", amount: "0.25", price: "64000.50", requestId: "keep-me")
        let trade = try await store.add(request, "t-1", now)
        _ = try await store.watch("BTC", now)
        try await store.savePrices([StoredPrice(asset: "BTC", currency: "USD", price: try dec("65000"), changePercent24h: nil, updatedAt: now)])

        let reopened = try PortfolioStore.live(path: try #require(path))
        #expect(try await reopened.trades() == [trade])
        #expect(try await reopened.watchlist() == ["BTC"])
        #expect(try await reopened.prices().map(\.price) == [try dec("65000")])
        #expect(try await reopened.add(request, "t-2", now) == trade)
        #expect(try await reopened.trades().count == 1)
    }

    /// The file store's writer syncs every commit (`synchronous=FULL`, 2), although GRDB's pool sets NORMAL
    /// when it turns WAL on: with NORMAL an acknowledged trade is lost when the file system fails before
    /// SQLite's next checkpoint (found by `make chaos`, its disk-ro fault).
    @Test func fileStoreSyncsEveryCommit() throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("tickwire-portfolio-\(UUID().uuidString)/portfolio.sqlite").path
        defer { removeStore(at: path) }
        let pool = try PortfolioStore.openDatabase(path: path)
        #expect(try pool.write { try String.fetchOne($0, sql: "PRAGMA journal_mode") } == "wal")
        #expect(try pool.write { try Int.fetchOne($0, sql: "PRAGMA synchronous") } == 2)
    }

    /// A write the disk refuses (full, read-only, failing) is a clear -32000 saying nothing was recorded and a retry
    /// with the same requestId is safe; other SQLite errors pass through.
    @Test func refusedWritesAreAClearError() async throws {
        for (code, reason) in [(ResultCode.SQLITE_FULL, "the disk is full"), (.SQLITE_READONLY, "the database is read-only"),
                               (.SQLITE_IOERR, "disk I/O error: the disk is failing or read-only")] {
            await #expect(throws: StoreError.unwritable(reason)) {
                try await PortfolioStore.writing { () async throws -> Int in throw DatabaseError(resultCode: code) }
            }
            let answer = RPCError(answering: StoreError.unwritable(reason))
            #expect(answer.code == RPCError.Code.unavailable)
            #expect(answer.message.contains(reason) && answer.message.contains("nothing was recorded")
                    && answer.message.contains("same requestId"))
        }
        await #expect(throws: DatabaseError.self) {
            try await PortfolioStore.writing { () async throws -> Int in throw DatabaseError(resultCode: .SQLITE_CONSTRAINT) }
        }
    }
}

@Suite("Portfolio store retries after removal")
struct StoreRetryTests {
    /// Retrying an add whose trade was since removed does not act twice and does not fail with a database error.
    @Test(arguments: StoreKind.allCases)
    func retryAfterRemoveReturnsTheFirstResult(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        let request = try tradeRequest("BTC", amount: "1", price: "60000", requestId: "req-1")
        let first = try await store.add(request, "trade-1", now)
        #expect(try await store.remove("trade-1"))
        let retried = try await store.add(request, "trade-2", now.addingTimeInterval(30))
        #expect(retried == first)
        #expect(try await store.trades().isEmpty)
    }
}
