import ArgumentParser
import AsyncHTTPClient
import Feeds
import Foundation
import PresenterCore
import ServiceSupport
import TickwireClients
import TickwireStack

/// `presenter`: display-ready views and the web dashboard.
@main
struct PresenterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presenter",
        abstract: "Serves display-ready views over ZeroMQ and HTTP, and the live web dashboard.",
        version: buildVersion)

    @Option(help: .init(DefaultEndpoint.presenterRep.help("JSON-RPC endpoint to bind")))
    var rep: String?
    @Option(help: .init(DefaultEndpoint.presenterHTTP.help("dashboard address to listen on")))
    var http: String?
    @OptionGroup var fetcher: FetcherEndpoints
    @OptionGroup var converter: ConverterEndpoints
    @OptionGroup var portfolio: PortfolioEndpoints
    @Option(name: .customLong("plugin"), help: .init(
        "A plugin whose page the dashboard shows while it answers, as NAME=REP[,PUB] (its JSON-RPC and stream endpoints); "
            + "repeatable (env \(PluginEndpoint.environmentVariable), entries separated by spaces)",
        valueName: "NAME=REP[,PUB]"))
    var plugins: [String] = []
    @Option(help: "Asset icons: 'monogram' draws each one (no network, the default), 'live' fetches the masterdata's and CoinGecko's once")
    var icons: IconMode = .monogram
    @Option(name: .customLong("icon-cache"), help: "Directory fetched icons are kept in (with --icons live); default: memory only")
    var iconCache: String?
    @Option(name: .customLong("icon-cache-bytes"), help: "The most the icon directory may hold, in bytes")
    var iconCacheBytes: Int = 4 << 20
    @Option(name: .customLong("dashboard-token"), help: "Require this token to use the dashboard: a login form, or Authorization: Bearer (env TICKWIRE_DASHBOARD_TOKEN)")
    var dashboardToken: String?
    @OptionGroup var common: CommonOptions

    /// Where icons come from.
    enum IconMode: String, ExpressibleByArgument, CaseIterable {
        case monogram, live
    }

    func validate() throws {
        guard iconCacheBytes > 0 else { throw ValidationError("--icon-cache-bytes must be positive, got \(iconCacheBytes)") }
        do {
            _ = try PluginEndpoint.parse(flags: plugins)
        } catch {
            throw ValidationError("\(plugins.isEmpty ? PluginEndpoint.environmentVariable : "--plugin"): \(error)")
        }
    }

    func run() async throws {
        // Memory (README "Memory"): malloc's arena limit before threads allocate, one NIO event loop.
        let arenas = MemoryTuning.limitArenas()
        MemoryTuning.singleEventLoop()
        let runtime = try Runtime.bootstrap(service: "presenter", options: common)
        arenas.report(to: runtime.logger)
        let connection = try runtime.connection()
        let plugins = try PluginEndpoint.parse(flags: plugins).map { plugin in
            PluginUpstream(name: plugin.name, client: try .live(connection, name: plugin.name, rep: plugin.rep, pub: plugin.pub))
        }
        let upstreams = PresenterUpstreams(
            portfolio: try .live(connection, rep: portfolio.repEndpoint, pub: portfolio.pubEndpoint),
            converter: try .live(connection, rep: converter.repEndpoint, pub: converter.pubEndpoint),
            fetcher: try .live(connection, rep: fetcher.repEndpoint, pub: fetcher.pubEndpoint),
            plugins: plugins)
        try await runtime.run([MemoryTuning.releaseAfterStartUp()] + Presenter.services(PresenterConfiguration(
            rep: DefaultEndpoint.presenterRep.resolve(rep),
            http: DefaultEndpoint.presenterHTTP.resolve(http),
            icons: icons == .live ? IconSource(fetch: IconClient.live(http: HTTPClient.shared, logger: runtime.logger).icon) : .none,
            iconCache: iconCache, iconCacheBytes: iconCacheBytes,
            security: DashboardSecurity(token: Setting.resolve(dashboardToken, environmentVariable: "TICKWIRE_DASHBOARD_TOKEN")),
            insecure: try common.insecureAllowed
        ), upstreams: upstreams, runtime: runtime))
    }
}
