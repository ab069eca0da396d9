import ArgumentParser
import Foundation
import PortfolioCore
import PortfolioEngine
import ServiceSupport
import TickwireClients

/// `portfolio`: durable activities (buys, sells, fees, transfers) with their history, holdings and gains, watch list,
/// wallets and product sales.
@main
struct PortfolioCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "portfolio",
        abstract: "Keeps activities and the watch list in SQLite, values holdings and gains, groups wallets and totals product sales.",
        version: buildVersion)

    @Option(help: .init(DefaultEndpoint.portfolioRep.help("JSON-RPC endpoint to bind")))
    var rep: String?
    @Option(help: .init(DefaultEndpoint.portfolioPub.help("change stream endpoint to bind")))
    var pub: String?
    @OptionGroup var fetcher: FetcherEndpoints
    @OptionGroup var converter: ConverterEndpoints
    @Option(help: "SQLite file, or :memory: (env TICKWIRE_DATABASE; default $XDG_DATA_HOME/tickwire/portfolio.sqlite)")
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
    }

    func run() async throws {
        let runtime = try Runtime.bootstrap(service: "portfolio", options: common)
        let environment = ProcessInfo.processInfo.environment
        let dataHome = environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        let path = Setting.resolve(database, environmentVariable: "TICKWIRE_DATABASE",
                                   default: dataHome.appendingPathComponent("tickwire/portfolio.sqlite").path)
        let store = path == ":memory:" ? try PortfolioStore.inMemory() : try PortfolioStore.live(path: path)
        runtime.logger.info("portfolio database", metadata: ["path": "\(path)"])
        let connection = try runtime.connection()
        let converterClient = try ConverterClient.live(connection, rep: converter.repEndpoint, pub: converter.pubEndpoint)
        let fetcherClient = try RatesFetcherClient.live(connection, rep: fetcher.repEndpoint, pub: fetcher.pubEndpoint)
        try await runtime.run(Portfolio.services(PortfolioConfiguration(
            rep: DefaultEndpoint.portfolioRep.resolve(rep),
            pub: DefaultEndpoint.portfolioPub.resolve(pub),
            costBasis: try PortfolioConfiguration.costBasis(costBasis)
        ), store: store, converter: converterClient, fetcher: fetcherClient, runtime: runtime))
    }
}
