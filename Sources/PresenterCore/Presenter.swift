import Bus
import PresenterViews
import TickwireClients
import Foundation
import Hummingbird
import Logging
import TickwireContract
import ServiceLifecycle
import ServiceSupport
import BusContract

/// The presenter's settings.
public struct PresenterConfiguration: Sendable {
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// The dashboard's address, e.g. `http://127.0.0.1:8080`.
    public var http: String
    /// Where the icons served under `/icons/` come from (``IconSource/none``: monograms only, no network).
    public var icons: IconSource
    /// The directory fetched icons are kept in, or nil to keep them in memory only.
    public var iconCache: String?
    /// The most the icon directory may hold, in bytes.
    public var iconCacheBytes: Int
    /// The dashboard's login token and request limits.
    public var security: DashboardSecurity
    /// Serve the dashboard on an address others can reach even without a token (`--insecure`).
    public var insecure: Bool

    /// A configuration.
    public init(
        rep: String, http: String, icons: IconSource = .none, iconCache: String? = nil, iconCacheBytes: Int = 4 << 20,
        security: DashboardSecurity = DashboardSecurity(), insecure: Bool = false
    ) {
        self.rep = rep
        self.http = http
        self.icons = icons
        self.iconCache = iconCache
        self.iconCacheBytes = iconCacheBytes
        self.security = security
        self.insecure = insecure
    }

    /// The HTTP host and port; only `http://host:port` is accepted.
    public func httpAddress() throws -> (host: String, port: Int) {
        guard let url = URL(string: http), url.scheme == "http", let host = url.host, let port = url.port, (0...65535).contains(port) else {
            throw RPCError.invalidParams("the HTTP address must look like http://127.0.0.1:8080, got \"\(http)\"")
        }
        return (host, port)
    }
}

/// The presenter's clients of the other services.
public struct PresenterUpstreams: Sendable {
    /// The portfolio: valuations, trades, the watch list, wallets, products.
    public var portfolio: PortfolioClient
    /// The converter: prices in display currencies.
    public var converter: ConverterClient
    /// rates-fetcher: quotes, books, coins, feed status, masterdata, history.
    public var fetcher: RatesFetcherClient
    /// The plugins whose pages the dashboard shows while they answer (and misses nothing else when they do not).
    public var plugins: [PluginUpstream]

    /// The upstreams.
    public init(portfolio: PortfolioClient, converter: ConverterClient, fetcher: RatesFetcherClient, plugins: [PluginUpstream] = []) {
        self.portfolio = portfolio
        self.converter = converter
        self.fetcher = fetcher
        self.plugins = plugins
    }
}

/// The presenter: display-ready views over REP (`view`) and HTTP, and the web dashboard.
public enum Presenter {
    /// The services of one presenter process.
    public static func services(_ configuration: PresenterConfiguration, upstreams: PresenterUpstreams, runtime: Runtime) throws -> [any Service] {
        let address = try configuration.httpAddress()
        try configuration.security.checkExposure(host: address.host, insecure: configuration.insecure)
        let icons = IconStore(
            source: configuration.icons, directory: configuration.iconCache.map { URL(fileURLWithPath: $0, isDirectory: true) },
            maxBytes: configuration.iconCacheBytes)
        let core = Core(upstreams: upstreams, runtime: runtime, icons: icons, security: configuration.security)
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: core.methods)
        runtime.logger.info("dashboard", metadata: ["url": "\(configuration.http)"])
        return [server] + core.followers + [
            core.web.application(host: address.host, port: address.port),
            // Last in the list, so first to hear of a graceful shutdown: it ends the live price
            // streams, which the HTTP server would otherwise wait on for ever.
            LoopService {
                await every(.seconds(15), logger: runtime.logger) { core.broadcast.keepalive() }
                core.broadcast.close()
            },
        ]
    }

    /// Everything of a presenter but its sockets: what the services run, and what tests drive in process.
    struct Core {
        let state: PresenterState
        let broadcast: PriceBroadcast
        let watch: StateWatch
        let plugins: Plugins
        let builder: ScreenBuilder
        let screens: Screens
        let web: WebServer
        let methods: RPCMethods
        /// The loops that follow the upstreams' streams, and the watch that tells the pages what changed.
        let followers: [any Service]

        init(upstreams: PresenterUpstreams, runtime: Runtime, icons: IconStore = IconStore(), security: DashboardSecurity = DashboardSecurity()) {
            let broadcast = PriceBroadcast()
            self.broadcast = broadcast
            let state = PresenterState(logger: runtime.logger, onPrice: { broadcast.send($0) })
            self.state = state
            let watch = StateWatch(state: state, broadcast: broadcast)
            self.watch = watch
            let plugins = Plugins(upstreams.plugins, broadcast: broadcast, logger: runtime.logger)
            self.plugins = plugins
            let builder = ScreenBuilder(state: state, sources: ViewSources(portfolio: upstreams.portfolio, fetcher: upstreams.fetcher, converter: upstreams.converter))
            self.builder = builder
            screens = Screens(builder: builder)
            var methods = runtime.standardMethods(publisher: nil) {
                plugins.health(Health(service: runtime.service, started: runtime.started, upstreams: await state.streams))
            }
            methods.register(PresenterAPI.view) { try await builder.view($0) }
            self.methods = methods
            web = WebServer(screens: screens, state: state, broadcast: broadcast, watch: watch, plugins: plugins, portfolio: upstreams.portfolio, fetcher: upstreams.fetcher, icons: icons, runtime: runtime, security: security)
            let fetcherUpdates = upstreams.fetcher.updates([.quote, .book, .depth, .trade, .coin, .status, .assets, .wallets, .rate])
            let prices = upstreams.converter.prices()
            let changes = upstreams.portfolio.changes()
            // Without plugins there is nothing to poll, and a loop that returned would end the presenter.
            followers = (upstreams.plugins.isEmpty ? [] : [LoopService { await plugins.run() }]) + [
                LoopService { await state.follow(fetcher: fetcherUpdates) },
                LoopService {
                    // Each price is applied in a span of the trace it came in, so the SSE events it makes go on in it.
                    await state.follow(prices: prices) { trace, apply in TraceContext.withSpan("price", continuing: trace, apply) }
                },
                LoopService {
                    // A change (a trade) is taken in in a span of its trace: the pages it tells to reload go on in it.
                    await state.follow(portfolio: changes) { trace, apply in
                        TraceContext.withSpan("portfolio.changed", continuing: trace, apply)
                    } changed: { change in
                        broadcast.send(changed: [StateWatch.kind(of: change)])
                    }
                },
                LoopService { await watch.run() },
            ]
        }
    }
}
