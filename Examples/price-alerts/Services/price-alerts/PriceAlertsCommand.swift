import ArgumentParser
import PriceAlertsCore
import ServiceSupport
import TickwireClients
import TickwireMocks

/// `price-alerts`: rules on the converter's prices, and the alerts they fire.
@main
struct PriceAlertsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "price-alerts",
        abstract: "Keeps price rules in SQLite and publishes alert.<ASSET>.<FIAT> when one's condition starts to hold.",
        version: buildVersion)

    @OptionGroup var options: PriceAlertsOptions
    @OptionGroup var common: CommonOptions

    func run() async throws {
        let runtime = try Runtime.bootstrap(service: "price-alerts", options: common)
        let path = options.databasePath()
        let store = try AlertStore.open(path)
        runtime.logger.info("price-alerts database", metadata: ["path": "\(path)", "converter": "\(options.converter.rawValue)"])
        let converter = switch options.converter {
        case .live: try ConverterClient.live(runtime.connection(), rep: options.converterEndpoints.repEndpoint, pub: options.converterEndpoints.pubEndpoint)
        case .mock: ConverterClient.mock(logger: runtime.logger)
        }
        try await runtime.run(PriceAlerts.services(options.configuration, converter: converter, store: store, runtime: runtime))
    }
}
