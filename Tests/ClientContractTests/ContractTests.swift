import Foundation
import Market
import Money
import PresenterViews
import Testing
import TickwireClients
import TickwireContract
import BusContract

/// The error code a call failed with, or nil when it did not fail with a JSON-RPC error.
func code(_ body: () async throws -> some Any) async -> Int? {
    do {
        _ = try await body()
        return nil
    } catch let error as RPCError {
        return error.code
    } catch {
        return nil
    }
}

/// The JSON-RPC error a call failed with, or nil when it did not fail with one.
func rpcError(_ body: () async throws -> some Any) async -> RPCError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? RPCError
    }
}

/// Every client's assertions, run against the real service (in this process, over ipc) and against its
/// mock: the same answers in shape and the same errors for the same bad input, so a mock cannot drift.
@Suite("Client contracts: live and mock agree", .serialized)
struct ContractTests {
    /// rates-fetcher: feeds, refresh, history and its streams.
    @Test(arguments: Stack.allCases)
    func ratesFetcher(_ stack: Stack) async throws {
        try await stack.with { clients in
            let fetcher = clients.fetcher
            let feeds = try await fetcher.feeds()
            #expect(Set(feeds.map(\.feed)).isSuperset(of: ["bitso", "coingecko", "gnb", "masterdata"]))
            // Both run the engine's list of built-in feeds: the same names in its order, each of kind built-in.
            #expect(feeds.filter { $0.kind == .builtIn }.map(\.feed) == ["bitso", "wazirx", "fiat", "coingecko", "gnb", "masterdata"])
            #expect(feeds.allSatisfy { $0.kind == .builtIn }, "no plugin feeds either stack")
            #expect(try await fetcher.refresh(RefreshRequest(feed: "bitso")).feed == "bitso")
            #expect(await code { try await fetcher.refresh(RefreshRequest(feed: "nope")) } == RPCError.Code.invalidParams)

            let history = try await fetcher.history(HistoryRequest(asset: "BTC", currency: "USD", days: 30))
            #expect(history.asset == "BTC" && history.currency == "USD")
            #expect(history.points.count >= 20)
            #expect(history.points.map(\.time) == history.points.map(\.time).sorted())
            #expect(history.points.allSatisfy { $0.price > .zero })
            #expect(await code { try await fetcher.history(HistoryRequest(asset: "BTC", days: 0)) } == RPCError.Code.invalidParams)
            #expect(await code { try await fetcher.history(HistoryRequest(asset: "BTC", currency: "not a code")) } == RPCError.Code.invalidParams)
            #expect(await code { try await fetcher.history(HistoryRequest(asset: "NOPE")) } == RPCError.Code.notFound)

            let quotes = await first(fetcher.updates([.quote])) { event -> [StreamUpdate<FetcherUpdate>]? in
                if case .snapshot(let updates) = event, !updates.isEmpty { return updates }
                return nil
            }
            let topics = Set(quotes?.map(\.topic.rawValue) ?? [])
            #expect(topics.contains("quote.bitso.BTC-MXN") && topics.contains("quote.coingecko.BTC-USD"))
            #expect(quotes?.allSatisfy { $0.value.kind == .quote } == true)
            #expect(try await fetcher.health().service == "rates-fetcher")
        }
    }

