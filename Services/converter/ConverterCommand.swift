import ArgumentParser
import ConverterCore
import ServiceSupport
import TickwireClients
import TickwireStack

/// `converter`: exact conversion with derived rates, and asset prices in display currencies.
@main
struct ConverterCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "converter",
        abstract: "Converts money exactly through derived rates and re-prices assets into display currencies.",
        version: buildVersion)

    @Option(help: .init(DefaultEndpoint.converterRep.help("JSON-RPC endpoint to bind")))
    var rep: String?
    @Option(help: .init(DefaultEndpoint.converterPub.help("price stream endpoint to bind")))
    var pub: String?
    @OptionGroup var fetcher: FetcherEndpoints
    @Option(help: "display currencies, comma-separated (env TICKWIRE_DISPLAY_CURRENCIES; default USD,SEK,EUR,MXN)")
    var currencies: String?
    @Option(help: """
        feeds preferred for a market several feeds quote, best first, comma-separated; feeds not listed come after, \
        the freshest quote first, and a stale or gone feed yields to the next live one \
        (env TICKWIRE_CONVERTER_SOURCES; default coingecko,bitso,wazirx)
        """)
    var sources: String?
    @Flag(name: .customLong("no-conflation"), help: """
        re-price on every update of rates-fetcher's stream even when behind, instead of only the newest of each topic, \
        so the prices depend on the updates alone, not on how fast they came (a replay at full speed; env TICKWIRE_CONVERTER_NO_CONFLATION=1)
        """)
    var noConflation = false
    @OptionGroup var common: CommonOptions

    func run() async throws {
        // Memory (README "Memory"): malloc's arena limit before threads allocate, one NIO event loop.
        let arenas = MemoryTuning.limitArenas()
        MemoryTuning.singleEventLoop()
        let currencies = Setting.resolve(currencies, environmentVariable: "TICKWIRE_DISPLAY_CURRENCIES", default: "USD,SEK,EUR,MXN")
        let sources = Setting.resolve(sources, environmentVariable: "TICKWIRE_CONVERTER_SOURCES", default: "coingecko,bitso,wazirx")
        let configuration: ConverterConfiguration
        do {
            configuration = ConverterConfiguration(
                rep: DefaultEndpoint.converterRep.resolve(rep),
                pub: DefaultEndpoint.converterPub.resolve(pub),
                displayCurrencies: currencies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) },
                ranking: try .init(parsing: sources))
        } catch {
            throw ValidationError("--sources (env TICKWIRE_CONVERTER_SOURCES): \(error)")
        }
        let runtime = try Runtime.bootstrap(service: "converter", options: common)
        arenas.report(to: runtime.logger)
        // Calls to rates-fetcher on the converter's loop, with its RPC server (its stream reads on a thread of its own).
        var connection = try runtime.connection(onLoop: true)
        connection.conflatesStreams = !(noConflation || Setting.resolve(nil, environmentVariable: "TICKWIRE_CONVERTER_NO_CONFLATION") == "1")
        let fetcherClient = try RatesFetcherClient.live(connection, rep: fetcher.repEndpoint, pub: fetcher.pubEndpoint)
        try await runtime.run([MemoryTuning.releaseAfterStartUp()] + Converter.services(configuration, fetcher: fetcherClient, runtime: runtime))
    }
}
