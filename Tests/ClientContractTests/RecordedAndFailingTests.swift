import Foundation
import Testing
import TickwireClients
import TickwireMocks
import BusContract
import Market
import Money
import PresenterViews
import TickwireContract

/// The `test` clients answer from their recordings, and the `failing` ones name what was reached.
@Suite("Recorded and failing clients")
struct RecordedAndFailingTests {
    /// Every recorded answer still decodes into its method's result type.
    @Test func everyRecordingDecodes() async throws {
        let fetcher = RatesFetcherClient.test, converter = ConverterClient.test
        let portfolio = PortfolioClient.test, presenter = PresenterClient.test
        #expect(try await fetcher.history(HistoryRequest(asset: "BTC")).points.count >= 20)
        #expect(try await fetcher.refresh(RefreshRequest(feed: "bitso")).feed == "bitso")
        #expect(!(try await fetcher.feeds()).isEmpty)
        #expect(try await fetcher.health().service == "rates-fetcher")
        #expect(try await fetcher.ratesHistory(RatesHistoryRequest(start: "2026-09-30", end: "2026-10-04")).days.count == 3)
        let candles = try await fetcher.candles(CandlesRequest(market: "BTC-MXN", interval: .oneMinute))
        let close = try ExactDecimal("57800.00")
        #expect(candles.source == "bitso" && candles.candles.map(\.close) == [close])
        // The coin methods are the engine's over the recorded coins, each call as if it were the first.
        let removed = try await fetcher.removeCoin(CoinRequest(coin: "BTC"))
        #expect(removed.changed && removed.coin.id == "bitcoin" && !removed.coins.contains { $0.id == "bitcoin" })
        #expect(try await fetcher.coins().contains { $0.id == "bitcoin" }, "a removal is not kept")
        #expect(try await !fetcher.addCoin(CoinRequest(coin: "bitcoin")).changed)
        #expect(await rpcError { try await fetcher.addCoin(CoinRequest(coin: "foo")) }?.message
            == "invalid params: unknown coin \"foo\": CoinGecko lists no coin with that id, symbol or name")
        #expect(try await fetcher.knownCoins(KnownCoinsRequest(query: "btc")).first?.id == "bitcoin")
        #expect(try await converter.convertSeries(ConvertSeriesRequest(history: PriceHistory(asset: "BTC", currency: "USD", points: []), to: "INR")).kind == .mixed)
        #expect(try await converter.convert(ConvertRequest(amount: 10, from: "EUR", to: "USD")).currency == "USD")
        #expect(try await converter.total(TotalRequest(items: [], to: "EUR")).currency == "EUR")
        #expect(!(try await converter.rates(RatesRequest(base: "USD")).rates.isEmpty))
        #expect(!(try await converter.sources()).isEmpty)
        #expect(try await converter.health().service == "converter")
        #expect(try await portfolio.trades(TradesRequest()).count == 2)
        #expect(try await portfolio.trades(TradesRequest(portfolio: "Pension")).isEmpty, "the recorded trades are main's")
        #expect(try await portfolio.portfolios() == PortfolioList(portfolios: [PortfolioSummary(name: "main", activities: 2)]))
        #expect(try await portfolio.addTrade(AddTradeRequest(asset: "BTC", amount: 1, price: 1, currency: "USD", date: Date(), requestId: "x")).asset == "BTC")
        #expect(try await portfolio.holdings(HoldingsRequest()).holdings.count == 2)
        #expect(try await portfolio.holdings(HoldingsRequest(portfolio: " main ")).totalValue == (try ExactDecimal("45986.52")))
        let none = try await portfolio.holdings(HoldingsRequest(portfolio: "Pension"))
        #expect(none.holdings.isEmpty && none.totalValue.isZero && none.totalCost.isZero, "the recorded holdings are main's")
        #expect(try await portfolio.gains(GainsRequest()).assets.map(\.asset) == ["BTC", "ETH"])
        let noGains = try await portfolio.gains(GainsRequest(portfolio: "Pension"))
        #expect(noGains.assets.isEmpty && noGains.totalGain.isZero)
        #expect(try await portfolio.tradeHistory(TradeHistoryRequest()).count == 2)
        #expect(try await portfolio.tradeHistory(TradeHistoryRequest(portfolio: "main")).map(\.action) == [.added, .added])
        #expect(try await portfolio.tradeHistory(TradeHistoryRequest(portfolio: "Pension")).isEmpty)
        let recorded = try #require(try await portfolio.trades(TradesRequest()).first)
        #expect(try await portfolio.tradeHistory(TradeHistoryRequest(id: recorded.id)).map(\.tradeId) == [recorded.id])
        for bad in ["a/b", "", String(repeating: "x", count: 41)] {
            #expect(await code { try await portfolio.holdings(HoldingsRequest(portfolio: bad)) } == RPCError.Code.invalidParams, "\(bad)")
            #expect(await code { try await portfolio.gains(GainsRequest(portfolio: bad)) } == RPCError.Code.invalidParams, "\(bad)")
            #expect(await code { try await portfolio.tradeHistory(TradeHistoryRequest(portfolio: bad)) } == RPCError.Code.invalidParams, "\(bad)")
        }
        #expect(try await portfolio.watchlist() == ["BTC"])
        #expect(!(try await portfolio.wallets()).crypto.isEmpty)
        #expect(!(try await portfolio.assets()).assets.isEmpty)
        #expect(!(try await portfolio.products()).isEmpty)
        #expect(try await portfolio.product(ProductRequest(sku: "T2006")).sku == "T2006")
        #expect(try await portfolio.health().service == "portfolio")
        for screen in ScreenView.screens {
            #expect(try await presenter.view(ViewRequest(screen: screen)).screen == screen)
        }
        await #expect(throws: RPCError.self) { try await presenter.view(ViewRequest(screen: "nope")) }
        let snapshot = await first(converter.prices()) { event -> [StreamUpdate<AssetPrice>]? in
            if case .snapshot(let updates) = event { return updates }
            return nil
        }
        #expect(snapshot?.contains { $0.topic.rawValue == "price.BTC.USD" } == true)
        let documents = await first(fetcher.updates([.assets, .transactions])) { event -> [StreamUpdate<FetcherUpdate>]? in
            if case .snapshot(let updates) = event { return updates }
            return nil
        }
        #expect(documents.map { Set($0.map(\.value.kind)) } == [.assets, .transactions])
    }

    /// A `failing` client's closures throw an error naming the client and the closure; its streams say so.
    @Test func failingNamesWhatWasReached() async throws {
        await #expect(throws: Unimplemented("PortfolioClient.holdings")) { try await PortfolioClient.failing.holdings(HoldingsRequest()) }
        await #expect(throws: Unimplemented("PortfolioClient.portfolios")) { try await PortfolioClient.failing.portfolios() }
        await #expect(throws: Unimplemented("ConverterClient.total")) { try await ConverterClient.failing.total(TotalRequest(items: [], to: "EUR")) }
        await #expect(throws: Unimplemented("RatesFetcherClient.history")) { try await RatesFetcherClient.failing.history(HistoryRequest(asset: "BTC")) }
        await #expect(throws: Unimplemented("RatesFetcherClient.candles")) {
            try await RatesFetcherClient.failing.candles(CandlesRequest(market: "BTC-MXN", interval: .oneMinute))
        }
        await #expect(throws: Unimplemented("RatesFetcherClient.ratesHistory")) {
            try await RatesFetcherClient.failing.ratesHistory(RatesHistoryRequest(start: "2026-09-30", end: "2026-10-04"))
        }
        await #expect(throws: Unimplemented("ConverterClient.convertSeries")) {
            try await ConverterClient.failing.convertSeries(ConvertSeriesRequest(history: PriceHistory(asset: "BTC", currency: "USD", points: []), to: "INR"))
        }
        await #expect(throws: Unimplemented("PresenterClient.view")) { try await PresenterClient.failing.view(ViewRequest(screen: "coins")) }
        let reason = await first(ConverterClient.failing.prices()) { event -> String? in
            if case .unavailable(let reason) = event { return reason }
            return nil
        }
        #expect(reason?.contains("ConverterClient.prices") == true)
    }
}
