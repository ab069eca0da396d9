import BusContract
import Foundation
import GRDB
import Money
@testable import PortfolioCore
import PortfolioEngine
import Synchronization
import Testing
import TickwireContract

@Suite("Portfolio store: activities and their history")
struct ActivityStoreTests {
    private let later = now.addingTimeInterval(60)

    /// Every kind comes back as written, fee included; a trade without a fee has none.
    @Test(arguments: StoreKind.allCases)
    func everyKindRoundTrips(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        let day = now.addingTimeInterval(-86_400)
        let requests = [
            AddTradeRequest(kind: .buy, asset: "BTC", amount: try dec("1.50"), price: try dec("100.10"), currency: "USD",
                            fee: CurrencyAmount(amount: try dec("0.25"), currency: "EUR"), date: day, requestId: "r-buy"),
            AddTradeRequest(kind: .sell, asset: "BTC", amount: try dec("0.5"), price: 120, currency: "USD", date: day.addingTimeInterval(1), requestId: "r-sell"),
            AddTradeRequest(kind: .fee, asset: "BTC", amount: 0, price: 0, currency: "SEK",
                            fee: CurrencyAmount(amount: 5, currency: "SEK"), date: day.addingTimeInterval(2), requestId: "r-fee"),
            AddTradeRequest(kind: .transferIn, asset: "ETH", amount: 2, price: 0, currency: "USD", date: day.addingTimeInterval(3), requestId: "r-in"),
            AddTradeRequest(kind: .transferOut, asset: "ETH", amount: 1, price: 0, currency: "USD", date: day.addingTimeInterval(4), requestId: "r-out"),
        ]
        var added: [Trade] = []
        for (index, request) in requests.enumerated() { added.append(try await store.add(request, "t\(index)", now)) }
        #expect(added.map(\.kind) == [.buy, .sell, .fee, .transferIn, .transferOut])
        #expect(added[0].fee == CurrencyAmount(amount: try dec("0.25"), currency: "EUR"))
        #expect(added[0].fee?.amount.description == "0.25" && added[0].price.description == "100.10")
        #expect(added[1].fee == nil)
        #expect(try await store.trades() == added)
    }

    /// An edit replaces the fields, keeps the id and `recordedAt`, answers a retry with its first result, and is kept
    /// in the history with who, when, before and after; a removal likewise, and a retried one answers true again.
    @Test(arguments: StoreKind.allCases)
    func editAndRemoveAreAudited(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        let added = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-add"), "t-1", now)
        var changed = try tradeRequest("BTC", amount: "2", price: "90", requestId: "r-edit")
        changed.fee = CurrencyAmount(amount: 1, currency: "USD")
        let edit = EditTradeRequest(id: "t-1", activity: changed)
        let written = try await store.editTrade(edit, later, "alice") { _ in }
        #expect(written.acted)
        let edited = written.value
        #expect(edited.id == "t-1" && edited.amount == 2 && edited.price == 90 && edited.fee?.amount == 1)
        #expect(edited.recordedAt == added.recordedAt)
        var again = changed
        again.amount = 3
        #expect(try await store.editTrade(EditTradeRequest(id: "t-1", activity: again.with(requestId: "r-edit")), later, "alice") { _ in }
                == Written(edited, acted: false))
        #expect(try await store.trades() == [edited])