    /// rates-fetcher's candles: a market's closed candles come exactly, oldest first, each consistent (from CoinGecko's
    /// quotes: volume 0, start on a UTC day); an unknown market, a market that is not BASE-QUOTE and a span that ends
    /// before it starts are the same errors.
    @Test(arguments: Stack.allCases)
    func ratesFetcherCandles(_ stack: Stack) async throws {
        try await stack.with { clients in
            let fetcher = clients.fetcher
            let request = CandlesRequest(market: "BTC-USD", interval: .oneDay)
            #expect(await eventually { try await !fetcher.candles(request).candles.isEmpty })
            let series = try await fetcher.candles(request)
            #expect(series.source == "coingecko" && series.market == MarketPair(base: "BTC", quote: "USD") && series.interval == .oneDay)
            #expect(series.candles.map(\.start) == series.candles.map(\.start).sorted())
            for candle in series.candles {
                #expect(candle.low <= min(candle.open, candle.close) && candle.high >= max(candle.open, candle.close) && candle.low > .zero)
                #expect(candle.volume == .zero && candle.count >= 1 && Int(candle.start.timeIntervalSince1970) % 86_400 == 0)
            }
            #expect(await rpcError { try await fetcher.candles(CandlesRequest(market: "NOPE-USD", interval: .oneHour)) }
                == RPCError.notFound("no closed 1h candle of NOPE-USD is stored: none has closed yet, or the hub has seen no trade or quote of it"))
            #expect(await code { try await fetcher.candles(CandlesRequest(market: "BTCUSD", interval: .oneHour)) } == RPCError.Code.invalidParams)
            let backwards = CandlesRequest(
                market: "BTC-USD", interval: .oneDay, start: Date(timeIntervalSince1970: 86_400), end: Date(timeIntervalSince1970: 0))
            #expect(await rpcError { try await fetcher.candles(backwards) }?.message
                == "invalid params: the span ends (1970-01-01T00:00:00Z) before it starts (1970-01-02T00:00:00Z)")
        }
    }

    /// rates-fetcher's coin list: a tracked coin removed is retracted from the quote stream and added back,
    /// an unknown coin is the same invalid-params error naming it, and the known coins suggest by symbol.
    @Test(arguments: Stack.allCases)
    func ratesFetcherCoins(_ stack: Stack) async throws {
        try await stack.with { clients in
            let fetcher = clients.fetcher
            #expect(await eventually { try await fetcher.coins().contains { $0.id == "bitcoin" } })
            let unknown = await rpcError { try await fetcher.addCoin(CoinRequest(coin: "foo")) }
            #expect(unknown?.code == RPCError.Code.invalidParams)
            #expect(unknown?.message == "invalid params: unknown coin \"foo\": CoinGecko lists no coin with that id, symbol or name")
            #expect(try await fetcher.knownCoins(KnownCoinsRequest(query: "btc")).first == KnownCoin(id: "bitcoin", symbol: "BTC", name: "Bitcoin"))
            #expect(await code { try await fetcher.knownCoins(KnownCoinsRequest(limit: 500)) } == RPCError.Code.invalidParams)

            // A subscriber that holds the snapshot hears of the retraction (one that joins later finds no such topic).
            let (synchronized, signal) = AsyncStream.makeStream(of: Void.self)
            let quotes = fetcher.updates([.quote])
            let retracted = Task {
                await first(quotes, within: .seconds(20)) { event -> Topic? in
                    switch event {
                    case .snapshot: signal.yield()
                    case .removed(let topic): return topic
                    case .update, .unavailable: break
                    }
                    return nil
                }
            }
            for await _ in synchronized { break }
            let removed = try await fetcher.removeCoin(CoinRequest(coin: "BTC"))
            #expect(removed.changed && removed.coin.id == "bitcoin" && !removed.coins.contains { $0.id == "bitcoin" })
            #expect(await retracted.value?.rawValue == "quote.coingecko.BTC-USD")
            #expect(try await !fetcher.removeCoin(CoinRequest(coin: "bitcoin")).changed)
            let added = try await fetcher.addCoin(CoinRequest(coin: "Bitcoin"))
            #expect(added.changed && added.coins.contains { $0.id == "bitcoin" })
            #expect(try await !fetcher.addCoin(CoinRequest(coin: "btc")).changed)
        }
    }

    /// The converter: exact conversions, totals by the GNB rule, rates, sources, its errors and its prices.
    @Test(arguments: Stack.allCases)
    func converter(_ stack: Stack) async throws {
        try await stack.with { clients in
            let converter = clients.converter
            #expect(await eventually { try await converter.sources().contains { $0.source == "market" } })
            let converted = try await converter.convert(ConvertRequest(amount: 10, from: "EUR", to: "USD"))
            #expect(converted.currency == "USD" && converted.path.first == "EUR" && converted.path.last == "USD")
            #expect(converted == (try await ConverterClient.test.convert(ConvertRequest(amount: 10, from: "EUR", to: "USD"))))
            #expect(try await converter.convert(ConvertRequest(amount: 1, from: "BTC", to: "SEK")).amount > .zero)
            #expect(await code { try await converter.convert(ConvertRequest(amount: 1, from: "XYZ", to: "USD")) } == RPCError.Code.unknownCurrency)
            #expect(await code { try await converter.convert(ConvertRequest(amount: 1, from: "not a code", to: "USD")) } == RPCError.Code.invalidParams)
            #expect(await code { try await converter.convert(ConvertRequest(amount: 1, from: "EUR", to: "USD", source: "nope")) } == RPCError.Code.unknownSource)

            let gnb = try await converter.total(TotalRequest(
                items: [CurrencyAmount(amount: try ExactDecimal("10.00"), currency: "USD"), CurrencyAmount(amount: try ExactDecimal("5"), currency: "CAD")],
                to: "EUR", source: "gnb"))
            #expect(gnb.currency == "EUR" && gnb.items.count == 2)
            #expect(gnb.total == gnb.items.reduce(ExactDecimal.zero) { (try? $0 + $1.converted) ?? $0 })

            let rates = try await converter.rates(RatesRequest(base: "USD"))
            #expect(Set(rates.rates.map(\.currency)).isSuperset(of: ["EUR", "SEK"]))
            #expect(Set(try await converter.sources().map(\.source)).isSuperset(of: ["gnb", "market"]))

            let price = await first(converter.prices()) { event -> AssetPrice? in
                switch event {
                case .snapshot(let updates): updates.first { $0.topic.rawValue == "price.BTC.USD" }?.value
                case .update(let update): update.topic.rawValue == "price.BTC.USD" ? update.value : nil
                case .removed, .unavailable: nil
                }
            }
            #expect(price?.asset == "BTC" && price?.currency == "USD" && (price?.price ?? .zero) > .zero)
            #expect(try await converter.health().service == "converter")
        }
    }

    /// Daily fiat rates (`rates.history`) and a history converted at each day's rate (`convert.series`): ECB
    /// business days only, Saturday at Friday's rate, the same errors for the same bad input.
    @Test(arguments: Stack.allCases)
    func dailyRates(_ stack: Stack) async throws {
        try await stack.with { clients in
            let daily = try await clients.fetcher.ratesHistory(RatesHistoryRequest(start: "2026-09-30", end: "2026-10-04"))
            #expect(daily.source == "ecb" && daily.start == "2026-09-30" && daily.end == "2026-10-04")
            let days = daily.days.compactMap { CalendarDay(iso: $0.date) }
            #expect(days.count == daily.days.count && days == days.sorted())
            #expect(Set(daily.days.map(\.date)).isSuperset(of: ["2026-09-30", "2026-10-01", "2026-10-02"]))
            #expect(days.allSatisfy { !$0.isWeekend && $0.iso <= "2026-10-04" })
            #expect(daily.days.allSatisfy { day in day.base == daily.base && day.rates.contains { $0.to == "INR" } && day.rates.allSatisfy { $0.rate > .zero } })
            for (start, end) in [("nope", "2026-10-04"), ("2026-10-04", "2026-09-30"), ("2025-01-01", "2026-10-04")] {
                #expect(await code { try await clients.fetcher.ratesHistory(RatesHistoryRequest(start: start, end: end)) } == RPCError.Code.invalidParams)
            }

            let converter = clients.converter
            #expect(await eventually { try await converter.sources().contains { $0.source == "ecb" } })
            let october1 = try #require(CalendarDay(iso: "2026-10-01")).start, october3 = try #require(CalendarDay(iso: "2026-10-03")).start
            let history = PriceHistory(asset: "BTC", currency: "USD", points: [
                PricePoint(time: october1, price: try ExactDecimal("60000")), PricePoint(time: october3.addingTimeInterval(43_200), price: try ExactDecimal("61000.5")),
            ])
            let series = try await converter.convertSeries(ConvertSeriesRequest(history: history, to: "INR"))
            #expect(series.kind == .daily && series.source == "ecb" && series.reason == nil)
            #expect(series.history.currency == "INR" && series.history.points.map(\.time) == history.points.map(\.time))
            #expect(series.days.map(\.day) == ["2026-10-01", "2026-10-03"])
            #expect(series.days.map(\.rateDay) == ["2026-10-01", "2026-10-02"])
            #expect(series.history.points.allSatisfy { $0.price > .zero && $0.price.scale == 8 })
            #expect(await code { try await converter.convertSeries(ConvertSeriesRequest(history: history, to: "not a code")) } == RPCError.Code.invalidParams)
            #expect(await code { try await converter.convertSeries(ConvertSeriesRequest(history: history, to: "XYZ")) } == RPCError.Code.unknownCurrency)
        }
    }

    /// The portfolio: idempotent trades, validation errors, valuations, a sell, its gains, an edit and the history, the
    /// watch list, wallets, products, changes.
    @Test(arguments: Stack.allCases)
    func portfolio(_ stack: Stack) async throws {
        try await stack.with { clients in
            let portfolio = clients.portfolio
            #expect(await eventually { try await !portfolio.assets().assets.isEmpty })
            let changes = portfolio.changes()
            let added = Task {
                // A subscriber that joins while the trade is added finds it in its snapshot (the topic's last value).
                await first(changes) { event -> PortfolioChange? in
                    switch event {
                    case .snapshot(let updates): updates.map(\.value).first { $0.reason == "trade.added" }
                    case .update(let update): update.value.reason == "trade.added" ? update.value : nil
                    case .removed, .unavailable: nil
                    }
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let request = AddTradeRequest(asset: "btc", amount: try ExactDecimal("0.5"), price: 60_000, currency: "USD",
                                          date: Date(timeIntervalSinceNow: -86_400), requestId: "contract-1")
            let trade = try await portfolio.addTrade(request)
            #expect(trade.asset == "BTC")
            #expect(try await portfolio.addTrade(request).id == trade.id)
            #expect(try await portfolio.trades(TradesRequest()).map(\.id) == [trade.id])
            #expect(await added.value?.subject == trade.id)

            var bad = request
            bad.asset = "NOPE"
            #expect(await code { try await portfolio.addTrade(bad) } == RPCError.Code.invalidParams)
            bad = request
            bad.amount = .zero
            #expect(await code { try await portfolio.addTrade(bad) } == RPCError.Code.invalidParams)
            bad = request
            bad.date = Date(timeIntervalSinceNow: 86_400)
            #expect(await code { try await portfolio.addTrade(bad) } == RPCError.Code.invalidParams)

            #expect(await eventually { try await portfolio.holdings(HoldingsRequest(currency: "USD")).holdings.first?.value != nil })
            let valuation = try await portfolio.holdings(HoldingsRequest(currency: "USD"))
            #expect(valuation.currency == "USD" && valuation.holdings.map(\.asset) == ["BTC"])
            #expect(valuation.holdings.first?.amount == (try ExactDecimal("0.5")))
            #expect(await code { try await portfolio.holdings(HoldingsRequest(currency: "u$")) } == RPCError.Code.invalidParams)

            let sell = AddTradeRequest(kind: .sell, asset: "BTC", amount: try ExactDecimal("0.2"), price: 70_000, currency: "USD",
                                       fee: CurrencyAmount(amount: 10, currency: "USD"), date: Date(timeIntervalSinceNow: -3_600),
                                       requestId: "contract-sell", by: "contract")
            let sold = try await portfolio.addTrade(sell)
            var tooMuch = sell
            tooMuch.amount = 1
            tooMuch.requestId = "contract-too-much"
            #expect(await code { try await portfolio.addTrade(tooMuch) } == RPCError.Code.invalidParams)
            let gains = try await portfolio.gains(GainsRequest(currency: "USD"))
            #expect(gains.method == .fifo && gains.assets.map(\.asset) == ["BTC"])
            #expect(gains.assets.first?.quantity == (try ExactDecimal("0.3")))
            #expect(gains.assets.first?.costBasis == (try ExactDecimal("18000.00")))
            #expect(gains.assets.first?.realizedGain == (try ExactDecimal("1990.00")), "13990.00 over 12000.00")
            #expect(try await portfolio.gains(GainsRequest(currency: "USD", method: .average)).assets.first?.realizedGain == (try ExactDecimal("1990.00")))
            var moved = sell
            moved.amount = try ExactDecimal("0.1")
            moved.requestId = "contract-edit"
            #expect(try await portfolio.editTrade(EditTradeRequest(id: sold.id, activity: moved)).amount == (try ExactDecimal("0.1")))
            #expect(await code { try await portfolio.editTrade(EditTradeRequest(id: "nope", activity: moved)) } == RPCError.Code.invalidParams,
                    "its requestId named the edit of another trade")
            moved.requestId = "contract-edit-nope"
            #expect(await code { try await portfolio.editTrade(EditTradeRequest(id: "nope", activity: moved)) } == RPCError.Code.notFound)
            #expect(try await portfolio.tradeHistory(TradeHistoryRequest(id: sold.id)).map(\.action) == [.added, .edited])
            #expect(try await portfolio.removeTrade(RemoveTradeRequest(id: sold.id, requestId: "contract-remove", by: "contract")))

            #expect(try await portfolio.watch(WatchlistRequest(asset: "eth")) == ["ETH"])
            #expect(await code { try await portfolio.watch(WatchlistRequest(asset: "NOPE")) } == RPCError.Code.invalidParams)
            #expect(try await portfolio.unwatch(WatchlistRequest(asset: "ETH")) == [])

            #expect(try await portfolio.removeTrade(RemoveTradeRequest(id: trade.id)))
            #expect(await code { try await portfolio.removeTrade(RemoveTradeRequest(id: trade.id)) } == RPCError.Code.notFound)

            #expect(!(try await portfolio.wallets().fiat.isEmpty))
            #expect(try await portfolio.products().contains { $0.sku == "T2006" })
            let product = try await portfolio.product(ProductRequest(sku: "T2006"))
            #expect(product.currency == "EUR")
            #expect(product.total == (try ExactDecimal("14.99")))
            #expect(await code { try await portfolio.product(ProductRequest(sku: "NOPE")) } == RPCError.Code.notFound)
            #expect(try await portfolio.health().service == "portfolio")
        }
    }

    /// The portfolio's import and export: a Ghostfolio CSV previewed, imported once (all or nothing), exported and read back.
    @Test(arguments: Stack.allCases)
    func portfolioImportAndExport(_ stack: Stack) async throws {
        try await stack.with { clients in
            let portfolio = clients.portfolio
            #expect(await eventually { try await !portfolio.assets().assets.isEmpty })
            let file = "Date,Code,Currency,Price,Quantity,Action,Fee,FeeCurrency\n02-01-2024,BTCUSD,USD,40000,1,buy,5,\n2024-02-01,btc,USD,45000,0.25,sell,2,EUR\n"
            let preview = try await portfolio.importActivities(ImportActivitiesRequest(format: .csv, content: file))
            #expect(preview.dryRun && !preview.written && preview.new == 2 && preview.errors == 0)
            #expect(preview.lines.compactMap(\.activity?.asset) == ["BTC", "BTC"] && preview.lines.map(\.line) == [2, 3])
            #expect(try await portfolio.trades(TradesRequest()).isEmpty)

            let bad = file + "2024-02-30,NOPE,USD,1,1,buy,0,\n"
            let refused = try await portfolio.importActivities(ImportActivitiesRequest(format: .csv, content: bad, dryRun: false))
            #expect(!refused.written && refused.errors == 1 && refused.lines.last?.errors.map(\.column) == ["Date", "Code"])
            let notCSV = try await portfolio.importActivities(ImportActivitiesRequest(format: .json, content: file, dryRun: false))
            #expect(!notCSV.written && notCSV.fileErrors.first?.reason.hasPrefix("not JSON") == true)
            #expect(try await portfolio.trades(TradesRequest()).isEmpty)

            let imported = try await portfolio.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false, by: "contract"))
            #expect(imported.written && imported.new == 2)
            let trades = try await portfolio.trades(TradesRequest())
            #expect(trades.map(\.kind) == [.buy, .sell] && trades.last?.fee == CurrencyAmount(amount: 2, currency: "EUR"))
            #expect(try await portfolio.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false)).duplicates == 2)

            let export = try await portfolio.exportActivities(ExportActivitiesRequest(format: .json))
            #expect(export.activities == 2 && export.content.contains("\"type\": \"SELL\""))
            let again = try await portfolio.importActivities(ImportActivitiesRequest(format: .json, content: export.content, dryRun: false))
            #expect(again.duplicates == 2 && again.new == 0 && !again.written)
            #expect(try await portfolio.trades(TradesRequest()) == trades)
        }
    }

    /// Several portfolios: an activity goes to the portfolio it names, each method sees only its own, a sell may take
    /// only what its portfolio holds, the same file imports into two, and a bad name is invalid params.
    @Test(arguments: Stack.allCases)
    func portfolios(_ stack: Stack) async throws {
        try await stack.with { clients in
            let portfolio = clients.portfolio
            #expect(await eventually { try await !portfolio.assets().assets.isEmpty })
            #expect(try await portfolio.portfolios() == PortfolioList(portfolios: [PortfolioSummary(name: "main", activities: 0)]))
            let buy = AddTradeRequest(asset: "BTC", amount: 1, price: 60_000, currency: "USD", date: Date(timeIntervalSinceNow: -86_400),
                                      requestId: "contract-pension-buy", portfolio: "Pension")
            let added = try await portfolio.addTrade(buy)
            #expect(added.portfolio == "Pension")
            #expect(try await portfolio.trades(TradesRequest()).isEmpty)
            #expect(try await portfolio.trades(TradesRequest(portfolio: "Pension")) == [added])
            #expect(try await portfolio.holdings(HoldingsRequest(currency: "USD")).holdings.isEmpty)
            #expect(try await portfolio.holdings(HoldingsRequest(currency: "USD", portfolio: "Pension")).holdings.map(\.asset) == ["BTC"])
            #expect(try await portfolio.gains(GainsRequest(currency: "USD", portfolio: "Pension")).assets.first?.costBasis == (try ExactDecimal("60000.00")))
            let sell = AddTradeRequest(kind: .sell, asset: "BTC", amount: 1, price: 70_000, currency: "USD", date: Date(timeIntervalSinceNow: -3_600),
                                       requestId: "contract-main-sell")
            let refused = await rpcError { try await portfolio.addTrade(sell) }
            #expect(refused?.code == RPCError.Code.invalidParams && refused?.message.contains("0 BTC held then") == true, "main holds none")
            #expect(await code { try await portfolio.trades(TradesRequest(portfolio: "a/b")) } == RPCError.Code.invalidParams)

            let file = "Date,Code,Currency,Price,Quantity,Action,Fee\n2024-01-02,BTC,USD,40000,1,buy,0\n"
            for name in ["main", "Kids"] {
                let imported = try await portfolio.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false, portfolio: name))
                #expect(imported.written && imported.new == 1, "into \(name)")
            }
            #expect(try await portfolio.importActivities(ImportActivitiesRequest(format: .csv, content: file, dryRun: false, portfolio: "Kids")).duplicates == 1)
            #expect(try await portfolio.exportActivities(ExportActivitiesRequest(format: .csv, portfolio: "Pension")).activities == 1)
            #expect(try await portfolio.portfolios() == PortfolioList(portfolios: [
                PortfolioSummary(name: "main", activities: 1), PortfolioSummary(name: "Kids", activities: 1), PortfolioSummary(name: "Pension", activities: 1),
            ]))
        }
    }

    /// The presenter: every screen in the asked locale and currency, and its errors.
    @Test(arguments: Stack.allCases)
    func presenter(_ stack: Stack) async throws {
        try await stack.with { clients in
            let presenter = clients.presenter
            #expect(await eventually {
                guard case .coins(let coins) = try await presenter.view(ViewRequest(screen: "coins")) else { return false }
                return coins.rows.contains { $0.symbol == "BTC" && $0.price != nil }
            })
            guard case .coins(let sek) = try await presenter.view(ViewRequest(screen: "coins", locale: "sv_SE", currency: "SEK")) else {
                Issue.record("coins is not a coins view")
                return
            }
            #expect(sek.currency == "SEK" && sek.locale == "sv_SE")
            #expect(sek.rows.first { $0.symbol == "BTC" }?.price?.currency == "SEK")

            #expect(await eventually { (try? await presenter.view(ViewRequest(screen: "product", locale: "de_AT", sku: "T2006"))) != nil })
            guard case .product(let product) = try await presenter.view(ViewRequest(screen: "product", locale: "de_AT", sku: "T2006")) else {
                Issue.record("product is not a product view")
                return
            }
            #expect(product.total.text == "14,99\u{A0}€")
            for screen in ["assets", "wallets", "books"] {
                #expect(try await presenter.view(ViewRequest(screen: screen)).screen == screen)
            }
            #expect(await code { try await presenter.view(ViewRequest(screen: "nope")) } == RPCError.Code.notFound)
            #expect(await code { try await presenter.view(ViewRequest(screen: "coin")) } == RPCError.Code.invalidParams)
            #expect(await code { try await presenter.view(ViewRequest(screen: "coins", currency: "dollars")) } == RPCError.Code.invalidParams)
            #expect(try await presenter.health().service == "presenter")
        }
    }
}
