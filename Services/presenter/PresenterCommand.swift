import ArgumentParser
import PresenterCore
import ServiceSupport

/// `presenter`: display-ready views and the web dashboard.
@main
struct PresenterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "presenter",
        abstract: "Serves display-ready views over ZeroMQ and HTTP, and the live web dashboard.")

    @Option(help: .init(DefaultEndpoint.presenterRep.help("JSON-RPC endpoint to bind")))
    var rep: String?
    @Option(help: .init(DefaultEndpoint.presenterHTTP.help("dashboard address to listen on")))
    var http: String?
    @OptionGroup var fetcher: FetcherEndpoints
    @OptionGroup var converter: ConverterEndpoints
    @OptionGroup var portfolio: PortfolioEndpoints
    @Option(name: .customLong("alerts-rep"), help: .init(DefaultEndpoint.priceAlertsRep.help("price-alerts' JSON-RPC")))
    var alertsRep: String?
    @Option(name: .customLong("alerts-pub"), help: .init(DefaultEndpoint.priceAlertsPub.help("price-alerts' alert stream")))
    var alertsPub: String?
    @OptionGroup var common: CommonOptions

    func run() async throws {
        let runtime = try Runtime.bootstrap(service: "presenter", logLevel: common.level)
        let connection = try runtime.connection()
        let upstreams = PresenterUpstreams(
            portfolio: try .live(connection, rep: portfolio.repEndpoint, pub: portfolio.pubEndpoint),
            converter: try .live(connection, rep: converter.repEndpoint, pub: converter.pubEndpoint),
            fetcher: try .live(connection, rep: fetcher.repEndpoint, pub: fetcher.pubEndpoint),
            alerts: try .live(connection, rep: DefaultEndpoint.priceAlertsRep.resolve(alertsRep), pub: DefaultEndpoint.priceAlertsPub.resolve(alertsPub)))
        try await runtime.run(Presenter.services(PresenterConfiguration(
            rep: DefaultEndpoint.presenterRep.resolve(rep),
            http: DefaultEndpoint.presenterHTTP.resolve(http)
        ), upstreams: upstreams, runtime: runtime))
    }
}