        #expect(try await store.removeTrade("t-1", "r-remove", later.addingTimeInterval(1), "bob") { _ in } == Written(true, acted: true))
        #expect(try await store.removeTrade("t-1", "r-remove", later.addingTimeInterval(2), "bob") { _ in } == Written(true, acted: false),
                "a retried removal answers true without acting")
        #expect(try await store.removeTrade("t-1", "r-other", later, "bob") { _ in } == Written(false, acted: false))
        #expect(try await store.trades().isEmpty)

        let history = try await store.tradeHistory("t-1")
        #expect(history.map(\.action) == [.added, .edited, .removed])
        #expect(history.map(\.by) == ["tester", "alice", "bob"])
        #expect(history.map(\.at) == [now, later, later.addingTimeInterval(1)])
        #expect(history.map(\.requestId) == ["r-add", "r-edit", "r-remove"])
        #expect(history[0].before == nil && history[0].after == added)
        #expect(history[1].before == added && history[1].after == edited)
        #expect(history[2].before == edited && history[2].after == nil)
        #expect(history.map(\.seq) == history.map(\.seq).sorted() && Set(history.map(\.seq)).count == 3)
        #expect(try await store.tradeHistory(nil) == history)
        #expect(try await store.tradeHistory("never").isEmpty)
    }

    /// A check that throws refuses the change: nothing is written, no history is kept, the request id stays unused.
    @Test(arguments: StoreKind.allCases)
    func aRefusedChangeWritesNothing(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        let refuse: PortfolioStore.Check = { _ in throw RPCError.invalidParams("no") }
        let buy = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1"), "t-1", now)
        await #expect(throws: RPCError.invalidParams("no")) {
            try await store.addTrade(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-2"), "t-2", now, "x", refuse)
        }
        await #expect(throws: RPCError.invalidParams("no")) {
            try await store.editTrade(EditTradeRequest(id: "t-1", activity: try tradeRequest("BTC", amount: "5", price: "1", requestId: "r-3")), now, "x", refuse)
        }
        await #expect(throws: RPCError.invalidParams("no")) { try await store.removeTrade("t-1", "r-4", now, "x", refuse) }
        #expect(try await store.trades() == [buy])
        #expect(try await store.tradeHistory(nil).map(\.action) == [.added])
        let second = try await store.add(try tradeRequest("ETH", amount: "1", price: "1", requestId: "r-2"), "t-5", now)
        #expect(second.id == "t-5", "the refused request's id was not used up")
    }

    /// The check sees the activities of the assets the change touches, as they would be after it.
    @Test(arguments: StoreKind.allCases)
    func theCheckSeesTheActivitiesAfterTheChange(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        _ = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1"), "b-1", now)
        _ = try await store.add(try tradeRequest("ETH", amount: "1", price: "100", requestId: "r-2"), "e-1", now)
        let seen = SeenTrades()
        _ = try await store.editTrade(EditTradeRequest(id: "b-1", activity: try tradeRequest("ETH", amount: "3", price: "1", requestId: "r-3")),
                                      now, "x") { seen.record($0) }
        #expect(seen.ids == [["b-1", "e-1"]])
        #expect(seen.assets == [["ETH"]])
        _ = try await store.removeTrade("e-1", nil, now, "x") { seen.record($0) }
        #expect(seen.ids.last == ["b-1"])
    }

    /// A request id names one write: reusing it for a write of another kind is refused, saying which.
    @Test(arguments: StoreKind.allCases)
    func aRequestIdNamesOneWrite(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        _ = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1"), "t-1", now)
        await #expect(throws: RPCError.invalidParams("requestId r-1 already named a trades.add; a trades.edit needs a requestId of its own")) {
            try await store.editTrade(EditTradeRequest(id: "t-1", activity: try tradeRequest("BTC", amount: "2", price: "1", requestId: "r-1")), now, "x") { _ in }
        }
        await #expect(throws: RPCError.invalidParams("requestId r-1 already named a trades.add; a trades.remove needs a requestId of its own")) {
            try await store.removeTrade("t-1", "r-1", now, "x") { _ in }
        }
        _ = try await store.editTrade(EditTradeRequest(id: "t-1", activity: try tradeRequest("BTC", amount: "2", price: "1", requestId: "r-e")), now, "x") { _ in }
        await #expect(throws: RPCError.invalidParams("requestId r-e already named the edit of trade t-1; the edit of trade nope needs a requestId of its own")) {
            try await store.editTrade(EditTradeRequest(id: "nope", activity: try tradeRequest("BTC", amount: "2", price: "1", requestId: "r-e")), now, "x") { _ in }
        }
        await #expect(throws: RPCError.notFound("no trade with id nope")) {
            try await store.editTrade(EditTradeRequest(id: "nope", activity: try tradeRequest("BTC", amount: "2", price: "1", requestId: "r-2")), now, "x") { _ in }
        }
    }

    /// A database written by the schema before activities (v1 and v2) opens migrated: its trades are buys without
    /// fees, an old request id still answers its trade, and sells, edits and history work on it.
    @Test func migratesADatabaseOfBuysOnly() async throws {
        let path = FileManager.default.temporaryDirectory
            .appendingPathComponent("tickwire-portfolio-\(UUID().uuidString)/portfolio.sqlite").path
        defer { removeStore(at: path) }
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        let old = try DatabaseQueue(path: path)
        let schema = "v2: requests keep their first answer"
        try #require(PortfolioStore.migrator.migrations.contains(schema))
        try PortfolioStore.migrator.migrate(old, upTo: schema)
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

/// What a store's check saw, call by call.
final class SeenTrades: Sendable {
    private let calls = Mutex<[[Trade]]>([])

    func record(_ trades: [Trade]) { calls.withLock { $0.append(trades) } }
    var ids: [[String]] { calls.withLock { $0.map { $0.map(\.id).sorted() } } }
    var assets: [[String]] { calls.withLock { $0.map { Array(Set($0.map(\.asset))).sorted() } } }
}

extension AddTradeRequest {
    /// The same request under another request id.
    func with(requestId: String) -> AddTradeRequest {
        var request = self
        request.requestId = requestId
        return request
    }
}
