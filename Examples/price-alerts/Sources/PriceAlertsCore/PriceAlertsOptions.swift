import ArgumentParser
import Foundation
import PriceAlertsAPI
import ServiceSupport
import TickwireClients

/// price-alerts' flags, each with its environment variable and default.
public struct PriceAlertsOptions: ParsableArguments {
    /// Where the prices come from.
    public enum ConverterSource: String, CaseIterable, ExpressibleByArgument, Sendable {
        /// The converter service at `--converter-rep` and `--converter-pub`.
        case live
        /// A converter in this process over mock feeds: price-alerts runs with no other process.
        case mock
    }

    @Option(help: .init(PriceAlertsEndpoint.rep.help("JSON-RPC endpoint to bind")))
    var rep: String?
    @Option(help: .init(PriceAlertsEndpoint.pub.help("alert stream endpoint to bind")))
    var pub: String?
    /// `--converter-rep` and `--converter-pub`: where the live converter is.
    @OptionGroup public var converterEndpoints: ConverterEndpoints
    /// `--converter live|mock`.
    @Option(help: "live: the converter at --converter-rep/--converter-pub; mock: one in this process over mock feeds")
    public var converter: ConverterSource = .live
    @Option(help: "SQLite file, or :memory: (env \(AlertStore.databaseVariable); default $XDG_DATA_HOME/tickwire/price-alerts.sqlite)")
    var database: String?

    public init() {}

    /// The endpoints to bind, from flags, environment or defaults.
    public var configuration: PriceAlertsConfiguration {
        PriceAlertsConfiguration(rep: PriceAlertsEndpoint.rep.resolve(rep), pub: PriceAlertsEndpoint.pub.resolve(pub))
    }

    /// The database to open (see ``AlertStore/databasePath(_:environment:)``).
    public func databasePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        AlertStore.databasePath(database, environment: environment)
    }
}
