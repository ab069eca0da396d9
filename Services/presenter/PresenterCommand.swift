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
    @Option(name: .customLong("fetcher-pub"), help: .init(DefaultEndpoint.ratesFetcherPub.help("rates-fetcher's stream")))
    var fetcherPub: String?
    @Option(name: .customLong("fetcher-rep"), help: .init(DefaultEndpoint.ratesFetcherRep.help("rates-fetcher's JSON-RPC")))
    var fetcherRep: String?
    @Option(name: .customLong("converter-pub"), help: .init(DefaultEndpoint.converterPub.help("the converter's price stream")))
    var converterPub: String?
    @Option(name: .customLong("converter-rep"), help: .init(DefaultEndpoint.converterRep.help("the converter's JSON-RPC")))
    var converterRep: String?
    @Option(name: .customLong("portfolio-pub"), help: .init(DefaultEndpoint.portfolioPub.help("the portfolio's change stream")))
    var portfolioPub: String?
    @Option(name: .customLong("portfolio-rep"), help: .init(DefaultEndpoint.portfolioRep.help("the portfolio's JSON-RPC")))
    var portfolioRep: String?
    @OptionGroup var common: CommonOptions

    func run() async throws {
        let runtime = try Runtime.bootstrap(service: "presenter", logLevel: common.level)
        try await runtime.run(Presenter.services(PresenterConfiguration(
            rep: DefaultEndpoint.presenterRep.resolve(rep),
            http: DefaultEndpoint.presenterHTTP.resolve(http),
            fetcherPub: DefaultEndpoint.ratesFetcherPub.resolve(fetcherPub),
            fetcherRep: DefaultEndpoint.ratesFetcherRep.resolve(fetcherRep),
            converterPub: DefaultEndpoint.converterPub.resolve(converterPub),
            converterRep: DefaultEndpoint.converterRep.resolve(converterRep),
            portfolioPub: DefaultEndpoint.portfolioPub.resolve(portfolioPub),
            portfolioRep: DefaultEndpoint.portfolioRep.resolve(portfolioRep)
        ), runtime: runtime))
    }
}
