import Bus
import Foundation
import Logging
import Market
import Money
import PortfolioEngine
import Synchronization
import TickwireContract
import BusContract
import TickwireClients

extension PortfolioClient {
    /// The portfolio's recorded answers (`scripts/record-client-fixtures.py`), which are main's: a portfolio name is checked
    /// as the service does, and another portfolio has no activities, holdings, gains or history (`addTrade` and `editTrade`
    /// answer the first recorded trade, `removeTrade` true; `tradeHistory` is each recorded trade added, `gains` the
    /// recorded holdings' figures, which are buys only, `performance` the recorded trades at the recorded holdings' prices,
    /// its only price points, in their currency); its change stream stays quiet.
    public static let test = Self(
        addTrade: { _ in try firstRecordedTrade() },
        editTrade: { _ in try firstRecordedTrade() },
        removeTrade: { _ in true },
        trades: { request in try recordedTrades(request.portfolio) },
        tradeHistory: { request in
            let portfolio = try request.portfolio.map { try PortfolioNames.validate($0) }
            return try Fixtures.load("portfolio", "trades.list", as: [Trade].self).enumerated().map { index, trade in
                TradeRevision(seq: index + 1, tradeId: trade.id, action: .added, by: "anonymous", at: trade.recordedAt,
                              requestId: nil, before: nil, after: trade)
            }.filter { revision in
                (request.id == nil || revision.tradeId == request.id) && (portfolio == nil || revision.after?.portfolio == portfolio)
            }
        },
        portfolios: { PortfolioNames.list(try Fixtures.load("portfolio", "trades.list", as: [Trade].self)) },
        holdings: { request in try recordedValuation(request.portfolio) },
        gains: { request in
            let valuation = try recordedValuation(request.portfolio)
            let zero = try ExactDecimal.zero.rescaled(to: try Currency(code: valuation.currency).minorUnits)
            return PortfolioGains(
                currency: valuation.currency, method: request.method ?? .fifo,
                assets: valuation.holdings.map { holding in
                    AssetGains(asset: holding.asset, quantity: holding.amount, activities: holding.trades, costBasis: holding.cost,
                               price: holding.price, value: holding.value, realizedGain: zero, unrealizedGain: holding.gain, fees: zero,
                               priceTime: holding.priceTime)
                },
                totalCostBasis: valuation.totalCost, totalValue: valuation.totalValue, totalRealizedGain: zero,
                totalUnrealizedGain: valuation.totalGain, totalGain: valuation.totalGain, totalFees: zero,
                pricesAsOf: valuation.pricesAsOf, offline: valuation.offline, warnings: valuation.warnings)
        },
        performance: { request in
            let valuation = try Fixtures.load("portfolio", "holdings", as: Valuation.self)
            let prices = Dictionary(uniqueKeysWithValues: valuation.holdings.compactMap { holding in
                holding.price.flatMap { price in holding.priceTime.map { (holding.asset, [PricePoint(time: $0, price: price)]) } }
            })
            return try Performance.compute(
                activities: try recordedTrades(request.portfolio), prices: prices,
                currency: try Currency(code: valuation.currency), converted: [:], range: request.range ?? .max,
                now: valuation.pricesAsOf ?? Date(timeIntervalSince1970: 0))
        },
        watch: Fixtures.answer("portfolio", "watchlist.list"),
        unwatch: Fixtures.answer("portfolio", "watchlist.list"),
        watchlist: Fixtures.answer("portfolio", "watchlist.list"),
        wallets: Fixtures.answer("portfolio", "wallets"),
        assets: Fixtures.answer("portfolio", "assets"),
        products: Fixtures.answer("portfolio", "products"),
        product: Fixtures.answer("portfolio", "product"),
        importActivities: { request in
            // The recorded masterdata's assets are known; the preview is the real reader's, and nothing is ever written.
            let known = Set(try Fixtures.load("portfolio", "assets", as: Masterdata.self).assets.map { $0.symbol.uppercased() })
            let file = ActivityImport.read(request.content, format: request.format, knownAssets: known, now: Date(),
                                           portfolio: try PortfolioNames.validate(request.portfolio))
            let lines = file.lines.map { ImportLine(line: $0.line, status: $0.errors.isEmpty ? .new : .error, activity: $0.request, errors: $0.errors) }
            return ImportPreview(format: request.format, dryRun: request.dryRun ?? true, written: false, new: lines.count { $0.status == .new },
                                 duplicates: 0, errors: lines.count { $0.status == .error }, fileErrors: file.errors, lines: lines)
        },
        exportActivities: { request in
            let trades = try recordedTrades(request.portfolio)
            return ExportedActivities(format: request.format, activities: trades.count,
                                      content: ActivityExport.write(trades, format: request.format, now: Date(timeIntervalSince1970: 0)))
        },
        health: Fixtures.answer("portfolio", "health"),
        changes: { .recorded { [] } })

