import Bus
import Foundation
import Hummingbird
import Logging
import Messages
import ServiceLifecycle
import ServiceSupport

/// The presenter's settings.
public struct PresenterConfiguration: Sendable {
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// The dashboard's address, e.g. `http://127.0.0.1:8080`.
    public var http: String
    /// rates-fetcher's stream and JSON-RPC.
    public var fetcherPub: String, fetcherRep: String
    /// The converter's stream and JSON-RPC.
    public var converterPub: String, converterRep: String
    /// The portfolio's stream and JSON-RPC.
    public var portfolioPub: String, portfolioRep: String

    /// A configuration.
    public init(rep: String, http: String, fetcherPub: String, fetcherRep: String, converterPub: String, converterRep: String,
                portfolioPub: String, portfolioRep: String) {
        self.rep = rep
        self.http = http
        self.fetcherPub = fetcherPub
        self.fetcherRep = fetcherRep
        self.converterPub = converterPub
        self.converterRep = converterRep
        self.portfolioPub = portfolioPub
        self.portfolioRep = portfolioRep
    }

    /// The HTTP host and port; only `http://host:port` is accepted.
    public func httpAddress() throws -> (host: String, port: Int) {
        guard let url = URL(string: http), url.scheme == "http", let host = url.host, let port = url.port, (0...65535).contains(port) else {
            throw RPCError.invalidParams("the HTTP address must look like http://127.0.0.1:8080, got \"\(http)\"")
        }
        return (host, port)
    }
}

/// The presenter: display-ready views over REP (`view`) and HTTP, and the web dashboard.
public enum Presenter {
    /// The services of one presenter process.
    public static func services(_ configuration: PresenterConfiguration, runtime: Runtime) throws -> [any Service] {
        let address = try configuration.httpAddress()
        let broadcast = PriceBroadcast()
        let state = PresenterState(logger: runtime.logger, priceUpdates: broadcast)
        let portfolio = try runtime.client(configuration.portfolioRep)
        let fetcher = try runtime.client(configuration.fetcherRep, timeout: .seconds(5))
        let screens = Screens(state: state, portfolio: portfolio, fetcher: fetcher)
        let subscribers = [
            ("rates-fetcher", try runtime.subscriber(of: "rates-fetcher", pub: configuration.fetcherPub, rep: configuration.fetcherRep,
                                                     prefixes: ["quote.", "book.", "coin.", "status.", "assets.", "wallets."])),
            ("converter", try runtime.subscriber(of: "converter", pub: configuration.converterPub, rep: configuration.converterRep,
                                                 prefixes: ["price."])),
            ("portfolio", try runtime.subscriber(of: "portfolio", pub: configuration.portfolioPub, rep: configuration.portfolioRep,
                                                 prefixes: ["portfolio."])),
        ]
        var methods = runtime.standardMethods(publisher: nil) {
            Health(service: runtime.service, started: runtime.started, upstreams: await state.streams)
        }
        methods.register("view", params: ViewRequest.self) { request in
            let context = try ViewContext.resolve(locale: request.locale, acceptLanguage: nil, currency: request.currency, now: Date())
            return try await screens.screen(request.screen, parameters: request.parameters, context: context).view
        }
        let server = try RPCServer(context: runtime.context, service: runtime.service, endpoints: [configuration.rep], methods: methods, logger: runtime.logger)
        let web = WebServer(screens: screens, state: state, broadcast: broadcast, portfolio: portfolio, fetcher: fetcher, runtime: runtime)
        runtime.logger.info("dashboard", metadata: ["url": "\(configuration.http)"])
        return [server] + subscribers.map { $0.1 as any Service } + subscribers.map { name, subscriber in
            LoopService { await state.follow(subscriber.events, from: name) }
        } + [
            web.application(host: address.host, port: address.port),
            // Last in the list, so first to hear of a graceful shutdown: it ends the live price
            // streams, which the HTTP server would otherwise wait on for ever.
            LoopService {
                await every(.seconds(15), logger: runtime.logger) { broadcast.keepalive() }
                broadcast.close()
            },
        ]
    }
}
