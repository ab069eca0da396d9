import ArgumentParser
import Foundation
import PortfolioCore
import PortfolioEngine
import PortfolioPostgres
import PostgresNIO
import ServiceSupport
import TickwireClients
import TickwireStack

/// `portfolio`: durable activities (buys, sells, fees, transfers) with their history, holdings and gains, watch list,
/// wallets and product sales.
@main
struct PortfolioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "portfolio",
        abstract: "Keeps activities and the watch list in SQLite or PostgreSQL, values holdings and gains, groups wallets and totals product sales.",
        version: buildVersion)

    @Option(help: .init(DefaultEndpoint.portfolioRep.help("JSON-RPC endpoint to bind")))
    var rep: String?
    @Option(help: .init(DefaultEndpoint.portfolioPub.help("change stream endpoint to bind")))
    var pub: String?
    @OptionGroup var fetcher: FetcherEndpoints
    @OptionGroup var converter: ConverterEndpoints
    @Option(help: "SQLite file, :memory:, or a PostgreSQL database as postgres://user:password@host:port/database (env TICKWIRE_DATABASE; default $XDG_DATA_HOME/tickwire/portfolio.sqlite)")
    var database: String?
    @Option(name: .customLong("cost-basis"), help: "fifo|average: how holdings and gains take the cost of units sold, unless a request names its method (env TICKWIRE_PORTFOLIO_COST_BASIS; default fifo)")
    var costBasis: String?
    @OptionGroup var common: CommonOptions

    func validate() throws {
        do {
            _ = try PortfolioConfiguration.costBasis(costBasis)
        } catch {
            throw ValidationError(error.message)
        }
        _ = try postgresURL()
    }

    /// The `--database` setting: the flag, else TICKWIRE_DATABASE, else the SQLite file under $XDG_DATA_HOME.
    private var databaseSetting: String {
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return Setting.resolve(database, environmentVariable: "TICKWIRE_DATABASE",
                               default: dataHome.appendingPathComponent("tickwire/portfolio.sqlite").path)
    }

    /// The PostgreSQL database `--database` names, nil for SQLite; a bad URL is an error naming the flag and its variable.
    private func postgresURL() throws -> PostgresDatabaseURL? {
        guard PostgresDatabaseURL.isPostgres(databaseSetting) else { return nil }
        do {
            return try PostgresDatabaseURL(databaseSetting)
        } catch {
            throw ValidationError("--database (env TICKWIRE_DATABASE) is not a usable PostgreSQL URL: \(error.reason)")
        }
    }

    func run() async throws {
        // Memory (README "Memory"): malloc's arena limit before threads allocate, one NIO event loop.
        let arenas = MemoryTuning.limitArenas()
        MemoryTuning.singleEventLoop()
        let runtime = try Runtime.bootstrap(service: "portfolio", options: common)
        arenas.report(to: runtime.logger)
        guard let url = try postgresURL() else {
            let path = databaseSetting
            let store = path == ":memory:" ? try PortfolioStore.inMemory() : try PortfolioStore.live(path: path)
            runtime.logger.info("portfolio database", metadata: ["path": "\(path)"])
            return try await serve(store, runtime: runtime)
        }
        // The client runs for as long as the services do, and stops after them: the store is read (restored) before
        // the services start, so the client cannot wait for the service group.
        runtime.logger.info("portfolio database", metadata: ["postgres": "\(url)"])
        let client = PostgresClient(configuration: url.configuration, backgroundLogger: runtime.logger)
        try await withThrowingDiscardingTaskGroup { group in
            group.addTask { await client.run() }
            let store = try await PortfolioStore.postgres(client: client, logger: runtime.logger, waitingUpTo: .seconds(30))
            try await serve(store, runtime: runtime)
            group.cancelAll()
        }
    }

    /// Serves the portfolio from `store` until SIGTERM or SIGINT.
    private func serve(_ store: PortfolioStore, runtime: Runtime) async throws {
        let connection = try runtime.connection()
        let converterClient = try ConverterClient.live(connection, rep: converter.repEndpoint, pub: converter.pubEndpoint)
        let fetcherClient = try RatesFetcherClient.live(connection, rep: fetcher.repEndpoint, pub: fetcher.pubEndpoint)
        try await runtime.run([MemoryTuning.releaseAfterStartUp()] + Portfolio.services(PortfolioConfiguration(
            rep: DefaultEndpoint.portfolioRep.resolve(rep),
            pub: DefaultEndpoint.portfolioPub.resolve(pub),
            costBasis: try PortfolioConfiguration.costBasis(costBasis)
        ), store: store, converter: converterClient, fetcher: fetcherClient, runtime: runtime))
    }
}
