import Bus
import Foundation
import Logging
import Market
import Messages
import ServiceLifecycle
import ServiceSupport

/// The portfolio's settings.
public struct PortfolioConfiguration: Sendable {
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// Where its change stream binds.
    public var pub: String
    /// rates-fetcher's stream and JSON-RPC.
    public var fetcherPub: String, fetcherRep: String
    /// The converter's stream and JSON-RPC.
    public var converterPub: String, converterRep: String

    /// A configuration.
    public init(rep: String, pub: String, fetcherPub: String, fetcherRep: String, converterPub: String, converterRep: String) {
        self.rep = rep
        self.pub = pub
        self.fetcherPub = fetcherPub
        self.fetcherRep = fetcherRep
        self.converterPub = converterPub
        self.converterRep = converterRep
    }
}

/// The portfolio: trades, holdings and valuations, the watch list, wallets and GNB products.
public enum Portfolio {
    /// The services of one portfolio process, with its store.
    public static func services(
        _ configuration: PortfolioConfiguration, store: PortfolioStore, runtime: Runtime,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> [any Service] {
        let publisher = try Publisher(context: runtime.context, service: runtime.service, endpoints: [configuration.pub], logger: runtime.logger)
        let converter = try runtime.client(configuration.converterRep)
        let state = PortfolioState(store: store, converter: converter, publisher: publisher, logger: runtime.logger, now: now)
        try await state.restore()
        let fetcher = try runtime.subscriber(
            of: "rates-fetcher", pub: configuration.fetcherPub, rep: configuration.fetcherRep,
            prefixes: ["assets.", "wallets.", "transactions."])
        let prices = try runtime.subscriber(
            of: "converter", pub: configuration.converterPub, rep: configuration.converterRep, prefixes: ["price."])
        var methods = runtime.standardMethods(publisher: publisher) {
            Health(service: runtime.service, started: runtime.started,
                   upstreams: ["rates-fetcher": await state.fetcher, "converter": await state.converterStream])
        }
        methods.register("trades.add", params: AddTradeRequest.self) { try await state.addTrade($0) }
        methods.register("trades.remove", params: RemoveTradeRequest.self) { try await state.removeTrade($0) }
        methods.register("trades.list") { try await state.trades() }
        methods.register("holdings", params: HoldingsRequest.self) { try await state.holdings($0) }
        methods.register("watchlist.add", params: WatchlistRequest.self) { try await state.watch($0) }
        methods.register("watchlist.remove", params: WatchlistRequest.self) { try await state.unwatch($0) }
        methods.register("watchlist.list") { try await state.watchlist() }
        methods.register("wallets") { try await state.wallets() }
        methods.register("assets") { await state.assets() }
        methods.register("products") { try await state.products() }
        methods.register("product", params: ProductRequest.self) { try await state.product($0) }
        let server = try RPCServer(context: runtime.context, service: runtime.service, endpoints: [configuration.rep], methods: methods, logger: runtime.logger)
        let logger = runtime.logger
        return [
            publisher, server, fetcher, prices,
            LoopService { for await event in fetcher.events { await state.applyFetcher(event) } },
            LoopService { for await event in prices.events { await state.applyConverter(event) } },
            LoopService { await every(.seconds(1), logger: logger) { try await state.savePrices() } },
        ]
    }
}
