import Bus
import PortfolioEngine
import TickwireClients
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

    /// A configuration.
    public init(rep: String, pub: String) {
        self.rep = rep
        self.pub = pub
    }
}

/// The portfolio: trades, holdings and valuations, the watch list, wallets and GNB products.
public enum Portfolio {
    /// The services of one portfolio process, with its store, following `fetcher` and `converter`.
    public static func services(
        _ configuration: PortfolioConfiguration, store: PortfolioStore, converter: ConverterClient, fetcher: RatesFetcherClient,
        runtime: Runtime, now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> [any Service] {
        let publisher = try runtime.publisher(binding: [configuration.pub])
        let state = PortfolioState(store: store, total: converter.total, publish: { change in
            try publisher.publish(change, on: Topics.portfolioChanged)
        }, logger: runtime.logger, now: now)
        try await state.restore()
        let methods = methods(state, standard: runtime.standardMethods(publisher: publisher) {
            Health(service: runtime.service, started: runtime.started,
                   upstreams: ["rates-fetcher": await state.fetcher, "converter": await state.converterStream])
        })
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods)
        let logger = runtime.logger
        let documents = fetcher.updates([.assets, .wallets, .transactions])
        let prices = converter.prices()
        return [
            publisher, server,
            LoopService { await state.follow(fetcher: documents) },
            LoopService { await state.follow(prices: prices) },
            LoopService { await every(.seconds(1), logger: logger) { try await state.savePrices() } },
        ]
    }

    /// `standard` and the portfolio's own methods, answered by `state`: what its server serves, and what
    /// in-process tests call through `LocalRPC`.
    public static func methods(_ state: PortfolioState, standard: RPCMethods = RPCMethods()) -> RPCMethods {
        var methods = standard
        methods.register(PortfolioAPI.addTrade) { try await state.addTrade($0) }
        methods.register(PortfolioAPI.removeTrade) { try await state.removeTrade($0) }
        methods.register(PortfolioAPI.trades) { try await state.trades() }
        methods.register(PortfolioAPI.holdings) { try await state.holdings($0) }
        methods.register(PortfolioAPI.watch) { try await state.watch($0) }
        methods.register(PortfolioAPI.unwatch) { try await state.unwatch($0) }
        methods.register(PortfolioAPI.watchlist) { try await state.watchlist() }
        methods.register(PortfolioAPI.wallets) { try await state.wallets() }
        methods.register(PortfolioAPI.assets) { await state.assets() }
        methods.register(PortfolioAPI.products) { try await state.products() }
        methods.register(PortfolioAPI.product) { try await state.product($0) }
        return methods
    }
}
