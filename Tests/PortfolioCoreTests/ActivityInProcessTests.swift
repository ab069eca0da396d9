import Bus
import BusContract
import Foundation
import Logging
import Money
@testable import PortfolioCore
import PortfolioEngine
import Testing
import TickwireClients
import TickwireMocks
import TickwireContract

@Suite("Portfolio activities and gains in process, over a mock converter")
struct ActivityInProcessTests {
    /// Ten days ago, in whole seconds (as the wire's milliseconds keep it).
    private let day = Date(timeIntervalSince1970: (Date().timeIntervalSince1970 - 10 * 86_400).rounded())

    private func on(_ days: Int) -> Date { day.addingTimeInterval(Double(days) * 86_400) }

    /// Buys with fees, a sell with a fee and a fee activity go over the wire, each announced; gains by FIFO (the
    /// default) and by average cost are the figures worked by hand in USD, and in SEK those of the converter's amounts.
    @Test func gainsOverTheWire() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        let converter = ConverterClient.mock(fetcher: fetcher)
        let portfolio = try await InProcessPortfolio(converter: converter, fetcher: fetcher)
        defer { portfolio.stop() }
        let client = portfolio.client
        let usd = { (amount: ExactDecimal) in CurrencyAmount(amount: amount, currency: "USD") }
        let added = [
            try await client.addTrade(AddTradeRequest(asset: "BTC", amount: 2, price: 30_000, currency: "USD", fee: usd(10), date: on(0), requestId: "b1")),
            try await client.addTrade(AddTradeRequest(asset: "BTC", amount: 1, price: 36_000, currency: "USD", date: on(1), requestId: "b2")),
            try await client.addTrade(AddTradeRequest(kind: .sell, asset: "BTC", amount: try dec("0.5"), price: 40_000, currency: "USD",
                                                      fee: usd(5), date: on(2), requestId: "s1")),
            try await client.addTrade(AddTradeRequest(kind: .fee, asset: "BTC", amount: 0, price: 0, currency: "USD", fee: usd(1), date: on(3), requestId: "f1")),
        ]
        #expect(added.map(\.kind) == [.buy, .buy, .sell, .fee])
        var changes = portfolio.changes.makeAsyncIterator()
        for trade in added { #expect(await changes.next() == PortfolioChange(reason: "trade.added", subject: trade.id, portfolio: "main")) }

        let fifo = try #require(try await client.gains(GainsRequest(currency: "USD")).assets.first)
        #expect(fifo.quantity == (try dec("2.5")))
        #expect(fifo.realizedGain?.description == "4991.50")    // 19995.00 − 60010.00 / 4 − 1.00
        #expect(fifo.costBasis?.description == "81007.50")      // 45007.50 + 36000.00
        #expect(fifo.fees?.description == "16.00")
        let average = try await client.gains(GainsRequest(currency: "USD", method: .average))
        #expect(average.method == .average)
        #expect(average.assets.first?.realizedGain?.description == "3992.33")   // 19995.00 − 96010.00 / 6 (16001.67) − 1.00
        #expect(average.assets.first?.costBasis?.description == "80008.33")

        let sek = try await client.gains(GainsRequest(currency: "SEK"))
        func inSEK(_ amount: ExactDecimal) async throws -> ExactDecimal {
            try #require(try await converter.total(TotalRequest(items: [usd(amount)], to: "SEK")).items.first).converted
        }
        let lot = try await inSEK(60_000) + inSEK(10)
        let taken = try (lot * dec("0.5")).divided(by: 2, scale: 2)
        let realized = try await inSEK(20_000) - inSEK(5) - taken - inSEK(1)
        #expect(sek.currency == "SEK" && sek.warnings.filter { $0.contains("converted") }.isEmpty)
        #expect(sek.assets.first?.realizedGain == realized)
        #expect(sek.totalRealizedGain == realized)

        #expect(await poll { (try? await client.gains(GainsRequest(currency: "USD")))?.assets.first?.price != nil })
        let priced = try #require(try await client.gains(GainsRequest(currency: "USD")).assets.first)
        let value = try #require(priced.value)
        #expect(value == (try (priced.quantity * #require(priced.price)).rescaled(to: 2)))
        #expect(priced.unrealizedGain == (try value - dec("81007.50")))
        let holdings = try await client.holdings(HoldingsRequest(currency: "USD"))
        #expect(holdings.holdings.first?.amount == (try dec("2.5")) && holdings.holdings.first?.cost?.description == "81007.50")
    }

