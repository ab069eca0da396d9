import BusContract
import Foundation
import GRDB
import Money
@testable import PortfolioCore
import PortfolioEngine
import Testing
import TickwireContract

/// Activities in SQLite databases written before them; what every store does with activities is StoreContractTests'.
@Suite("Portfolio store: activities and their history")
struct ActivityStoreTests {
    /// A database written by the schema before activities (v1 and v2) opens migrated: its trades are buys without
    /// fees, an old request id still answers its trade, and sells, edits and history work on it.
    @Test func migratesADatabaseOfBuysOnly() async throws {
        let (path, old) = try oldDatabase(upTo: "v2: requests keep their first answer")
        defer { removeStore(at: path) }
        try await old.write { db in
            try db.execute(sql: """
                INSERT INTO trade VALUES ('t-1', 'BTC', '0.50', '30000.00', 'USD', '2025-01-15T00:00:00.000Z', '2025-01-15T00:00:01.000Z');
                INSERT INTO trade VALUES ('t-2', 'ETH', '2', '30000', 'SEK', '2025-02-01T00:00:00.000Z', '2025-02-01T00:00:01.000Z');
                INSERT INTO request (id, trade_id) VALUES ('old-v1', 't-1');
                INSERT INTO request (id, trade_id, trade) VALUES ('old-v2', 't-2',
                    '{"id":"t-2","asset":"ETH","amount":"2","price":"30000","currency":"SEK","date":"2025-02-01T00:00:00.000Z","recordedAt":"2025-02-01T00:00:01.000Z"}');
                """)
        }
        try old.close()

        let store = try PortfolioStore.live(path: path)
        let trades = try await store.trades()
        #expect(trades.map(\.id) == ["t-1", "t-2"])
        #expect(trades.allSatisfy { $0.kind == .buy && $0.fee == nil })
        #expect(trades[0].amount.description == "0.50" && trades[0].price.description == "30000.00")
        #expect(try await store.add(try tradeRequest("BTC", amount: "9", price: "1", requestId: "old-v1"), "new", now) == trades[0])
        #expect(try await store.add(try tradeRequest("BTC", amount: "9", price: "1", requestId: "old-v2"), "new", now) == trades[1])

        let sell = AddTradeRequest(kind: .sell, asset: "BTC", amount: try dec("0.2"), price: 60_000, currency: "USD",
                                   fee: CurrencyAmount(amount: 3, currency: "USD"), date: now.addingTimeInterval(-60), requestId: "r-sell")
        let sold = try await store.addTrade(sell, "s-1", now, "tester") { try ActivityLedger.check($0, changed: "s-1") }
        #expect(sold.kind == .sell && sold.fee?.amount == 3)
        _ = try await store.editTrade(EditTradeRequest(id: "t-2", activity: try tradeRequest("ETH", amount: "3", price: "30000", currency: "SEK", requestId: "r-e")),
                                      now, "tester") { _ in }
        #expect(try await store.tradeHistory("t-2").map(\.action) == [.edited])
        #expect(try await store.tradeHistory("t-1").isEmpty, "a migrated trade's history starts at its first change")
        let reopened = try PortfolioStore.live(path: path)
        #expect(try await reopened.trades().map(\.kind) == [.buy, .buy, .sell])
    }
}
