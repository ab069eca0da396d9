import Bus
import PortfolioEngine
import TickwireClients
import TickwireStack
import Foundation
import Logging
import Market
import TickwireContract
import ServiceLifecycle
import ServiceSupport
import BusContract

/// The portfolio's settings.
public struct PortfolioConfiguration: Sendable {
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// Where its change stream binds.
    public var pub: String
    /// How `holdings` and `gains` take the cost of units sold, unless a request names its method.
    public var costBasis: CostBasisMethod

    /// A configuration.
    public init(rep: String, pub: String, costBasis: CostBasisMethod = .fifo) {
        self.rep = rep
        self.pub = pub
        self.costBasis = costBasis
    }
}

/// The portfolio: activities (trades) and their history, holdings, gains, the watch list, wallets and GNB products.
public enum Portfolio {
    /// The services of one portfolio process, with its store, following `fetcher` and `converter`.
    public static func services(
        _ configuration: PortfolioConfiguration, store: PortfolioStore, converter: ConverterClient, fetcher: RatesFetcherClient,
        runtime: Runtime, now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> [any Service] {
        let publisher = try runtime.publisher(binding: [configuration.pub])
        let logger = runtime.logger
        // A change is published (and logged) in the span of the request that made it: `portfolio.changed` carries its trace.
        let state = PortfolioState(store: store, total: converter.total, publish: { change in
            try publisher.publish(change, on: Topics.portfolioChanged)
            logger.info("\(change.reason.replacingOccurrences(of: ".", with: " "))", metadata: ["id": "\(change.subject)"])
        }, logger: logger, now: now, costBasis: configuration.costBasis,
        history: PriceHistorySource.make(history: fetcher.history, convertSeries: converter.convertSeries))
        try await state.restore()
        let methods = methods(state, standard: runtime.standardMethods(publisher: publisher) {
            Health(service: runtime.service, started: runtime.started,
                   upstreams: ["rates-fetcher": await state.fetcher, "converter": await state.converterStream])
        })
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods)
        let documents = fetcher.updates([.assets, .wallets, .transactions])
        let prices = converter.prices()
        return [
            publisher, server,
            LoopService { await state.follow(fetcher: documents) },
            LoopService {
                // Each price is taken in in a span of the trace it came in (the quote's, through the converter).
                await state.follow(prices: prices) { trace, take in TraceContext.withSpan("price", continuing: trace, take) }
            },
            LoopService { await every(.seconds(1), logger: logger) { try await state.savePrices() } },
        ]
    }

    /// `standard` and the portfolio's own methods, answered by `state`: what its server serves, and what
    /// in-process tests call through `LocalRPC`.
    public static func methods(_ state: PortfolioState, standard: RPCMethods = RPCMethods()) -> RPCMethods {
        var methods = standard
        methods.register(PortfolioAPI.addTrade) { try await state.addTrade($0) }
        methods.register(PortfolioAPI.editTrade) { try await state.editTrade($0) }
        methods.register(PortfolioAPI.removeTrade) { try await state.removeTrade($0) }
        methods.register(PortfolioAPI.trades) { try await state.trades($0) }
        methods.register(PortfolioAPI.tradeHistory) { try await state.tradeHistory($0) }
        methods.register(PortfolioAPI.portfolios) { try await state.portfolios() }
        methods.register(PortfolioAPI.holdings) { try await state.holdings($0) }
        methods.register(PortfolioAPI.gains) { try await state.gains($0) }
        methods.register(PortfolioAPI.performance) { try await state.performance($0) }
        methods.register(PortfolioAPI.watch) { try await state.watch($0) }
        methods.register(PortfolioAPI.unwatch) { try await state.unwatch($0) }
        methods.register(PortfolioAPI.watchlist) { try await state.watchlist() }
        methods.register(PortfolioAPI.wallets) { try await state.wallets() }
        methods.register(PortfolioAPI.assets) { await state.assets() }
        methods.register(PortfolioAPI.products) { try await state.products() }
        methods.register(PortfolioAPI.product) { try await state.product($0) }
        methods.register(PortfolioAPI.importActivities) { try await state.importActivities($0) }
        methods.register(PortfolioAPI.exportActivities) { try await state.exportActivities($0) }
        return methods
    }
}

extension PortfolioConfiguration {
    /// The cost basis method asked for by `--cost-basis` or `TICKWIRE_PORTFOLIO_COST_BASIS`: `fifo` (the default) or
    /// `average`, letter case aside.
    public static func costBasis(
        _ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(CostBasisSettingError) -> CostBasisMethod {
        let text = Setting.resolve(flag, environmentVariable: "TICKWIRE_PORTFOLIO_COST_BASIS", default: "fifo", environment: environment)
        guard let method = CostBasisMethod(rawValue: text.lowercased()) else {
            throw CostBasisSettingError(message: "--cost-basis (env TICKWIRE_PORTFOLIO_COST_BASIS) must be one of "
                + "\(CostBasisMethod.allCases.map(\.rawValue).joined(separator: ", ")); got \(text.debugDescription)")
        }
        return method
    }
}

/// A `--cost-basis` that names no method.
public struct CostBasisSettingError: Error, Equatable {
    /// What is wrong, naming the flag, its variable and the methods.
    public let message: String
}
