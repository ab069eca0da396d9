import ArgumentParser
import AsyncHTTPClient
import Foundation
import RatesFetcherEngine
import ServiceSupport
import TickwireFeeds

/// `tickwire-feed`: one of rates-fetcher's built-in feeds as a process of its own, feeding a (remote) hub's ingest
/// endpoint: the feed's definition (RatesFetcherEngine's ``BuiltInFeed``) run by a ``FeedRunner`` on a
/// ``FeedSink/connection(_:)``, every topic under the plugin's name.
@main
struct FeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tickwire-feed",
        abstract: "Runs one of rates-fetcher's built-in feeds as a plugin that publishes into a hub's ingest endpoint.",
        discussion: "e.g. tickwire-feed bitso --ingest tcp://hub:7103 --name bitso2 --variant mock",
        version: buildVersion)

    @Argument(help: "the feed: \(BuiltInFeed.all.filter(\.feedsAHub).map(\.name).joined(separator: ", "))")
    var feed: String
    @Option(help: "the hub's ingest endpoint to connect to (env TICKWIRE_RATES_FETCHER_INGEST; default tcp://127.0.0.1:7103)")
    var ingest: String?
    @Option(help: "mock|test|live: the feed's client (default mock)")
    var variant: String = "mock"
    @Option(help: "the source name it publishes under (default: the source its values carry, the feed's name but fiat's ecb; a hub running that feed itself refuses it as reserved)")
    var name: String?
    @Option(help: "seconds between polls (default: the feed's period for the variant)")
    var period: Double?
    @Option(help: "seed of the mock's random walk (default 42)")
    var seed: UInt64 = 42
    @OptionGroup var common: CommonOptions

    func run() async throws {
        guard let feed = BuiltInFeed.named(feed) else {
            throw ValidationError("unknown feed \(feed.debugDescription); feeds: \(BuiltInFeed.names)")
        }
        guard feed.feedsAHub else {
            throw ValidationError("\(feed.name) publishes nothing a hub's ingest takes (quotes, rates, books, coins)")
        }
        guard let variant = FeedVariant(rawValue: variant) else { throw ValidationError("--variant must be mock, test or live; got \(variant.debugDescription)") }
        let name = name ?? feed.defaultPluginName
        guard FeedName.isValid(name) else { throw ValidationError(FeedError.invalidName(name).description) }
        let endpoint = ingest ?? ProcessInfo.processInfo.environment["TICKWIRE_RATES_FETCHER_INGEST"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "tcp://127.0.0.1:7103"
        let runtime = try Runtime.bootstrap(service: name, options: common)
        let selection = FeedSelection(defaultVariant: variant, seed: seed)
        let environment = try selection.environment(http: selection.needsHTTP ? HTTPClient.shared : nil, logger: runtime.logger)
        let connection = try FeedConnection(
            context: runtime.context, name: name, endpoint: endpoint,
            security: try runtime.clientSecurity(connectingTo: "rates-fetcher"), logger: runtime.logger)
        let every = period.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) } ?? selection.period(of: feed)
        let context = FeedJobContext(pluginName: name, logger: runtime.logger, coinIDs: CoinTracker.defaultIDs)
        let runner = FeedRunner(sink: .connection(connection), job: feed.job(every: every, environment, context), logger: runtime.logger)
        runtime.logger.info("feeding", metadata: ["feed": "\(feed.name)", "name": "\(name)", "ingest": "\(endpoint)", "variant": "\(variant.rawValue)"])
        try await runtime.run([connection, runner])
    }
}
