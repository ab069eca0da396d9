import Bus
import BusContract
import Foundation
import Money
@testable import PortfolioCore
@testable import PortfolioEngine
import Testing
import TickwireClients
import TickwireMocks
import TickwireContract

@Suite("activities.import and activities.export in process, over a mock converter")
struct ActivityImportInProcessTests {
    static let header = "Date,Code,Currency,Price,Quantity,Action,Fee,FeeCurrency\n"

    /// A portfolio on `store` over the mock feeds and converter.
    func portfolio(_ store: PortfolioStore = .memory()) async throws -> InProcessPortfolio {
        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        return try await InProcessPortfolio(store: store, converter: .mock(fetcher: fetcher), fetcher: fetcher)
    }

    /// A preview writes nothing; the import adds every line once, in one change, with who imported it; the same file
    /// again adds nothing (every line a duplicate).
    @Test(arguments: StoreKind.allCases) func previewImportAndReimport(kind: StoreKind) async throws {
        let (store, path) = try makeStore(kind)
        defer { removeStore(at: path) }
        let portfolio = try await portfolio(store)
        defer { portfolio.stop() }
        let client = portfolio.client
        let file = Self.header + """
            2024-01-02,BTC,USD,30000,2,buy,10,
            2024-02-01T12:00:00.500Z,BTC,USD,40000,0.5,sell,4,EUR
            03.02.2024,ETH,SEK,0,0,fee,12,
            20240204,ETH,USD,1500,3,transfer_in,0,

            """
        let preview = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: file))
        #expect(preview.dryRun && !preview.written && preview.new == 4 && preview.duplicates == 0 && preview.errors == 0)
        #expect(preview.lines.map(\.line) == [2, 3, 4, 5] && preview.lines.allSatisfy { $0.status == .new })
        #expect(preview.lines[1].activity?.fee == CurrencyAmount(amount: 4, currency: "EUR"))
        #expect(try await client.trades(TradesRequest()).isEmpty, "a preview writes nothing")

        let imported = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false, by: "importer"))
        #expect(imported.written && imported.new == 4 && !imported.dryRun)
        let trades = try await client.trades(TradesRequest())
        #expect(trades.map(\.kind) == [.buy, .sell, .fee, .transferIn])
        #expect(trades.map(\.amount) == [2, try dec("0.5"), 0, 3])
        var changes = portfolio.changes.makeAsyncIterator()
        #expect(await changes.next() == PortfolioChange(reason: "trades.imported", subject: "4", portfolio: "main"))
        let history = try await client.tradeHistory(TradeHistoryRequest())
        #expect(history.map(\.by) == Array(repeating: "importer", count: 4) && history.map(\.action) == Array(repeating: .added, count: 4))
        #expect(Set(history.compactMap(\.requestId)) == Set(preview.lines.compactMap(\.activity?.requestId)))

        let again = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false))
        #expect(!again.written && again.new == 0 && again.duplicates == 4 && again.lines.allSatisfy { $0.status == .duplicate })
        #expect(try await client.trades(TradesRequest()) == trades, "the same file twice adds nothing")
        let gains = try await client.gains(GainsRequest(currency: "USD"))
        #expect(gains.assets.map(\.quantity) == [try dec("1.5"), 3])
    }

    /// A sell before any buy is named on its line, counting the stored activities and the file's earlier lines; a line
    /// with an error writes nothing of the file, even its good lines, and the service keeps serving.
    @Test func sellsAreCheckedAgainstStoreAndFile() async throws {
        let portfolio = try await portfolio()
        defer { portfolio.stop() }
        let client = portfolio.client
        let sell = Self.header + "2024-03-01,BTC,USD,100,1,sell,0,\n"
        let early = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: sell, dryRun: false))
        #expect(!early.written && early.errors == 1 && early.new == 0)
        #expect(early.lines.first?.errors == [ImportLineError(line: 2, column: "Quantity", reason:
            "cannot sell 1 BTC on 2024-03-01T00:00:00.000Z: 0 BTC held then (stored activities and earlier lines)")])

        let laterBuy = Self.header + "2024-03-01,BTC,USD,100,1,sell,0,\n2024-03-02,BTC,USD,90,1,buy,0,\n2024-03-03,ETH,USD,10,1,buy,0,\n"
        let mixed = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: laterBuy, dryRun: false))
        #expect(!mixed.written && mixed.errors == 1 && mixed.new == 2 && mixed.lines.map(\.status) == [.error, .new, .new])
        #expect(try await client.trades(TradesRequest()).isEmpty, "nothing is half-imported")

        let bad = Self.header + "2024-03-03,ETH,USD,10,1,buy,0,\n2024-03-04,DOGE,USD,1,1,buy,0,\n"
        let refused = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: bad, dryRun: false))
        #expect(!refused.written && refused.lines[1].errors.map(\.column) == ["Code"])
        #expect(try await client.trades(TradesRequest()).isEmpty)

        let stored = try await client.addTrade(AddTradeRequest(asset: "BTC", amount: 1, price: 80, currency: "USD",
                                                               date: try moment("2024-02-01"), requestId: "stored-buy"))
        let afterBuy = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: sell, dryRun: false))
        #expect(afterBuy.written && afterBuy.new == 1)

        _ = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: Self.header + "2024-04-01,ETH,USD,10,1,buy,0,\n", dryRun: false))
        let storedSell = try await client.addTrade(AddTradeRequest(kind: .sell, asset: "ETH", amount: 1, price: 20, currency: "USD",
                                                                   date: try moment("2024-05-01"), requestId: "stored-sell"))
        let outBefore = Self.header + "2024-04-15,ETH,USD,0,1,transfer_out,0,\n"
        let squeezed = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: outBefore, dryRun: false))
        #expect(!squeezed.written && squeezed.errors == 0 && squeezed.fileErrors == [ImportLineError(line: 0, column: nil, reason:
            "the file's activities would leave the stored sell of 1 ETH on 2024-05-01T00:00:00.000Z (trade \(storedSell.id)) taking more than the 0 ETH held then")])
        let all = try await client.trades(TradesRequest())
        #expect(all.count == 4 && all.contains(stored))

        let sameDay = Self.header + (1...20).map { _ in "2024-06-01,BTC,USD,100,1,buy,0,\n2024-06-01,BTC,USD,110,1,sell,0,\n" }.joined()
        let ordered = try await client.importActivities(ImportActivitiesRequest(format: .csv, content: sameDay, dryRun: false))
        #expect(ordered.written && ordered.new == 40, "activities of one moment keep the file's order")
        #expect(try await client.trades(TradesRequest()).suffix(40).map(\.kind) == Array(repeating: [ActivityKind.buy, .sell], count: 20).flatMap { $0 })
    }

    /// Export and import into an empty portfolio give the same activities, in CSV and in JSON; the JSON of the same
    /// activities imported after the CSV adds nothing.
    @Test func exportThenImportGivesTheSameActivities() async throws {
        let source = try await portfolio()
        defer { source.stop() }
        let client = source.client
        let requests = [
            AddTradeRequest(asset: "BTC", amount: try dec("1.25"), price: try dec("30000.5"), currency: "USD",
                            fee: CurrencyAmount(amount: try dec("2.5"), currency: "EUR"), date: try moment("2024-01-02T09:30:00.125Z"), requestId: "1"),
            AddTradeRequest(kind: .sell, asset: "BTC", amount: try dec("0.25"), price: 41_000, currency: "USD",
                            fee: CurrencyAmount(amount: 3, currency: "USD"), date: try moment("2024-02-01"), requestId: "2"),
            AddTradeRequest(kind: .fee, asset: "ETH", amount: 0, price: 0, currency: "SEK", fee: CurrencyAmount(amount: 12, currency: "SEK"),
                            date: try moment("2024-02-02"), requestId: "3"),
            AddTradeRequest(kind: .transferIn, asset: "ETH", amount: 3, price: 1500, currency: "USD", date: try moment("2024-02-03"), requestId: "4"),
            AddTradeRequest(kind: .transferOut, asset: "ETH", amount: 1, price: 0, currency: "USD", date: try moment("2024-02-04"), requestId: "5"),
        ]
        for request in requests { _ = try await client.addTrade(request) }
        /// What an activity is, apart from its id and when it was recorded.
        func fields(_ trades: [Trade]) -> [String] {
            trades.map { "\($0.kind) \($0.asset) \($0.amount) \($0.price) \($0.currency) \($0.fee?.description ?? "-") \($0.date.timeIntervalSince1970)" }
        }
        let original = try await client.trades(TradesRequest())
        for format in ActivityFileFormat.allCases {
            let export = try await client.exportActivities(ExportActivitiesRequest(format: format))
            #expect(export.format == format && export.activities == 5)
            let target = try await portfolio()
            defer { target.stop() }
            let imported = try await target.client.importActivities(ImportActivitiesRequest(format: format, content: export.content, dryRun: false))
            #expect(imported.written && imported.new == 5, "\(format): \(imported.lines.flatMap(\.errors)) \(imported.fileErrors)")
            let copy = try await target.client.trades(TradesRequest())
            #expect(copy == original.enumerated().map { index, trade in
                var trade = trade
                trade.id = copy[index].id
                trade.recordedAt = copy[index].recordedAt
                return trade
            }, "\(format)")
            #expect(fields(copy) == fields(original))
            let other = try await client.exportActivities(ExportActivitiesRequest(format: format == .csv ? .json : .csv))
            let twice = try await target.client.importActivities(ImportActivitiesRequest(format: other.format, content: other.content, dryRun: false))
            #expect(twice.duplicates == 5 && twice.new == 0 && !twice.written)
        }
    }

    /// A file bigger than the wire's largest string (1 MiB) is refused with a clear error over JSON-RPC, and the
    /// service keeps serving; the same content imports in process.
    @Test func theWireLimitIsAClearError() async throws {
        let portfolio = try await portfolio()
        defer { portfolio.stop() }
        let line = "2024-01-01,BTC,USD,100,1,buy,0,\n"
        let big = Self.header + String(repeating: line, count: 40_000)
        #expect(big.utf8.count > 1 << 20)
        let error = await #expect(throws: RPCError.self) {
            try await portfolio.client.importActivities(ImportActivitiesRequest(format: .csv, content: big))
        }
        #expect(error?.code == RPCError.Code.parseError && error?.message.contains("1048576") == true, "\(error?.message ?? "")")
        #expect(try await portfolio.client.trades(TradesRequest()).isEmpty)
        let preview = try await portfolio.state.importActivities(ImportActivitiesRequest(format: .csv, content: big))
        #expect(preview.new == 40_000 && preview.errors == 0)
    }

    /// 100,000 lines (two assets, buys and sells, a day apart), the most a file may have: previewed whole, then
    /// imported all at once into an in-memory store (how fast each goes is a benchmark's business, not a test's).
    @Test func aHundredThousandLinesImport() async throws {
        let (store, path) = try makeStore(.inMemory)
        defer { removeStore(at: path) }
        let portfolio = try await portfolio(store)
        defer { portfolio.stop() }
        var text = Self.header
        let start = try moment("1880-01-01")
        for index in 0..<ActivityImport.maxLines {
            let date = ActivityExport.format(start.addingTimeInterval(Double(index / 2) * 86_400))
            let asset = index % 2 == 0 ? "BTC" : "ETH"
            let action = index % 4 < 2 ? "buy" : "sell"
            text += "\(date),\(asset),USD,\(100 + index % 97).\(index % 10),1,\(action),0,\n"
        }
        let preview = try await portfolio.state.importActivities(ImportActivitiesRequest(format: .csv, content: text))
        #expect(preview.new == ActivityImport.maxLines && preview.errors == 0)
        let imported = try await portfolio.state.importActivities(ImportActivitiesRequest(format: .csv, content: text, dryRun: false))
        #expect(imported.written == true && imported.new == ActivityImport.maxLines)
        #expect(try await portfolio.client.trades(TradesRequest()).count == ActivityImport.maxLines)
    }
}