    /// A portfolio that runs the real one's ``PortfolioState`` in memory: trades are validated, recorded
    /// once per request id and valued with `converter`'s prices; wallets and products come from
    /// `fetcher`'s masterdata and transactions; every change is published. By default over
    /// ``RatesFetcherClient/mock(seed:interval:)`` and a ``ConverterClient/mock(fetcher:currencies:logger:)`` of it.
    public static func mock(
        fetcher: RatesFetcherClient = .mock(), converter: ConverterClient? = nil,
        logger: Logger = Logger(label: "tickwire.mock-portfolio"), now: @escaping @Sendable () -> Date = { Date() }
    ) -> Self {
        let converter = converter ?? .mock(fetcher: fetcher)
        let portfolio = MockPortfolio()
        let state = PortfolioState(
            store: .memory(), total: converter.total, publish: portfolio.publish, logger: logger, now: now,
            history: PriceHistorySource.make(history: fetcher.history, convertSeries: converter.convertSeries))
        let documents = fetcher.updates([.assets, .wallets, .transactions])
        let prices = converter.prices()
        portfolio.loops.follow(
            Task { [weak portfolio] in
                for await event in documents {
                    await state.applyFetcher(event)
                    if case .snapshot = event { portfolio?.synchronized.open() }
                }
            },
            Task { await state.follow(prices: prices) })
        /// `body`'s answer once the masterdata came (or five seconds passed), with the errors the service answers.
        @Sendable func answer<T>(_ body: () async throws -> T) async throws -> T {
            await portfolio.synchronized.wait(atMost: .seconds(5))
            return try await RPCError.answering(body)
        }
        return Self(
            addTrade: { request in try await answer { try await state.addTrade(request) } },
            editTrade: { request in try await answer { try await state.editTrade(request) } },
            removeTrade: { request in try await answer { try await state.removeTrade(request) } },
            trades: { request in try await answer { try await state.trades(request) } },
            tradeHistory: { request in try await answer { try await state.tradeHistory(request) } },
            portfolios: { try await answer { try await state.portfolios() } },
            holdings: { request in try await answer { try await state.holdings(request) } },
            gains: { request in try await answer { try await state.gains(request) } },
            performance: { request in try await answer { try await state.performance(request) } },
            watch: { request in try await answer { try await state.watch(request) } },
            unwatch: { request in try await answer { try await state.unwatch(request) } },
            watchlist: { try await answer { try await state.watchlist() } },
            wallets: { try await answer { try await state.wallets() } },
            assets: { try await answer { await state.assets() } },
            products: { try await answer { try await state.products() } },
            product: { request in try await answer { try await state.product(request) } },
            importActivities: { request in try await answer { try await state.importActivities(request) } },
            exportActivities: { request in try await answer { try await state.exportActivities(request) } },
            health: {
                Health(service: "portfolio", started: portfolio.started,
                       upstreams: ["rates-fetcher": await state.fetcher, "converter": await state.converterStream])
            },
            changes: { portfolio.broadcast.stream { portfolio.lastChange() } })
    }
}

/// The recorded `trades.list`'s trades of portfolio `name` (`main` when nil).
private func recordedTrades(_ name: String?) throws -> [Trade] {
    let portfolio = try PortfolioNames.validate(name)
    return try Fixtures.load("portfolio", "trades.list", as: [Trade].self).filter { $0.portfolio == portfolio }
}

/// The recorded `holdings` if portfolio `name` (`main` when nil) holds the recorded trades, else its valuation of no activities.
private func recordedValuation(_ name: String?) throws -> Valuation {
    let valuation = try Fixtures.load("portfolio", "holdings", as: Valuation.self)
    guard try recordedTrades(name).isEmpty else { return valuation }
    return try Valuations.valuation(activities: [], prices: [:], currency: try Currency(code: valuation.currency), converted: [:],
                                    offline: valuation.offline, now: valuation.pricesAsOf ?? Date(timeIntervalSince1970: 0))
}

/// The first trade of the recorded `trades.list`.
private func firstRecordedTrade() throws -> Trade {
    guard let first = try Fixtures.load("portfolio", "trades.list", as: [Trade].self).first else {
        throw RPCError.internalError("no recorded trade")
    }
    return first
}

/// What a mock portfolio keeps besides its ``PortfolioState``: its change stream and the loops that follow its upstreams.
final class MockPortfolio: Sendable {
    let broadcast = Broadcast<PortfolioChange>()
    let synchronized = Gate()
    let started = Date()
    private let last = Mutex<StreamUpdate<PortfolioChange>?>(nil)
    /// The loops that follow its upstreams, ended when it goes.
    let loops = Loops()

    /// Publishes a change on `portfolio.changed`, as the service does.
    @Sendable func publish(_ change: PortfolioChange) {
        let update = last.withLock { last in
            let update = StreamUpdate(topic: Topics.portfolioChanged.topic, seq: (last?.seq ?? 0) + 1, time: Date(), source: "portfolio", value: change)
            last = update
            return update
        }
        broadcast.send(.update(update))
    }

    /// The last change, as the service's snapshot holds it.
    func lastChange() -> [StreamUpdate<PortfolioChange>] { last.withLock { $0.map { [$0] } ?? [] } }
}
