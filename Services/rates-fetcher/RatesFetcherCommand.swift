import ArgumentParser
import AsyncHTTPClient
import RatesFetcherCore
import ServiceSupport

/// `rates-fetcher`: where the outside world enters Tickwire.
@main
struct RatesFetcherCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rates-fetcher",
        abstract: "Polls Bitso, WazirX, fiat rates, CoinGecko, GNB and masterdata, and publishes them on the bus; as the feed hub, also republishes what feed plugins publish into its ingest endpoint.",
        version: buildVersion)

    @OptionGroup var options: FetcherOptions
    @OptionGroup var common: CommonOptions

    func run() async throws {
        // Memory (README "Memory"): malloc's arena limit before threads allocate, one NIO event loop.
        let arenas = MemoryTuning.limitArenas()
        MemoryTuning.singleEventLoop()
        let runtime = try Runtime.bootstrap(service: "rates-fetcher", options: common)
        arenas.report(to: runtime.logger)
        let configuration = try options.configuration()
        let http = configuration.selection.needsHTTP ? HTTPClient.shared : nil
        let environment = try configuration.selection.environment(http: http, logger: runtime.logger)
        try await runtime.run([MemoryTuning.releaseAfterStartUp()] + RatesFetcher.services(configuration, environment: environment, runtime: runtime))
    }
}
