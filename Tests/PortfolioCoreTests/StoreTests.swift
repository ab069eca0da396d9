import PortfolioEngine
import Bus
import Foundation
import TickwireContract
import Money
import GRDB
@testable import PortfolioCore
import Testing
import BusContract

/// The SQLite file store's own cases; what every store does is Tests/PortfolioPostgresTests' StoreContractTests.
@Suite("Portfolio store: the SQLite file")
struct StoreTests {
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
