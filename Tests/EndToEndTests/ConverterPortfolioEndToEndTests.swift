import Bus
import ChildProcesses
import Foundation
import Market
import TickwireContract
import Money
import Testing
import ZeroMQ
import BusContract

/// rates-fetcher (test feeds, or a replay), converter and portfolio as real processes, driven over ZeroMQ.
final class ThreeServices: Stoppable, @unchecked Sendable {
    let endpoints: Endpoints
    let fetcher: ServiceProcess
    let converter: ServiceProcess
    let portfolio: ServiceProcess
    let context: ZMQContext
    let converterRPC: RPCClient
    let portfolioRPC: RPCClient
    /// The replay feeding the stack, if it is fed by one.
    let replayed: ReplayStack?

    /// The stack on rates-fetcher's test feeds.
    convenience init() async throws {
        let endpoints = try Endpoints()
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "test"], in: endpoints.directory)
        let converter = try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory)
        let context = try ZMQContext()
        let converterRPC = try client(context, endpoints.converterRep)
        try await waitUntilHealthy(converterRPC, converter)
        try await self.init(endpoints, fetcher, converter, context, converterRPC, replayed: nil)
    }

    /// The stack fed by `capture` (``ReplayStack``), played to its end before this returns; masterdata and GNB come
    /// from rates-fetcher's test feeds: the capture has no assets, wallets or GNB transactions.
    convenience init(replaying capture: CaptureFile) async throws {
        let stack = try await ReplayStack(capture: capture, testFeeds: ["masterdata", "gnb"])
        try await self.init(stack.endpoints, stack.fetcher, try #require(stack.converter), stack.context, try #require(stack.converterRPC), replayed: stack)
        try await stack.playAndHold()
    }

    private init(
        _ endpoints: Endpoints, _ fetcher: ServiceProcess, _ converter: ServiceProcess, _ context: ZMQContext, _ converterRPC: RPCClient,
        replayed: ReplayStack?
    ) async throws {
        (self.endpoints, self.fetcher, self.converter, self.context, self.converterRPC, self.replayed) = (endpoints, fetcher, converter, context, converterRPC, replayed)
        portfolio = try await ServiceProcess("portfolio", endpoints.portfolioArguments, in: endpoints.directory)
        portfolioRPC = try client(context, endpoints.portfolioRep)
        try await waitUntilHealthy(portfolioRPC, portfolio)
        // The converter publishes prices a moment after it has rates.
        _ = await eventually {
            let valuation = try? await self.portfolioRPC.call("holdings", params: HoldingsRequest(currency: "USD"), as: Valuation.self)
            return valuation != nil
        }
    }

    func stop() async {
        await portfolioRPC.close()
        await portfolio.stop()
        if let replayed {
            await replayed.stop()
            return
        }
        await converterRPC.close()
        for service in [converter, fetcher] { await service.stop() }
    }
}

