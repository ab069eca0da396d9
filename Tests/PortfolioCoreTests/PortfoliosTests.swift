import Bus
import BusContract
import Foundation
import GRDB
import Logging
import Market
import Money
@testable import PortfolioCore
@testable import PortfolioEngine
import Testing
import TickwireClients
import TickwireContract

/// A portfolio state in memory at the fixed `now`, BTC at 300 USD and ETH at 20 USD, their histories
/// ``PortfoliosTests/history``, and no converter (every amount is in USD); its methods over the wire's handlers.
struct TwoPortfolios {
    let state: PortfolioState
    let client: PortfolioClient
    let methods: RPCMethods
    let changes: AsyncStream<PortfolioChange>

    init(store: PortfolioStore = .memory()) async throws {
        var logger = Logger(label: "portfolios-test")
        logger.logLevel = .critical
        let (changes, published) = AsyncStream<PortfolioChange>.makeStream()
        self.changes = changes
        state = PortfolioState(
            store: store, total: { _ in throw RPCError.unavailable("no converter here") }, publish: { published.yield($0) }, logger: logger,
            now: { now }, history: { asset, currency, _ in PriceHistory(asset: asset, currency: currency, points: try PortfoliosTests.history(asset)) })
        var updates: [StreamUpdate<AssetPrice>] = []
        for (seq, (asset, price)) in [("BTC", "300"), ("ETH", "20")].enumerated() {
            updates.append(StreamUpdate(
                topic: try Topics.price(asset: asset, currency: "USD").topic, seq: UInt64(seq + 1), time: now, source: "converter",
                value: AssetPrice(asset: asset, currency: "USD", price: try dec(price), changePercent24h: nil, path: [asset, "USD"], quoteTime: now)))
        }
        await state.applyConverter(.snapshot(updates))
        methods = Portfolio.methods(state)
        client = .live(LocalRPC(methods))
    }

    /// Answers the raw JSON-RPC request `body`, decoded.
    func call(_ body: String) async throws -> [String: Any] {
        let reply = await methods.handle(Data(body.utf8))
        return try #require(try JSONSerialization.jsonObject(with: reply) as? [String: Any])
    }
}

/// `days` days before `now`.
private func ago(_ days: Double) -> Date { now.addingTimeInterval(-days * 86_400) }

@Suite("Several portfolios: each activity in a named one")
struct PortfoliosTests {
    /// BTC at 100, 200 and 250 USD 30, 20 and 10 days ago; ETH at 10 and 15 USD 20 and 10 days ago.
    static func history(_ asset: String) throws -> [PricePoint] {
        switch asset {
        case "BTC": [PricePoint(time: ago(30), price: 100), PricePoint(time: ago(20), price: 200), PricePoint(time: ago(10), price: 250)]
        case "ETH": [PricePoint(time: ago(20), price: 10), PricePoint(time: ago(10), price: 15)]
        default: throw RPCError.notFound("no history of \(asset)")
        }
    }

    /// main: 2 BTC bought at 100 30 days ago, 1 sold at 250 5 days ago. Pension: 1 BTC at 200 20 days ago and 10 ETH at
    /// 10 a day later.
    private func trade(_ portfolio: TwoPortfolios) async throws -> (main: [Trade], pension: [Trade]) {
        let client = portfolio.client
        let main = [
            try await client.addTrade(AddTradeRequest(asset: "BTC", amount: 2, price: 100, currency: "USD", date: ago(30), requestId: "m1")),
            try await client.addTrade(AddTradeRequest(kind: .sell, asset: "BTC", amount: 1, price: 250, currency: "USD", date: ago(5), requestId: "m2",
                                                      portfolio: "main")),
        ]
        let pension = [
            try await client.addTrade(AddTradeRequest(asset: "BTC", amount: 1, price: 200, currency: "USD", date: ago(20), requestId: "p1",
                                                      portfolio: "Pension")),
            try await client.addTrade(AddTradeRequest(asset: "ETH", amount: 10, price: 10, currency: "USD", date: ago(19), requestId: "p2",
                                                      portfolio: " Pension ")),
        ]
        return (main, pension)
    }

