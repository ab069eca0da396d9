import Bus
import Foundation
import Logging
import PortfolioEngine
import Testing
import TickwireClients
import TickwireMocks
@testable import PortfolioCore
import BusContract
import TickwireContract

/// A portfolio in this process, over given clients of the converter and rates-fetcher, with no socket:
/// driven through its methods (`LocalRPC`), as its JSON-RPC server would be.
struct InProcessPortfolio {
    let state: PortfolioState
    let client: PortfolioClient
    let changes: AsyncStream<PortfolioChange>
    private let followers: [Task<Void, Never>]

    init(store: PortfolioStore = .memory(), converter: ConverterClient, fetcher: RatesFetcherClient) async throws {
        var logger = Logger(label: "portfolio-test")
        logger.logLevel = .critical
        let (changes, published) = AsyncStream<PortfolioChange>.makeStream()
        self.changes = changes
        state = PortfolioState(store: store, total: converter.total, publish: { published.yield($0) }, logger: logger, now: { Date() })
        try await state.restore()
        client = .live(LocalRPC(Portfolio.methods(state)))
        let state = state, documents = fetcher.updates([.assets, .wallets, .transactions]), prices = converter.prices()
        followers = [Task { await state.follow(fetcher: documents) }, Task { await state.follow(prices: prices) }]
        _ = await poll { (try? await state.wallets()) != nil }
    }

    func stop() { for follower in followers { follower.cancel() } }
}

/// Polls `condition` for up to ten seconds.
func poll(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<100 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return await condition()
}

@Suite("Portfolio in process, over mock and failing clients")
struct InProcessTests {
    let trade = AddTradeRequest(asset: "BTC", amount: 2, price: 30_000, currency: "USD", date: Date(timeIntervalSinceNow: -86_400), requestId: "r-1")

    /// A trade is recorded once per request id, valued with the converter's prices in any currency, and announced.
    @Test func tradesAreValuedWithTheConvertersPrices() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        let converter = ConverterClient.mock(fetcher: fetcher)
        let portfolio = try await InProcessPortfolio(converter: converter, fetcher: fetcher)
        defer { portfolio.stop() }
        let first = try await portfolio.client.addTrade(trade)
        #expect(try await portfolio.client.addTrade(trade) == first)
        var changes = portfolio.changes.makeAsyncIterator()
        #expect(await changes.next() == PortfolioChange(reason: "trade.added", subject: first.id, portfolio: "main"))

        #expect(await poll { (try? await portfolio.client.holdings(HoldingsRequest(currency: "SEK")))?.holdings.first?.price != nil })
        let valuation = try await portfolio.client.holdings(HoldingsRequest(currency: "SEK"))
        let price = try await converter.convert(ConvertRequest(amount: 1, from: "BTC", to: "SEK"))
        let holding = try #require(valuation.holdings.first)
        #expect(!valuation.offline && valuation.warnings.isEmpty)
        #expect(holding.amount == 2 && holding.cost != nil)
        // The holding's price is the converter's price stream's (8 places); `convert` rounds the same rate to öre.
        #expect(try #require(holding.price).rounded(scale: 2) == price.amount)
    }

    /// With the converter down, holdings come from stored prices and say why; product totals fail with a clear error.
    @Test func converterOutage() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        let store = PortfolioStore.memory()
        let online = try await InProcessPortfolio(store: store, converter: .mock(fetcher: fetcher), fetcher: fetcher)
        _ = try await online.client.addTrade(trade)
        _ = try await online.client.addTrade(AddTradeRequest(asset: "ETH", amount: 1, price: 10_000, currency: "SEK", date: trade.date, requestId: "r-2"))
        #expect(await poll { (try? await online.client.holdings(HoldingsRequest(currency: "USD")))?.holdings.allSatisfy { $0.price != nil } == true })
        try await online.state.savePrices()
        online.stop()

        let offline = try await InProcessPortfolio(store: store, converter: .failing, fetcher: .failing)
        defer { offline.stop() }
        let valuation = try await offline.client.holdings(HoldingsRequest(currency: "USD"))
        #expect(valuation.offline)
        #expect(valuation.holdings.map(\.asset) == ["BTC", "ETH"])
        #expect(valuation.holdings.allSatisfy { $0.value != nil }, "stored prices value every holding")
        #expect(valuation.warnings.contains { $0.contains("ConverterClient.total") })
        #expect(try await offline.client.products().contains { $0.sku == "T2006" }, "transactions restored from the store")
        await #expect(throws: RPCError.self) { try await offline.client.product(ProductRequest(sku: "T2006")) }
    }

    /// Bad input is refused with the JSON-RPC error the wire carries, naming what is wrong.
    @Test func badInput() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        let portfolio = try await InProcessPortfolio(converter: .failing, fetcher: fetcher)
        defer { portfolio.stop() }
        var unknown = trade
        unknown.asset = "NOPE"
        await #expect(throws: RPCError.invalidParams("unknown asset NOPE")) { try await portfolio.client.addTrade(unknown) }
        await #expect(throws: RPCError.notFound("no trade with id nope")) { try await portfolio.client.removeTrade(RemoveTradeRequest(id: "nope")) }
        await #expect(throws: RPCError.self) { try await portfolio.client.holdings(HoldingsRequest(currency: "not a code")) }
    }

    /// Until rates-fetcher's GNB feed has brought transactions, products and any product are unavailable (try again),
    /// not "not found"; once they are there, an unknown product is not found.
    @Test func productsBeforeAndAfterTheirTransactions() async throws {
        let nothingYet = PortfolioState(store: .memory(), total: ConverterClient.failing.total, publish: { _ in },
                                        logger: Logger(label: "portfolio-test"), now: { Date() })
        let waiting = PortfolioClient.live(LocalRPC(Portfolio.methods(nothingYet)))
        for call in [{ _ = try await waiting.products() }, { _ = try await waiting.product(ProductRequest(sku: "T2006")) }] {
            let error = await #expect(throws: RPCError.self) { try await call() }
            #expect(error?.code == RPCError.Code.unavailable)
            #expect(error?.message.contains("no transactions yet") == true, "\(String(describing: error))")
        }

        let fetcher = RatesFetcherClient.mock(seed: 5, interval: .seconds(60))
        let portfolio = try await InProcessPortfolio(converter: .mock(fetcher: fetcher), fetcher: fetcher)
        defer { portfolio.stop() }
        #expect(await poll { (try? await portfolio.client.products())?.isEmpty == false })
        await #expect(throws: RPCError.notFound("no transactions for product NOPE")) {
            try await portfolio.client.product(ProductRequest(sku: "NOPE"))
        }
    }
}