    /// An edit and a removal are announced once and kept in the history with who made them; a retried edit or removal
    /// answers its first result and acts (and announces) nothing.
    @Test func editsAndRemovalsAreAudited() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        let portfolio = try await InProcessPortfolio(converter: .mock(fetcher: fetcher), fetcher: fetcher)
        defer { portfolio.stop() }
        let client = portfolio.client
        let buy = try await client.addTrade(AddTradeRequest(asset: "ETH", amount: 1, price: 2000, currency: "USD", date: on(0), requestId: "a"))
        let edit = EditTradeRequest(id: buy.id, activity: AddTradeRequest(
            asset: "ETH", amount: 3, price: 1900, currency: "USD", date: on(1), requestId: "e", by: "alice"))
        let edited = try await client.editTrade(edit)
        #expect(try await client.editTrade(edit) == edited)
        #expect(edited.amount == 3 && edited.date == on(1) && edited.id == buy.id)
        #expect(try await client.removeTrade(RemoveTradeRequest(id: buy.id, requestId: "r", by: "bob")))
        #expect(try await client.removeTrade(RemoveTradeRequest(id: buy.id, requestId: "r", by: "bob")), "a retried removal answers true")
        await #expect(throws: RPCError.notFound("no trade with id \(buy.id)")) { try await client.removeTrade(RemoveTradeRequest(id: buy.id)) }

        var changes = portfolio.changes.makeAsyncIterator()
        #expect(await changes.next()?.reason == "trade.added")
        #expect(await changes.next() == PortfolioChange(reason: "trade.edited", subject: buy.id, portfolio: "main"))
        #expect(await changes.next() == PortfolioChange(reason: "trade.removed", subject: buy.id, portfolio: "main"), "retries announce nothing")