    /// Activities, holdings, gains, performance and history are each portfolio's own; `portfolios.list` names both with
    /// their counts, main first; every change says which portfolio it is about.
    @Test func eachPortfolioIsSeparate() async throws {
        let portfolio = try await TwoPortfolios()
        let client = portfolio.client
        let (main, pension) = try await trade(portfolio)
        #expect(main.map(\.portfolio) == ["main", "main"])
        #expect(pension.map(\.portfolio) == ["Pension", "Pension"], "a name is trimmed")

        #expect(try await client.trades(TradesRequest()) == main)
        #expect(try await client.trades(TradesRequest(portfolio: "main")) == main)
        #expect(try await client.trades(TradesRequest(portfolio: "Pension")) == pension)
        #expect(try await client.trades(TradesRequest(portfolio: "Savings")).isEmpty)
        #expect(try await client.portfolios() == PortfolioList(portfolios: [PortfolioSummary(name: "main", activities: 2),
                                                                            PortfolioSummary(name: "Pension", activities: 2)]))

        let mainHoldings = try await client.holdings(HoldingsRequest(currency: "USD"))
        #expect(mainHoldings.holdings.map(\.asset) == ["BTC"] && mainHoldings.holdings.map(\.amount) == [1])
        #expect(mainHoldings.totalValue.description == "300.00" && mainHoldings.totalCost.description == "100.00")
        let pensionHoldings = try await client.holdings(HoldingsRequest(currency: "USD", portfolio: "Pension"))
        #expect(pensionHoldings.holdings.map(\.asset) == ["BTC", "ETH"] && pensionHoldings.holdings.map(\.amount) == [1, 10])
        #expect(pensionHoldings.totalValue.description == "500.00" && pensionHoldings.totalCost.description == "300.00")

        let mainGains = try await client.gains(GainsRequest(currency: "USD"))
        #expect(mainGains.totalRealizedGain.description == "150.00" && mainGains.totalUnrealizedGain.description == "200.00")
        let pensionGains = try await client.gains(GainsRequest(currency: "USD", portfolio: "Pension"))
        #expect(pensionGains.totalRealizedGain.description == "0.00" && pensionGains.totalUnrealizedGain.description == "200.00")
        #expect(pensionGains.assets.map(\.activities) == [1, 1])

        // main: 200 → 500 (2 BTC at 250) until the sell, then 250 → 300: 2.5 × 1.2 = 3. Pension: 200 → 200 until the ETH
        // buy, then 300 → 500.
        let mainMax = try #require(try await client.performance(PerformanceRequest(currency: "USD")).returns.last)
        #expect(mainMax.start == ago(30) && mainMax.endValue?.description == "300.00" && mainMax.twr?.description == "2.00000000")
        let pensionMax = try #require(try await client.performance(PerformanceRequest(currency: "USD", portfolio: "Pension")).returns.last)
        #expect(pensionMax.start == ago(20) && pensionMax.endValue?.description == "500.00" && pensionMax.twr?.description == "0.66666667")

        #expect(try await client.tradeHistory(TradeHistoryRequest(portfolio: "Pension")).map(\.tradeId) == pension.map(\.id))
        #expect(try await client.tradeHistory(TradeHistoryRequest()).count == 4)

        var changes = portfolio.changes.makeAsyncIterator()
        for trade in main + pension {
            #expect(await changes.next() == PortfolioChange(reason: "trade.added", subject: trade.id, portfolio: trade.portfolio))
        }
    }

    /// A sell takes only what its own portfolio holds: 2 BTC are held in all (1 in each) and a sell of 2 in Pension is
    /// refused naming the portfolio, as is a sell in a portfolio that holds none while main does.
    @Test func aSellTakesOnlyWhatItsPortfolioHolds() async throws {
        let portfolio = try await TwoPortfolios()
        let client = portfolio.client
        _ = try await trade(portfolio)
        let sell = AddTradeRequest(kind: .sell, asset: "BTC", amount: 2, price: 300, currency: "USD", date: ago(1), requestId: "s1", portfolio: "Pension")
        let tooMuch = await #expect(throws: RPCError.self) { try await client.addTrade(sell) }
        #expect(tooMuch?.code == RPCError.Code.invalidParams)
        #expect(tooMuch?.message == "invalid params: cannot sell 2 BTC on \(Wire.format(ago(1))): 1 BTC held then in portfolio Pension")
        #expect(tooMuch?.data?["portfolio"] == "Pension" && tooMuch?.data?["held"] == "1")

        var none = sell
        none.amount = 1
        none.requestId = "s2"
        none.portfolio = "Savings"
        let empty = await #expect(throws: RPCError.self) { try await client.addTrade(none) }
        #expect(empty?.message == "invalid params: cannot sell 1 BTC on \(Wire.format(ago(1))): 0 BTC held then in portfolio Savings")
        #expect(try await client.portfolios().portfolios.map(\.name) == ["main", "Pension"], "a refused activity starts no portfolio")

        var fits = sell
        fits.amount = 1
        fits.requestId = "s3"
        #expect(try await client.addTrade(fits).portfolio == "Pension")
    }

    /// An edit without a portfolio keeps the activity where it is; one with a portfolio moves it there, unless what is
    /// left behind would be sold short.
    @Test func anEditMovesAnActivityOnlyWhenItNamesAPortfolio() async throws {
        let portfolio = try await TwoPortfolios()
        let client = portfolio.client
        let (main, pension) = try await trade(portfolio)
        let eth = pension[1]
        let kept = try await client.editTrade(EditTradeRequest(id: eth.id, activity: AddTradeRequest(
            asset: "ETH", amount: 12, price: 10, currency: "USD", date: eth.date, requestId: "e1")))
        #expect(kept.portfolio == "Pension" && kept.amount == 12)
        let moved = try await client.editTrade(EditTradeRequest(id: eth.id, activity: AddTradeRequest(
            asset: "ETH", amount: 12, price: 10, currency: "USD", date: eth.date, requestId: "e2", portfolio: "main")))
        #expect(moved.portfolio == "main")
        #expect(try await client.trades(TradesRequest(portfolio: "Pension")).map(\.id) == [pension[0].id])
        #expect(try await client.trades(TradesRequest()).map(\.id).contains(eth.id))
        let history = try await client.tradeHistory(TradeHistoryRequest(portfolio: "Pension"))
        #expect(history.map(\.requestId) == ["p1", "p2", "e1", "e2"], "a move is in the history of the portfolio it left")

        let buy = main[0]
        let shortened = await #expect(throws: RPCError.self) {
            try await client.editTrade(EditTradeRequest(id: buy.id, activity: AddTradeRequest(
                asset: "BTC", amount: 2, price: 100, currency: "USD", date: buy.date, requestId: "e3", portfolio: "Pension")))
        }
        #expect(shortened?.message.contains("taking more than the 0 BTC held then") == true, "main's sell would be left short")
        #expect(try await client.trades(TradesRequest()).first?.id == buy.id)
        var changes = portfolio.changes.makeAsyncIterator()
        for _ in 0..<4 { _ = await changes.next() }
        #expect(await changes.next() == PortfolioChange(reason: "trade.edited", subject: eth.id, portfolio: "Pension"))
        #expect(await changes.next() == PortfolioChange(reason: "trade.edited", subject: eth.id, portfolio: "main"))
        #expect(try await client.removeTrade(RemoveTradeRequest(id: pension[0].id)))
        #expect(await changes.next() == PortfolioChange(reason: "trade.removed", subject: pension[0].id, portfolio: "Pension"))
    }

    /// A name that breaks the rule is -32602 naming it, for every method that takes one, and writes nothing.
    @Test(arguments: ["", "   ", "a/b", "Pension\n2", String(repeating: "x", count: 41), "<script>"])
    func badNamesAreRefused(name: String) async throws {
        let portfolio = try await TwoPortfolios()
        let client = portfolio.client
        let rule = "invalid params: portfolio must be 1 to 40 letters, digits, spaces, '-', '_' or '.' (trimmed), got "
        let add = await #expect(throws: RPCError.self) {
            try await client.addTrade(AddTradeRequest(asset: "BTC", amount: 1, price: 1, currency: "USD", date: ago(1), requestId: "r", portfolio: name))
        }
        #expect(add?.code == RPCError.Code.invalidParams && add?.message.hasPrefix(rule) == true)
        let reads: [(String, @Sendable () async throws -> Void)] = [
            ("trades.list", { _ = try await client.trades(TradesRequest(portfolio: name)) }),
            ("holdings", { _ = try await client.holdings(HoldingsRequest(portfolio: name)) }),
            ("gains", { _ = try await client.gains(GainsRequest(portfolio: name)) }),
            ("performance", { _ = try await client.performance(PerformanceRequest(portfolio: name)) }),
            ("trades.history", { _ = try await client.tradeHistory(TradeHistoryRequest(portfolio: name)) }),
            ("activities.export", { _ = try await client.exportActivities(ExportActivitiesRequest(format: .csv, portfolio: name)) }),
            ("activities.import", {
                _ = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: "Date,Code,Currency,Price,Quantity,Action,Fee\n",
                                                                              dryRun: false, portfolio: name))
            }),
        ]
        for (method, call) in reads {
            let error = await #expect(throws: RPCError.self, "\(method)") { try await call() }
            #expect(error?.code == RPCError.Code.invalidParams && error?.message.hasPrefix(rule) == true, "\(method): \(error?.message ?? "-")")
        }
        #expect(try await client.portfolios() == PortfolioList(portfolios: [PortfolioSummary(name: "main", activities: 0)]))
    }

    /// `trades.list` answers main's activities with its params left out or null, and another's when they name it.
    @Test func tradesListWithoutParams() async throws {
        let portfolio = try await TwoPortfolios()
        let (main, pension) = try await trade(portfolio)
        for params in ["", #","params":null"#, #","params":{}"#] {
            let reply = try await portfolio.call(#"{"jsonrpc":"2.0","id":1,"method":"trades.list"\#(params)}"#)
            let ids = try #require(reply["result"] as? [[String: Any]], "\(reply)").compactMap { $0["id"] as? String }
            #expect(ids == main.map(\.id), "params \(params)")
        }
        let named = try await portfolio.call(#"{"jsonrpc":"2.0","id":1,"method":"trades.list","params":{"portfolio":"Pension"}}"#)
        #expect((named["result"] as? [[String: Any]])?.compactMap { $0["portfolio"] as? String } == ["Pension", "Pension"])
        #expect((named["result"] as? [[String: Any]])?.compactMap { $0["id"] as? String } == pension.map(\.id))
        let wrong = try await portfolio.call(#"{"jsonrpc":"2.0","id":1,"method":"trades.list","params":{"portfolio":7}}"#)
        #expect((wrong["error"] as? [String: Any])?["code"] as? Int == RPCError.Code.invalidParams)
        let required = try await portfolio.call(#"{"jsonrpc":"2.0","id":1,"method":"trades.add"}"#)
        #expect((required["error"] as? [String: Any])?["message"] as? String == #"invalid params: missing "params""#,
                "a method whose params are required still says they are missing")
    }

    /// The same file imported into two portfolios adds to both; twice into one adds nothing; main's line identities are
    /// those of a file read before there were several portfolios, another's differ; a sell in a portfolio that holds
    /// nothing is the line's error although main holds the asset.
    @Test(arguments: StoreKind.allCases) func importIntoTwoPortfolios(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        let portfolio = try await TwoPortfolios(store: store)
        let client = portfolio.client
        let file = "Date,Code,Currency,Price,Quantity,Action,Fee\n2025-11-01,BTC,USD,100,2,buy,1\n2025-11-02,BTC,USD,150,1,sell,0\n"
        let intoMain = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false))
        #expect(intoMain.written && intoMain.new == 2)
        let intoPension = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false, portfolio: "Pension"))
        #expect(intoPension.written && intoPension.new == 2 && intoPension.duplicates == 0)
        #expect(intoPension.lines.map { $0.activity?.portfolio } == ["Pension", "Pension"])
        let again = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false, portfolio: "Pension"))
        #expect(!again.written && again.new == 0 && again.duplicates == 2)
        #expect(try await client.trades(TradesRequest()).count == 2)
        #expect(try await client.trades(TradesRequest(portfolio: "Pension")).map(\.amount) == [2, 1])
        #expect(try await client.portfolios().portfolios.map(\.activities) == [2, 2])

        // The identity main's first line had before several portfolios: kind, asset, amounts, currencies, date in ms.
        #expect(intoMain.lines.first?.activity?.requestId == ActivityImport.identity("buy|BTC|2|100|USD|1|USD|1761955200000", occurrence: 1))
        let mainIdentities = Set(intoMain.lines.compactMap { $0.activity?.requestId })
        let pensionIdentities = Set(intoPension.lines.compactMap { $0.activity?.requestId })
        #expect(mainIdentities.count == 2 && pensionIdentities.count == 2 && mainIdentities.isDisjoint(with: pensionIdentities))

        let sell = "Date,Code,Currency,Price,Quantity,Action,Fee\n2025-11-03,BTC,USD,150,1,sell,0\n"
        let short = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: sell, dryRun: false, portfolio: "Savings"))
        #expect(!short.written && short.errors == 1)
        #expect(short.lines.first?.errors.first?.reason.hasPrefix("cannot sell 1 BTC on 2025-11-03T00:00:00.000Z: 0 BTC held then") == true)
        #expect(try await client.trades(TradesRequest(portfolio: "Savings")).isEmpty)
        var changes = portfolio.changes.makeAsyncIterator()
        #expect(await changes.next() == PortfolioChange(reason: "trades.imported", subject: "2", portfolio: "main"))
        #expect(await changes.next() == PortfolioChange(reason: "trades.imported", subject: "2", portfolio: "Pension"))
    }

    /// An export holds one portfolio's activities; imported into an empty portfolio it gives them again.
    @Test func exportIsPerPortfolio() async throws {
        let portfolio = try await TwoPortfolios()
        let client = portfolio.client
        _ = try await trade(portfolio)
        let pension = try await client.exportActivities(ExportActivitiesRequest(format: .csv, portfolio: "Pension"))
        #expect(pension.activities == 2)
        let lines = pension.content.split(separator: "\n").dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false)[1] }
        #expect(lines == ["BTC", "ETH"])
        let main = try await client.exportActivities(ExportActivitiesRequest(format: .json))
        #expect(main.activities == 2 && main.content.contains("\"SELL\"") && !main.content.contains("\"ETH\""))

        let copy = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: pension.content, dryRun: false, portfolio: "Copy"))
        #expect(copy.written && copy.new == 2)
        let copied = try await client.trades(TradesRequest(portfolio: "Copy"))
        let original = try await client.trades(TradesRequest(portfolio: "Pension"))
        #expect(copied.map(\.asset) == original.map(\.asset) && copied.map(\.amount) == original.map(\.amount) && copied.map(\.date) == original.map(\.date))
    }

    /// A trade stored or sent before there were several portfolios (no `portfolio`) is main's; one of another keeps its name.
    @Test func oldTradesAreMains() throws {
        let old = #"{"id":"t-1","asset":"BTC","amount":"1","price":"2","currency":"USD","date":"2025-01-15T00:00:00.000Z","recordedAt":"2025-01-15T00:00:01.000Z"}"#
        let trade = try Wire.decode(Trade.self, from: Data(old.utf8))
        #expect(trade.portfolio == "main" && trade.kind == .buy)
        var pension = trade
        pension.portfolio = "Pension"
        let json = try Wire.encode(pension)
        #expect(String(decoding: json, as: UTF8.self).contains(#""portfolio":"Pension""#))
        #expect(try Wire.decode(Trade.self, from: json) == pension)
        let request = try Wire.decode(AddTradeRequest.self, from: Data(
            #"{"asset":"BTC","amount":"1","price":"2","currency":"USD","date":"2025-01-15T00:00:00.000Z","requestId":"r"}"#.utf8))
        #expect(request.portfolio == nil)
        let change = try Wire.decode(PortfolioChange.self, from: Data(#"{"reason":"watchlist.added","subject":"BTC"}"#.utf8))
        #expect(change.portfolio == nil)
        #expect(!String(decoding: try Wire.encode(change), as: UTF8.self).contains("portfolio"))
    }

    /// Names are trimmed and checked; the list has main first (even without activities), then every name in order.
    @Test func namesAndTheList() throws {
        #expect(try PortfolioNames.validate(nil) == "main")
        #expect(try PortfolioNames.validate("  Roth IRA_2.0-b  ") == "Roth IRA_2.0-b")
        #expect(try PortfolioNames.validate("Sparkonto Å") == "Sparkonto Å")
        #expect(try PortfolioNames.validate(String(repeating: "x", count: 40)).count == 40)
        #expect(throws: RPCError.self) { try PortfolioNames.validate("a\u{0}b") }
        let list = PortfolioNames.list(try [
            activity("1", .buy, "BTC", "1", day: 1), activity("2", .buy, "BTC", "1", day: 2),
        ].enumerated().map { index, trade in
            var trade = trade
            trade.portfolio = ["zeta", "Alpha"][index]
            return trade
        })
        #expect(list == PortfolioList(portfolios: [PortfolioSummary(name: "main", activities: 0), PortfolioSummary(name: "Alpha", activities: 1),
                                                   PortfolioSummary(name: "zeta", activities: 1)]))
    }

    /// The ledger keeps what each portfolio holds of an asset apart.
    @Test func theLedgerGroupsByPortfolioAndAsset() throws {
        var buy = try activity("b", .buy, "BTC", "1", at: "1", day: 1)
        buy.portfolio = "A"
        var sell = try activity("s", .sell, "BTC", "1", at: "1", day: 2)
        sell.portfolio = "B"
        let overdraft = try #require(try ActivityLedger.firstOverdraft(in: [buy, sell]))
        #expect(overdraft.trade.id == "s" && overdraft.held == 0)
        sell.portfolio = "A"
        #expect(try ActivityLedger.firstOverdraft(in: [buy, sell]) == nil)
    }

    /// A store keeps each activity's portfolio (main when the request names none), an edit without one keeps it, with
    /// one moves it; a file store gives them back reopened.
    @Test(arguments: StoreKind.allCases) func storesKeepThePortfolio(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        var request = try tradeRequest("BTC", amount: "1", price: "10", requestId: "r1")
        #expect(try await store.add(request, "t1", now).portfolio == "main")
        request.requestId = "r2"
        request.portfolio = "Pension"
        #expect(try await store.add(request, "t2", now).portfolio == "Pension")
        let imported = try await store.addTrades([(request: AddTradeRequest(asset: "ETH", amount: 1, price: 1, currency: "USD", date: now,
                                                                            requestId: "r3", portfolio: "Savings"), id: "t3")], now, "tester") { _ in }
        #expect(imported.map(\.value.portfolio) == ["Savings"])
        var edit = try tradeRequest("BTC", amount: "2", price: "10", requestId: "e1")
        #expect(try await store.editTrade(EditTradeRequest(id: "t2", activity: edit), now, "tester") { _ in }.value.portfolio == "Pension")
        edit.requestId = "e2"
        edit.portfolio = "Savings"
        #expect(try await store.editTrade(EditTradeRequest(id: "t2", activity: edit), now, "tester") { _ in }.value.portfolio == "Savings")
        #expect(try await store.trades().map(\.portfolio) == ["main", "Savings", "Savings"])
        if let path {
            let reopened = try PortfolioStore.live(path: path)
            #expect(try await reopened.trades().map(\.portfolio) == ["main", "Savings", "Savings"])
            #expect(try await reopened.tradeHistory("t2").map { $0.after?.portfolio } == ["Pension", "Pension", "Savings"])
        }
    }

    /// A database of one portfolio (schema v3: activities and their history) opens migrated: every activity is main's,
    /// an old request id still answers, and activities of another portfolio are stored and checked apart.
    @Test func migratesADatabaseOfOnePortfolio() async throws {
        let (path, old) = try oldDatabase(upTo: "v3: activities (kind, fee) and their audit history")
        defer { removeStore(at: path) }
        try await old.write { db in
            try db.execute(sql: """
                INSERT INTO trade (id, asset, amount, price, currency, date, recorded_at, kind, fee_amount, fee_currency)
                    VALUES ('t-1', 'BTC', '2', '100', 'USD', '2025-01-15T00:00:00.000Z', '2025-01-15T00:00:01.000Z', 'buy', '1', 'USD');
                INSERT INTO trade (id, asset, amount, price, currency, date, recorded_at, kind)
                    VALUES ('t-2', 'BTC', '1', '150', 'USD', '2025-02-01T00:00:00.000Z', '2025-02-01T00:00:01.000Z', 'sell');
                INSERT INTO request (id, trade_id, trade, action) VALUES ('old-v3', 't-2',
                    '{"id":"t-2","kind":"sell","asset":"BTC","amount":"1","price":"150","currency":"USD","date":"2025-02-01T00:00:00.000Z","recordedAt":"2025-02-01T00:00:01.000Z"}', 'add');
                INSERT INTO trade_revision (trade_id, action, by, at, request_id, before, after) VALUES ('t-2', 'added', 'alice',
                    '2025-02-01T00:00:01.000Z', 'old-v3', NULL,
                    '{"id":"t-2","kind":"sell","asset":"BTC","amount":"1","price":"150","currency":"USD","date":"2025-02-01T00:00:00.000Z","recordedAt":"2025-02-01T00:00:01.000Z"}');
                """)
        }
        try old.close()

        let store = try PortfolioStore.live(path: path)
        let trades = try await store.trades()
        #expect(trades.map(\.id) == ["t-1", "t-2"] && trades.map(\.portfolio) == ["main", "main"])
        #expect(trades[0].fee == CurrencyAmount(amount: 1, currency: "USD") && trades[1].kind == .sell)
        #expect(try await store.add(try tradeRequest("BTC", amount: "9", price: "1", requestId: "old-v3"), "new", now) == trades[1])
        #expect(try await store.tradeHistory("t-2").first?.after?.portfolio == "main")

        let sell = AddTradeRequest(kind: .sell, asset: "BTC", amount: 1, price: 200, currency: "USD", date: now, requestId: "r-sell", portfolio: "Pension")
        await #expect(throws: RPCError.self, "main's BTC is not Pension's") {
            try await store.addTrade(sell, "s-1", now, "tester") { try ActivityLedger.check($0, changed: "s-1") }
        }
        let pensionBuy = AddTradeRequest(asset: "BTC", amount: 1, price: 120, currency: "USD", date: now.addingTimeInterval(-60), requestId: "r-buy",
                                         portfolio: "Pension")
        _ = try await store.addTrade(pensionBuy, "b-1", now, "tester") { try ActivityLedger.check($0, changed: "b-1") }
        #expect(try await store.addTrade(sell, "s-1", now, "tester") { try ActivityLedger.check($0, changed: "s-1") }.portfolio == "Pension")
        let reopened = try PortfolioStore.live(path: path)
        #expect(try await reopened.trades().map(\.portfolio) == ["main", "main", "Pension", "Pension"])
        let indexes = try await DatabaseQueue(path: path).read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'trade' ORDER BY name")
        }
        #expect(indexes.contains("trade_by_portfolio"))
    }
}