@Suite("converter and portfolio end to end", .serialized)
struct ConverterPortfolioEndToEndTests {
    /// convert, total and rates over ZeroMQ, with the GNB rule and errors naming the missing pair.
    @Test func conversions() async throws {
        try await ThreeServices().use { stack in
            let rpc = stack.converterRPC
            let total = try await rpc.call("total", params: TotalRequest(items: [
                CurrencyAmount(amount: try ExactDecimal("10.00"), currency: "USD"),
                CurrencyAmount(amount: try ExactDecimal("7.63"), currency: "EUR"),
            ], to: "EUR", source: "gnb"), as: TotalResult.self)
            #expect(total.total == (try ExactDecimal("14.99")))
            #expect(total.items.map(\.converted) == [try ExactDecimal("7.36"), try ExactDecimal("7.63")])

            let cad = try await rpc.call("convert", params: ConvertRequest(amount: try ExactDecimal("10"), from: "USD", to: "CAD", source: "gnb"), as: ConvertResult.self)
            #expect(cad.path == ["USD", "EUR", "CAD"])
            // 10 × 0.736 × 1.366 = 10.05376 → 10.05
            #expect(cad.amount == (try ExactDecimal("10.05")))
            #expect(cad.rate == (try ExactDecimal("1.005376")))

            let ecb = try await rpc.call("convert", params: ConvertRequest(amount: try ExactDecimal("100"), from: "USD", to: "SEK"), as: ConvertResult.self)
            #expect(ecb.source == "ecb")
            #expect(ecb.amount == (try ExactDecimal("932.95")), "100 × 9.3295 in the recorded ECB rates")

            let rates = try await rpc.call("rates", params: RatesRequest(base: "CAD", source: "gnb"), as: RatesResult.self)
            #expect(rates.rates.map(\.currency) == ["EUR", "USD"])

            let missing = await #expect(throws: RPCError.self) {
                try await rpc.call("convert", params: ConvertRequest(amount: 1, from: "USD", to: "AUD", source: "gnb"), as: ConvertResult.self)
            }
            #expect(missing?.message.contains("AUD") == true)
            #expect(missing?.code == -32010)
        }
    }

    /// Every converter method rejects bad input with a JSON-RPC error; the service keeps serving.
    @Test func converterBadInputs() async throws {
        try await ThreeServices().use { stack in
            let raw = try OwnedSocket(context: stack.context, type: .req, name: "raw") { try $0.connect(stack.endpoints.converterRep) }
            func send(_ json: String) async throws -> (code: Int?, message: String) {
                try raw.send([Data(json.utf8)])
                var iterator = raw.incoming.makeAsyncIterator()
                let reply = try #require(await iterator.next())
                let object = try #require(try JSONSerialization.jsonObject(with: reply[0]) as? [String: Any])
                let error = object["error"] as? [String: Any]
                return (error?["code"] as? Int, error?["message"] as? String ?? "")
            }
            let cases: [(String, Int)] = [
                ("{broken", -32700),
                (#"{"jsonrpc":"2.0","id":1,"method":"convert","params":{"amount":"NaN","from":"USD","to":"EUR"}}"#, -32602),
                (#"{"jsonrpc":"2.0","id":1,"method":"convert","params":{"amount":"","from":"USD","to":"EUR"}}"#, -32602),
                (#"{"jsonrpc":"2.0","id":1,"method":"convert","params":{"amount":"1234567890123456789012345678901234567890","from":"USD","to":"EUR"}}"#, -32602),
                (#"{"jsonrpc":"2.0","id":1,"method":"convert","params":{"amount":"1","from":"USD","to":"XYZ"}}"#, -32010),
                (#"{"jsonrpc":"2.0","id":1,"method":"convert","params":{"amount":"1","from":"US D","to":"EUR"}}"#, -32602),
                (#"{"jsonrpc":"2.0","id":1,"method":"convert","params":{"amount":"1","from":"USD","to":"EUR","source":"nope"}}"#, -32013),
                (#"{"jsonrpc":"2.0","id":1,"method":"total","params":{"items":[{"amount":"x","currency":"USD"}],"to":"EUR"}}"#, -32602),
                (#"{"jsonrpc":"2.0","id":1,"method":"total","params":{"items":"none","to":"EUR"}}"#, -32602),
                (#"{"jsonrpc":"2.0","id":1,"method":"rates","params":{"base":"XYZ"}}"#, -32010),
                (#"{"jsonrpc":"2.0","id":1,"method":"rates","params":{}}"#, -32602),
            ]
            for (request, code) in cases {
                let reply = try await send(request)
                #expect(reply.code == code, "\(request) -> \(reply)")
                #expect(!reply.message.isEmpty)
            }
            let ok = try await stack.converterRPC.call("convert", params: ConvertRequest(amount: 1, from: "EUR", to: "USD", source: "gnb"), as: ConvertResult.self)
            #expect(ok.amount == (try ExactDecimal("1.36")))
            await raw.close()
        }
    }

    /// Products, trades, holdings in USD and SEK, a sell with a fee in EUR and its gains, the history, wallets, the
    /// watch list; a trade survives kill -9. The prices come from the shipped capture played to its end: BTC is valued
    /// at exactly the capture's last CoinGecko BTC-USD quote (the only feed quoting that pair), and in SEK through the
    /// capture's last ECB rate of USD-SEK.
    @Test func portfolioRoundTripAndDurability() async throws {
        let capture = try CaptureFile()
        try await ThreeServices(replaying: capture).use { stack in
            let btcUSD = try capture.last("quote.coingecko.BTC-USD", as: Quote.self).last
            let usdSEK = try capture.last("rate.ecb.USD-SEK", as: ExchangeRate.self).rate
            let btcSEK = try (btcUSD * usdSEK).rounded(scale: 8)
            let replayed = try #require(stack.replayed)
            try await replayed.waitForPrice("BTC", in: "SEK", toBe: btcSEK)
            let rpc = stack.portfolioRPC

            // GNB's transactions reach the portfolio with rates-fetcher's snapshot, which may follow the first prices.
            #expect(await eventually { (try? await rpc.call("products", as: [ProductSummary].self))?.isEmpty == false })
            let products = try await rpc.call("products", as: [ProductSummary].self)
            #expect(products.first { $0.sku == "T2006" }?.transactions == 2)
            let product = try await rpc.call("product", params: ProductRequest(sku: "T2006"), as: ProductDetail.self)
            #expect(product.total == (try ExactDecimal("14.99")))
            #expect(product.currency == "EUR")

            let request = AddTradeRequest(asset: "BTC", amount: try ExactDecimal("0.25"), price: try ExactDecimal("60000"),
                                          currency: "USD", date: Date(timeIntervalSinceNow: -86_400), requestId: "e2e-1")
            let trade = try await rpc.call("trades.add", params: request, as: Trade.self)
            let retried = try await rpc.call("trades.add", params: request, as: Trade.self)
            #expect(retried == trade, "a retried request returns the first result")
            await stack.portfolio.kill9()
            try await stack.portfolio.restart()
            try await waitUntilHealthy(rpc, stack.portfolio)
            let trades = try await rpc.call("trades.list", as: [Trade].self)
            #expect(trades == [trade], "the acknowledged trade survives kill -9, recorded once")

            #expect(try await eventually {
                let usd = try await rpc.call("holdings", params: HoldingsRequest(currency: "USD"), as: Valuation.self)
                return usd.holdings.first?.value != nil
            })
            let usd = try await rpc.call("holdings", params: HoldingsRequest(currency: "USD"), as: Valuation.self)
            let holding = try #require(usd.holdings.first)
            #expect(holding.asset == "BTC")
            #expect(holding.cost == (try ExactDecimal("15000.00")))
            #expect(holding.price == btcUSD, "the capture's last BTC-USD quote")
            #expect(holding.value == (try (ExactDecimal("0.25") * btcUSD).rounded(scale: 2)))
            #expect(usd.totalValue == holding.value)
            let sek = try await rpc.call("holdings", params: HoldingsRequest(currency: "SEK"), as: Valuation.self)
            let sekHolding = try #require(sek.holdings.first)
            #expect(sek.currency == "SEK")
            #expect(sekHolding.price == btcSEK, "BTC-USD times the capture's last ECB USD-SEK rate")
            #expect(sekHolding.value == (try (ExactDecimal("0.25") * btcSEK).rounded(scale: 2)))
            #expect(sekHolding.cost != nil, "cost converted through the converter")

            let sell = AddTradeRequest(kind: .sell, asset: "BTC", amount: try ExactDecimal("0.05"), price: try ExactDecimal("70000"), currency: "USD",
                                       fee: CurrencyAmount(amount: try ExactDecimal("1.50"), currency: "EUR"), date: Date(timeIntervalSinceNow: -3_600),
                                       requestId: "e2e-sell", by: "e2e")
            let sold = try await rpc.call("trades.add", params: sell, as: Trade.self)
            #expect(sold.kind == .sell && sold.fee?.currency == "EUR")
            let gains = try await rpc.call("gains", params: GainsRequest(currency: "USD"), as: PortfolioGains.self)
            let btc = try #require(gains.assets.first)
            let fee = try await stack.converterRPC.call(
                "total", params: TotalRequest(items: [CurrencyAmount(amount: try ExactDecimal("1.50"), currency: "EUR")], to: "USD"), as: TotalResult.self)
            #expect(gains.method == .fifo)
            #expect(btc.quantity == (try ExactDecimal("0.2")))
            #expect(btc.costBasis == (try ExactDecimal("12000.00")))
            let realized = try ExactDecimal("500.00") - (try #require(fee.items.first)).converted
            #expect(btc.realizedGain == realized, "3500.00 less the fee in USD over 3000.00")
            let history = try await rpc.call("trades.history", params: TradeHistoryRequest(), as: [TradeRevision].self)
            #expect(history.map(\.action) == [.added, .added] && history.map(\.by) == ["anonymous", "e2e"])
            let refused = await #expect(throws: RPCError.self, "the sell needs the buy") {
                try await rpc.call("trades.remove", params: RemoveTradeRequest(id: trade.id), as: Bool.self)
            }
            #expect(refused?.code == RPCError.Code.invalidParams)

            let wallets = try await rpc.call("wallets", as: WalletGroups.self)
            for group in [wallets.fiat, wallets.crypto, wallets.commodity] {
                #expect(!group.isEmpty)
                #expect(zip(group, group.dropFirst()).allSatisfy { $0.balance >= $1.balance }, "sorted by balance, largest first")
            }
            #expect(wallets.crypto.contains { $0.isDefault })

            #expect(try await rpc.call("watchlist.add", params: WatchlistRequest(asset: "btc"), as: [String].self) == ["BTC"])
            #expect(try await rpc.call("watchlist.add", params: WatchlistRequest(asset: "ETH"), as: [String].self) == ["BTC", "ETH"])
            #expect(try await rpc.call("watchlist.remove", params: WatchlistRequest(asset: "BTC"), as: [String].self) == ["ETH"])
            #expect(try await rpc.call("trades.remove", params: RemoveTradeRequest(id: sold.id), as: Bool.self))
            #expect(try await rpc.call("trades.remove", params: RemoveTradeRequest(id: trade.id), as: Bool.self))
            #expect(try await rpc.call("trades.list", as: [Trade].self).isEmpty)
        }
    }

    /// Every portfolio method rejects bad input with a clear JSON-RPC error.
    @Test func portfolioBadInputs() async throws {
        try await ThreeServices().use { stack in
            let rpc = stack.portfolioRPC
            func rejects<Params: Encodable & Sendable>(_ method: String, _ params: Params, _ words: String) async {
                let error = await #expect(throws: RPCError.self) { try await rpc.call(method, params: params, as: Trade.self) }
                #expect(error?.message.contains(words) == true, "\(method): \(String(describing: error))")
            }
            let now = Date()
            func trade(asset: String = "BTC", amount: String = "1", price: String = "1", currency: String = "USD", date: Date = Date(timeIntervalSinceNow: -60), requestId: String = UUID().uuidString) throws -> AddTradeRequest {
                AddTradeRequest(asset: asset, amount: try ExactDecimal(amount), price: try ExactDecimal(price), currency: currency, date: date, requestId: requestId)
            }
            await rejects("trades.add", try trade(asset: "NOPE"), "unknown asset NOPE")
            await rejects("trades.add", try trade(amount: "0"), "amount must be positive")
            await rejects("trades.add", try trade(amount: "-2"), "amount must be positive")
            await rejects("trades.add", try trade(price: "-1"), "price must not be negative")
            await rejects("trades.add", try trade(date: now.addingTimeInterval(86_400)), "in the future")
            await rejects("trades.add", try trade(requestId: ""), "requestId")
            await rejects("trades.add", try trade(currency: "not money"), "not money")
            await rejects("trades.add", AddTradeRequest(kind: .sell, asset: "BTC", amount: 1, price: 1, currency: "USD",
                                                        date: now.addingTimeInterval(-60), requestId: "sell-first"), "cannot sell 1 BTC on")
            await rejects("trades.add", AddTradeRequest(kind: .fee, asset: "BTC", amount: 0, price: 0, currency: "QQQ",
                                                        fee: CurrencyAmount(amount: 1, currency: "QQQ"), date: now.addingTimeInterval(-60), requestId: "fee-q"),
                          "unknown fee currency QQQ")
            await rejects("trades.remove", RemoveTradeRequest(id: "missing"), "no trade with id missing")
            await rejects("holdings", HoldingsRequest(currency: "??"), "??")
            // Before GNB's transactions arrive every product is unavailable; after, an unknown one is not found.
            #expect(await eventually { (try? await rpc.call("products", as: [ProductSummary].self))?.isEmpty == false })
            await rejects("product", ProductRequest(sku: "NOPE"), "no transactions for product NOPE")
            await rejects("watchlist.add", WatchlistRequest(asset: "NOPE"), "unknown asset NOPE")
            await rejects("trades.add", ["asset": "BTC"], "missing")
            #expect(try await rpc.call("trades.list", as: [Trade].self).isEmpty, "nothing was recorded")
        }
    }

    /// A converter whose fetcher is down says so, and recovers when it comes up.
    @Test func deadUpstreamThenRecovery() async throws {
        let endpoints = try Endpoints()
        let converter = try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory)
        let context = try ZMQContext()
        let rpc = try client(context, endpoints.converterRep)
        #expect(await eventually { (try? await rpc.call("health", as: HealthReport.self))?.status == "degraded" })
        let early = await #expect(throws: RPCError.self) {
            try await rpc.call("convert", params: ConvertRequest(amount: 1, from: "USD", to: "EUR"), as: ConvertResult.self)
        }
        #expect(early?.message.isEmpty == false)
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "test"], in: endpoints.directory)
        try await waitUntilHealthy(rpc, converter)
        // Healthy means synchronised with the fetcher; the GNB rates may land a moment later.
        let request = ConvertRequest(amount: 1, from: "EUR", to: "USD", source: "gnb")
        #expect(await eventually { (try? await rpc.call("convert", params: request, as: ConvertResult.self)) != nil })
        let converted = try await rpc.call("convert", params: request, as: ConvertResult.self)
        #expect(converted.amount == (try ExactDecimal("1.36")))
        await rpc.close()
        #expect(await converter.stop() == 0)
        await fetcher.stop()
    }
}