        let history = try await client.tradeHistory(TradeHistoryRequest(id: buy.id))
        #expect(history.map(\.action) == [.added, .edited, .removed])
        #expect(history.map(\.by) == ["anonymous", "alice", "bob"])
        #expect(history[1].before == buy && history[1].after == edited && history[2].before == edited)
        #expect(try await client.tradeHistory(TradeHistoryRequest()).count == 3)
    }

    /// The refusals of the issue's bad input that apply to activities, each a -32602 naming what is wrong; the
    /// service keeps serving and nothing of a refused change is kept.
    @Test func badActivitiesAreRefused() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        let portfolio = try await InProcessPortfolio(converter: .failing, fetcher: fetcher)
        defer { portfolio.stop() }
        let client = portfolio.client
        let sellFirst = AddTradeRequest(kind: .sell, asset: "BTC", amount: 1, price: 100, currency: "USD", date: on(0), requestId: "s0")
        let early = await #expect(throws: RPCError.self) { try await client.addTrade(sellFirst) }
        #expect(early?.code == RPCError.Code.invalidParams)
        #expect(early?.message == "invalid params: cannot sell 1 BTC on \(Wire.format(on(0))): 0 BTC held then")
        #expect(early?.data?["asked"] == "1" && early?.data?["held"] == "0" && early?.data?["asset"] == "BTC")

        let buy = try await client.addTrade(AddTradeRequest(asset: "BTC", amount: 1, price: 100, currency: "USD", date: on(1), requestId: "b"))
        let sell = try await client.addTrade(AddTradeRequest(kind: .sell, asset: "BTC", amount: try dec("0.75"), price: 150, currency: "USD", date: on(3), requestId: "s"))
        let tooMuch = AddTradeRequest(kind: .transferOut, asset: "BTC", amount: try dec("0.5"), price: 0, currency: "USD", date: on(2), requestId: "o")
        let later = await #expect(throws: RPCError.self) { try await client.addTrade(tooMuch) }
        #expect(later?.message.contains("would leave the sell of 0.75 BTC on \(Wire.format(on(3))) (trade \(sell.id)) taking more than the 0.5 BTC held then") == true)

        let smaller = EditTradeRequest(id: buy.id, activity: AddTradeRequest(asset: "BTC", amount: try dec("0.5"), price: 100, currency: "USD", date: on(1), requestId: "e"))
        await #expect(throws: RPCError.self) { try await client.editTrade(smaller) }
        let removal = await #expect(throws: RPCError.self) { try await client.removeTrade(RemoveTradeRequest(id: buy.id)) }
        #expect(removal?.message.contains("(trade \(sell.id)) taking more than the 0 BTC held then") == true)

        let unknownFee = AddTradeRequest(kind: .fee, asset: "BTC", amount: 0, price: 0, currency: "XYZ",
                                         fee: CurrencyAmount(amount: 1, currency: "XYZ"), date: on(1), requestId: "f")
        await #expect(throws: RPCError.invalidParams("unknown fee currency XYZ: not an ISO 4217 currency, a metal or an asset the portfolio knows")) {
            try await client.addTrade(unknownFee)
        }
        var noFee = unknownFee
        noFee.fee = nil
        noFee.currency = "USD"
        await #expect(throws: RPCError.invalidParams("a fee activity needs a positive fee {amount, currency}, got none")) { try await client.addTrade(noFee) }
        var pricedOut = tooMuch
        pricedOut.price = 10
        await #expect(throws: RPCError.invalidParams("a transfer_out takes its cost from the lots it moves: leave price out, got 10")) {
            try await client.addTrade(pricedOut)
        }
        await #expect(throws: RPCError.notFound("no trade with id nope")) {
            try await client.editTrade(EditTradeRequest(id: "nope", activity: AddTradeRequest(asset: "BTC", amount: 1, price: 1, currency: "USD", date: on(1), requestId: "n")))
        }
        #expect(try await client.trades(TradesRequest()) == [buy, sell])
        #expect(try await client.tradeHistory(TradeHistoryRequest()).map(\.action) == [.added, .added])
    }

    /// An older client's `trades.add` (no kind, no fee, no portfolio) is a buy in `main`, and its answer is the JSON it knew
    /// plus `kind` and `portfolio`; a fee activity needs only its asset, fee, date and request id; a transfer in without a
    /// price costs nothing.
    @Test func olderClientsJSON() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        let portfolio = try await InProcessPortfolio(converter: .failing, fetcher: fetcher)
        defer { portfolio.stop() }
        let methods = Portfolio.methods(portfolio.state)
        func call(_ method: String, _ params: String) async throws -> [String: Any] {
            let body = await methods.handle(Data(#"{"jsonrpc":"2.0","id":1,"method":"\#(method)","params":\#(params)}"#.utf8))
            return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        }
        let old = try await call("trades.add", #"{"asset":"btc","amount":"0.50","price":"30000.00","currency":"USD","date":"2026-01-15T00:00:00.000Z","requestId":"old"}"#)
        let trade = try #require(old["result"] as? [String: Any])
        #expect(trade["kind"] as? String == "buy" && trade["amount"] as? String == "0.50" && trade["fee"] == nil)
        #expect(Set(trade.keys) == ["id", "portfolio", "kind", "asset", "amount", "price", "currency", "date", "recordedAt"])
        #expect(trade["portfolio"] as? String == "main")

        let fee = try await call("trades.add", #"{"kind":"fee","asset":"BTC","fee":{"amount":"2.5","currency":"EUR"},"date":"2026-01-16T00:00:00.000Z","requestId":"fee"}"#)
        let feeTrade = try #require(fee["result"] as? [String: Any])
        #expect(feeTrade["currency"] as? String == "EUR" && feeTrade["amount"] as? String == "0")
        let transfer = try await call("trades.add", #"{"kind":"transfer_in","asset":"ETH","amount":"1","currency":"USD","date":"2026-01-16T00:00:00.000Z","requestId":"in"}"#)
        #expect((transfer["result"] as? [String: Any])?["price"] as? String == "0")
        let bad = try await call("trades.add", #"{"kind":"dividend","asset":"BTC","amount":"1","price":"1","currency":"USD","date":"2026-01-16T00:00:00.000Z","requestId":"d"}"#)
        #expect((bad["error"] as? [String: Any])?["code"] as? Int == RPCError.Code.invalidParams)

        let decoded = try Wire.decode(Trade.self, from: Data(#"{"id":"t","asset":"BTC","amount":"1","price":"2","currency":"USD","date":"2026-01-15T00:00:00.000Z","recordedAt":"2026-01-15T00:00:00.000Z"}"#.utf8))
        #expect(decoded.kind == .buy && decoded.fee == nil)
    }

    /// `--cost-basis` and TICKWIRE_PORTFOLIO_COST_BASIS: FIFO by default, the flag before the variable, case aside;
    /// anything else is refused naming the flag, its variable and the methods.
    @Test func costBasisSetting() throws {
        #expect(try PortfolioConfiguration.costBasis(nil, environment: [:]) == .fifo)
        #expect(try PortfolioConfiguration.costBasis(nil, environment: ["TICKWIRE_PORTFOLIO_COST_BASIS": "AVERAGE"]) == .average)
        #expect(try PortfolioConfiguration.costBasis("fifo", environment: ["TICKWIRE_PORTFOLIO_COST_BASIS": "average"]) == .fifo)
        #expect(throws: CostBasisSettingError(message: "--cost-basis (env TICKWIRE_PORTFOLIO_COST_BASIS) must be one of fifo, average; got \"lifo\"")) {
            try PortfolioConfiguration.costBasis("lifo", environment: [:])
        }
    }

    /// Each currency is converted on its own: one the converter cannot convert leaves its asset's figures unknown
    /// with a warning naming it, and the others known.
    @Test func oneUnconvertibleCurrencyLeavesTheOthersKnown() async throws {
        let total: PortfolioState.Total = { request in
            guard request.items.allSatisfy({ $0.currency == "EUR" }) else { throw RPCError(code: RPCError.Code.noPath, message: "no rate path from GBP to USD") }
            return TotalResult(total: 0, currency: request.to, source: "ecb", items: try request.items.map {
                TotalResult.Item(amount: $0.amount, currency: $0.currency, converted: try ($0.amount * 2).rescaled(to: 2), path: [$0.currency, request.to])
            })
        }
        var logger = Logger(label: "portfolio-test")
        logger.logLevel = .critical
        let state = PortfolioState(store: .memory(), total: total, publish: { _ in }, logger: logger, now: { Date() }, costBasis: .average)
        let topic = try Topic(kind: "price", source: "BTC", key: "USD")
        await state.applyConverter(.snapshot(["BTC", "ETH"].map {
            StreamUpdate(topic: topic, seq: 1, time: Date(), source: "converter",
                         value: AssetPrice(asset: $0, currency: "USD", price: 10, changePercent24h: nil, path: [], quoteTime: nil))
        }))
        _ = try await state.addTrade(AddTradeRequest(asset: "BTC", amount: 1, price: 3, currency: "EUR", date: on(0), requestId: "e"))
        _ = try await state.addTrade(AddTradeRequest(asset: "ETH", amount: 1, price: 3, currency: "GBP", date: on(0), requestId: "g"))
        let gains = try await state.gains(GainsRequest(currency: "USD"))
        #expect(gains.method == .average, "the state's method when the request names none")
        #expect(gains.assets.map(\.costBasis) == [try dec("6.00"), nil])
        #expect(gains.assets.map(\.unrealizedGain) == [try dec("4.00"), nil])
        #expect(gains.warnings.first?.hasPrefix("amounts in GBP could not be converted to USD: ") == true)
        #expect(gains.warnings.last == "the amounts of ETH in GBP could not be converted to USD: its cost basis, gains and fees are unknown")
    }
}
