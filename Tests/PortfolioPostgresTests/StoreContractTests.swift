import BusContract
import Foundation
import Money
import PortfolioEngine
import Synchronization
import Testing
import TickwireContract

/// The store contract (the SQLite store's rules) over every store: in memory, SQLite (in memory and in a file) and PostgreSQL.
@Suite("Portfolio store contract")
struct StoreContractTests {
    private static let later = now.addingTimeInterval(60)

    /// A retried `addTrade` with the same requestId returns the first trade and stores only one; digits are kept.
    @Test(arguments: StoreKind.allCases)
    func addTradeIsIdempotent(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let request = try tradeRequest("BTC", amount: "0.50", price: "30000.00", requestId: "req-1")
            let first = try await store.add(request, "trade-1", now)
            let retried = try await store.add(request, "trade-2", now.addingTimeInterval(5))
            #expect(first.id == "trade-1" && retried == first && first.asset == "BTC" && first.currency == "USD")
            #expect(first.amount.description == "0.50" && first.price.description == "30000.00")
            #expect(first.date == request.date && first.recordedAt == now && first.portfolio == "main")
            #expect(try await store.trades().map(\.id) == ["trade-1"])
            _ = try await store.add(try tradeRequest("ETH", amount: "2", price: "1500", requestId: "req-2"), "trade-3", now)
            #expect(try await store.trades().count == 2)
            #expect(try await store.seenRequests(["req-1", "req-2", "req-3"]) == ["req-1", "req-2"])
        }
    }

    /// Trades list oldest first (date, then when recorded, then id byte by byte); removing one returns true once.
    @Test(arguments: StoreKind.allCases)
    func orderAndRemoval(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let day = now.addingTimeInterval(-86_400)
            _ = try await store.add(try tradeRequest("ETH", amount: "1", price: "2000", date: day.addingTimeInterval(60), requestId: "b"), "late", now)
            _ = try await store.add(try tradeRequest("BTC", amount: "1", price: "1", date: day, requestId: "a"), "early", now)
            _ = try await store.add(try tradeRequest("BTC", amount: "1", price: "1", date: day, requestId: "c"), "Early", now)
            _ = try await store.add(try tradeRequest("BTC", amount: "1", price: "1", date: day, requestId: "d"), "a-first", now.addingTimeInterval(1))
            #expect(try await store.trades().map(\.id) == ["Early", "early", "a-first", "late"])
            #expect(try await store.remove("early"))
            #expect(try await store.remove("early") == false)
            #expect(try await store.remove("never") == false)
            #expect(try await store.trades().map(\.id) == ["Early", "a-first", "late"])
        }
    }

    /// Watching twice adds once, unwatching twice removes once, and the list keeps the order assets were added.
    @Test(arguments: StoreKind.allCases)
    func watchlist(kind: StoreKind) async throws {
        try await kind.withStore { store async throws in
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
            #expect(try await store.watchlist() == ["ETH", "ADA", "BTC"], "watched again, it comes last")
        }
    }

    /// Prices come back exactly as saved, one row per asset and currency, the newest replacing the older.
    @Test(arguments: StoreKind.allCases)
    func pricesRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let btcUSD = StoredPrice(asset: "BTC", currency: "USD", price: try dec("70187.12345678"), changePercent24h: try dec("-1.250"), updatedAt: now)
            let btcSEK = StoredPrice(asset: "BTC", currency: "SEK", price: try dec("654809.6165"), changePercent24h: nil, updatedAt: now)
            let eth = StoredPrice(asset: "ETH", currency: "USD", price: try dec("0.00000001"), changePercent24h: try dec("3"), updatedAt: now)
            try await store.savePrices([eth, btcUSD, btcSEK])
            #expect(try await store.prices() == [btcSEK, btcUSD, eth])
            #expect(try await store.prices()[1].price.description == "70187.12345678")
            #expect(try await store.prices()[1].changePercent24h?.description == "-1.250")
            let newer = StoredPrice(asset: "BTC", currency: "USD", price: try dec("71000"), changePercent24h: nil, updatedAt: now.addingTimeInterval(60))
            try await store.savePrices([newer])
            try await store.savePrices([])
            #expect(try await store.prices() == [btcSEK, newer, eth])
        }
    }

    /// Documents come back byte for byte; a missing key is nil; saving again replaces.
    @Test(arguments: StoreKind.allCases)
    func documentsRoundTrip(kind: StoreKind) async throws {
        try await kind.withStore { store in
            #expect(try await store.document("wallets.masterdata") == nil)
            let body = Data(#"{"type":"wallets","data":["é", 1]}"#.utf8) + Data([0, 255])
            try await store.saveDocument("wallets.masterdata", body)
            #expect(try await store.document("wallets.masterdata") == body)
            try await store.saveDocument("wallets.masterdata", Data("second".utf8))
            #expect(try await store.document("wallets.masterdata") == Data("second".utf8))
            #expect(try await store.document("assets.masterdata") == nil)
        }
    }

    /// Every kind comes back as written, fee and portfolio included; a retried add after a removal answers the first.
    @Test(arguments: StoreKind.allCases)
    func everyKindRoundTrips(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let day = now.addingTimeInterval(-86_400)
            let requests = [
                AddTradeRequest(kind: .buy, asset: "BTC", amount: try dec("1.50"), price: try dec("100.10"), currency: "USD",
                                fee: CurrencyAmount(amount: try dec("0.25"), currency: "EUR"), date: day, requestId: "r-buy"),
                AddTradeRequest(kind: .sell, asset: "BTC", amount: try dec("0.5"), price: 120, currency: "USD", date: day.addingTimeInterval(1),
                                requestId: "r-sell", portfolio: "Pension 2"),
                AddTradeRequest(kind: .fee, asset: "BTC", amount: 0, price: 0, currency: "SEK",
                                fee: CurrencyAmount(amount: 5, currency: "SEK"), date: day.addingTimeInterval(2), requestId: "r-fee"),
                AddTradeRequest(kind: .transferIn, asset: "ETH", amount: 2, price: 0, currency: "USD", date: day.addingTimeInterval(3), requestId: "r-in"),
                AddTradeRequest(kind: .transferOut, asset: "ETH", amount: 1, price: 0, currency: "USD", date: day.addingTimeInterval(4), requestId: "r-out"),
            ]
            var added: [Trade] = []
            for (index, request) in requests.enumerated() { added.append(try await store.add(request, "t\(index)", now)) }
            #expect(added.map(\.kind) == [.buy, .sell, .fee, .transferIn, .transferOut])
            #expect(added.map(\.portfolio) == ["main", "Pension 2", "main", "main", "main"])
            #expect(added[0].fee == CurrencyAmount(amount: try dec("0.25"), currency: "EUR") && added[0].fee?.amount.description == "0.25")
            #expect(added[1].fee == nil)
            #expect(try await store.trades() == added)
            #expect(try await store.remove("t0"))
            #expect(try await store.add(requests[0], "other", now.addingTimeInterval(30)) == added[0])
            #expect(try await store.trades() == Array(added.dropFirst()))
        }
    }

    /// An edit replaces the fields, keeps the id and `recordedAt` (and the portfolio unless it names one), answers a
    /// retry with its first result, and is kept in the history; a removal likewise.
    @Test(arguments: StoreKind.allCases)
    func editAndRemoveAreAudited(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let later = Self.later
            let added = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-add", portfolio: "ira"), "t-1", now)
            var changed = try tradeRequest("BTC", amount: "2", price: "90", requestId: "r-edit")
            changed.fee = CurrencyAmount(amount: 1, currency: "USD")
            let written = try await store.editTrade(EditTradeRequest(id: "t-1", activity: changed), later, "alice") { _ in }
            #expect(written.acted)
            let edited = written.value
            #expect(edited.id == "t-1" && edited.amount == 2 && edited.price == 90 && edited.fee?.amount == 1 && edited.portfolio == "ira")
            #expect(edited.recordedAt == added.recordedAt)
            var again = changed
            again.amount = 3
            #expect(try await store.editTrade(EditTradeRequest(id: "t-1", activity: again), later, "alice") { _ in } == Written(edited, acted: false))
            var moved = try tradeRequest("BTC", amount: "2", price: "90", requestId: "r-move", portfolio: "main")
            moved.fee = edited.fee
            #expect(try await store.editTrade(EditTradeRequest(id: "t-1", activity: moved), later, "alice") { _ in }.value.portfolio == "main")

            #expect(try await store.removeTrade("t-1", "r-remove", later.addingTimeInterval(1), "bob") { _ in } == Written(true, acted: true))
            #expect(try await store.removeTrade("t-1", "r-remove", later.addingTimeInterval(2), "bob") { _ in } == Written(true, acted: false))
            #expect(try await store.removeTrade("t-1", "r-other", later, "bob") { _ in } == Written(false, acted: false))
            #expect(try await store.trades().isEmpty)

            let history = try await store.tradeHistory("t-1")
            #expect(history.map(\.action) == [.added, .edited, .edited, .removed])
            #expect(history.map(\.by) == ["tester", "alice", "alice", "bob"])
            #expect(history.map(\.at) == [now, later, later, later.addingTimeInterval(1)])
            #expect(history.map(\.requestId) == ["r-add", "r-edit", "r-move", "r-remove"])
            #expect(history[0].before == nil && history[0].after == added)
            #expect(history[1].before == added && history[1].after == edited)
            #expect(history[3].after == nil && history[3].before == history[2].after && history[3].before?.portfolio == "main")
            #expect(history.map(\.seq) == history.map(\.seq).sorted() && Set(history.map(\.seq)).count == 4)
            #expect(try await store.tradeHistory(nil) == history)
            #expect(try await store.tradeHistory("never").isEmpty)
        }
    }

    /// A check that throws refuses the change: nothing is written, no history is kept, the request id stays unused.
    @Test(arguments: StoreKind.allCases)
    func aRefusedChangeWritesNothing(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let refuse: PortfolioStore.Check = { _ in throw RPCError.invalidParams("no") }
            let buy = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1"), "t-1", now)
            await #expect(throws: RPCError.invalidParams("no")) {
                try await store.addTrade(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-2"), "t-2", now, "x", refuse)
            }
            await #expect(throws: RPCError.invalidParams("no")) {
                try await store.editTrade(EditTradeRequest(id: "t-1", activity: try tradeRequest("BTC", amount: "5", price: "1", requestId: "r-3")), now, "x", refuse)
            }
            await #expect(throws: RPCError.invalidParams("no")) { try await store.removeTrade("t-1", "r-4", now, "x", refuse) }
            await #expect(throws: RPCError.invalidParams("no")) {
                try await store.addTrades([(try tradeRequest("ETH", amount: "1", price: "1", requestId: "r-5"), "t-5")], now, "x", refuse)
            }
            #expect(try await store.trades() == [buy])
            #expect(try await store.tradeHistory(nil).map(\.action) == [.added])
            #expect(try await store.seenRequests(["r-2", "r-3", "r-4", "r-5"]).isEmpty)
        }
    }

    /// The check sees the activities of the assets the change touches, as they would be after it.
    @Test(arguments: StoreKind.allCases)
    func theCheckSeesTheActivitiesAfterTheChange(kind: StoreKind) async throws {
        try await kind.withStore { store in
            _ = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1"), "b-1", now)
            _ = try await store.add(try tradeRequest("ETH", amount: "1", price: "100", requestId: "r-2"), "e-1", now)
            _ = try await store.add(try tradeRequest("ADA", amount: "1", price: "100", requestId: "r-3"), "a-1", now)
            let seen = SeenTrades()
            _ = try await store.editTrade(EditTradeRequest(id: "b-1", activity: try tradeRequest("ETH", amount: "3", price: "1", requestId: "r-4")),
                                          now, "x") { seen.record($0) }
            #expect(seen.ids == [["b-1", "e-1"]] && seen.assets == [["ETH"]], "the edited activity as it is after the edit")
            _ = try await store.removeTrade("e-1", nil, now, "x") { seen.record($0) }
            #expect(seen.ids.last == ["b-1"])
            _ = try await store.addTrade(try tradeRequest("ADA", amount: "1", price: "1", requestId: "r-5"), "a-2", now, "x") { seen.record($0) }
            #expect(seen.ids.last == ["a-1", "a-2"])
        }
    }

    /// A request id names one write: reusing it for a write of another kind is refused, saying which.
    @Test(arguments: StoreKind.allCases)
    func aRequestIdNamesOneWrite(kind: StoreKind) async throws {
        try await kind.withStore { store in
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
            await #expect(throws: RPCError.invalidParams("requestId r-e already named a trades.edit; a trades.add needs a requestId of its own")) {
                try await store.addTrades([(try tradeRequest("BTC", amount: "2", price: "1", requestId: "r-e"), "t-9")], now, "x") { _ in }
            }
            await #expect(throws: RPCError.notFound("no trade with id nope")) {
                try await store.editTrade(EditTradeRequest(id: "nope", activity: try tradeRequest("BTC", amount: "2", price: "1", requestId: "r-2")), now, "x") { _ in }
            }
        }
    }

    /// `addTrades` adds every new request in one write (a seen one answers its first activity and adds nothing), runs the
    /// check once over the touched assets, and keeps each addition in the history.
    @Test(arguments: StoreKind.allCases)
    func addTradesInOneWrite(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let first = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "line-1"), "t-1", now)
            let seen = SeenTrades()
            let written = try await store.addTrades([
                (try tradeRequest("BTC", amount: "9", price: "9", requestId: "line-1"), "t-x"),
                (try tradeRequest("ETH", amount: "0.10", price: "2000.50", requestId: "line-2", portfolio: "side"), "t-2"),
                (try tradeRequest("ADA", amount: "5", price: "0.3", kind: .sell, requestId: "line-3"), "t-3"),
            ], Self.later, "importer") { seen.record($0) }
            #expect(written.map(\.acted) == [false, true, true])
            #expect(written[0].value == first)
            #expect(written[1].value.amount.description == "0.10" && written[1].value.price.description == "2000.50")
            #expect(written[1].value.portfolio == "side" && written[1].value.recordedAt == Self.later)
            #expect(written[2].value.kind == .sell)
            #expect(seen.ids == [["t-2", "t-3"]])
            #expect(try await store.trades().sorted { $0.id < $1.id } == [first, written[1].value, written[2].value])
            let history = try await store.tradeHistory(nil)
            #expect(history.map(\.tradeId) == ["t-1", "t-2", "t-3"] && history.dropFirst().allSatisfy { $0.by == "importer" })
            let again = try await store.addTrades([(try tradeRequest("ETH", amount: "1", price: "1", requestId: "line-2"), "t-y")], now, "x") { _ in }
            #expect(again == [Written(written[1].value, acted: false)])
        }
    }

    /// Many activities in one `addTrades` (more than one insert statement's batch) all arrive, in order.
    @Test(arguments: StoreKind.allCases)
    func manyActivitiesInOneWrite(kind: StoreKind) async throws {
        try await kind.withStore { store in
            let requests = try (0..<12_345).map { index in
                (try tradeRequest("BTC", amount: "0.\(index)", price: "1", date: now.addingTimeInterval(Double(index)), requestId: "r\(index)"),
                 String(format: "t%05d", index))
            }
            let written = try await store.addTrades(requests, now, "x") { trades in #expect(trades.count == 12_345) }
            #expect(written.allSatisfy { $0.acted })
            let trades = try await store.trades()
            #expect(trades.count == 12_345 && trades.map(\.id) == requests.map(\.1))
            #expect(trades[10].amount.description == "0.10")
            #expect(try await store.tradeHistory(nil).count == 12_345)
        }
    }
}

/// What a store's check saw, call by call.
final class SeenTrades: Sendable {
    private let calls = Mutex<[[Trade]]>([])

    func record(_ trades: [Trade]) { calls.withLock { $0.append(trades) } }
    var ids: [[String]] { calls.withLock { $0.map { $0.map(\.id).sorted() } } }
    var assets: [[String]] { calls.withLock { $0.map { Array(Set($0.map(\.asset))).sorted() } } }
}
