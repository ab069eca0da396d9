import ArgumentParser
import AsyncHTTPClient
import ExchangeStreams
import Foundation
import Market
import ServiceSupport
import TickwireFeeds

/// `exchange-feed`: an exchange's websocket feed (ExchangeStreams' ``ExchangeFeed``) as a plugin of a hub's ingest
/// endpoint, publishing books, trades, quotes and its status under its name.
@main
struct ExchangeFeedCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "exchange-feed",
        abstract: "Runs an exchange's websocket feed (Bitso, Kraken v2) as a plugin that publishes books, trades and quotes into a hub.",
        discussion: "e.g. exchange-feed bitso --variant mock --ingest tcp://127.0.0.1:7103 --depth 10 --markets BTC-MXN,ETH-MXN",
        version: buildVersion)

    /// The exchanges it speaks to.
    enum Exchange: String, ExpressibleByArgument, CaseIterable { case bitso, kraken }
    /// Where its market comes from.
    enum Variant: String, ExpressibleByArgument, CaseIterable { case mock, test, live }

    @Argument(help: "the exchange")
    var exchange: Exchange
    @Option(help: "the hub's ingest endpoint to connect to (env TICKWIRE_RATES_FETCHER_INGEST; default tcp://127.0.0.1:7103)")
    var ingest: String?
    @Option(help: "mock|test|live: a synthetic market in process, the recorded session through a local websocket server, or the exchange (default mock)")
    var variant: Variant = .mock
    @Option(help: "the source name it publishes under (default bitso-ws or kraken-ws)")
    var name: String?
    @Option(help: "levels of each side published in book.<name>.<M> (default 10)")
    var depth: Int = 10
    @Option(help: "markets as BASE-QUOTE, comma-separated (default bitso BTC-MXN,ETH-MXN, kraken BTC-USD,ETH-USD; test: the recording's)")
    var markets: String?
    @Option(help: "seed of the mock market (default 42)")
    var seed: UInt64 = 42
    @Option(help: "milliseconds between the mock market's changes (default 250)")
    var mockInterval: Int = 250
    @Option(help: "the live websocket's URL (default the exchange's)")
    var websocketURL: String?
    @OptionGroup var common: CommonOptions

    func run() async throws {
        guard (1...100).contains(depth) else { throw ValidationError("--depth must be 1...100; got \(depth)") }
        let name = name ?? "\(exchange.rawValue)-ws"
        guard FeedName.isValid(name) else { throw ValidationError(FeedError.invalidName(name).description) }
        let defaults = switch (exchange, variant) {
        case (.bitso, .test): "BTC-MXN"
        case (.kraken, .test): "ALGO-USD,BTC-USDT"
        case (.bitso, _): "BTC-MXN,ETH-MXN"
        case (.kraken, _): "BTC-USD,ETH-USD"
        }
        let symbols = (markets ?? defaults).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
        let pairs = try symbols.map { symbol in
            guard let pair = MarketPair(symbol: symbol) else { throw ValidationError("market \(symbol.debugDescription) is not BASE-QUOTE") }
            return pair
        }
        let endpoint = ingest ?? ProcessInfo.processInfo.environment["TICKWIRE_RATES_FETCHER_INGEST"].flatMap { $0.isEmpty ? nil : $0 }
            ?? "tcp://127.0.0.1:7103"
        let runtime = try Runtime.bootstrap(service: name, options: common)
        let logger = runtime.logger
        let connection = try FeedConnection(
            context: runtime.context, name: name, endpoint: endpoint,
            security: try runtime.clientSecurity(connectingTo: "rates-fetcher"), logger: logger)
        var replay: ReplayServer?
        if variant == .test {
            let session = exchange == .bitso ? try ExchangeFixtures.bitsoSession() : try ExchangeFixtures.krakenSession()
            replay = try await ReplayServer.start(logger: logger) { _ in session.map(ReplayStep.send) }
        }
        let settings = ExchangeFeedSettings(depth: depth)
        let interval = Duration.milliseconds(max(mockInterval, 1))
        let feed: ExchangeFeed
        switch exchange {
        case .bitso:
            let client: BitsoStreamClient = switch variant {
            case .live: .live(http: HTTPClient.shared, websocketURL: websocketURL ?? BitsoStreamClient.websocketURL, logger: logger)
            case .test: .test(url: replay?.url ?? "", logger: logger)
            case .mock: .mock(seed: seed, interval: interval)
            }
            feed = try ExchangeFeed.bitso(client: client, sink: .connection(connection), markets: pairs, settings: settings, logger: logger)
        case .kraken:
            let client: KrakenStreamClient = switch variant {
            case .live: .live(websocketURL: websocketURL ?? KrakenStreamClient.websocketURL, logger: logger)
            case .test: .test(url: replay?.url ?? "", logger: logger)
            case .mock: .mock(seed: seed, interval: interval)
            }
            feed = try ExchangeFeed.kraken(client: client, sink: .connection(connection), markets: pairs, settings: settings, logger: logger)
        }
        logger.info("feeding", metadata: [
            "exchange": "\(exchange.rawValue)", "name": "\(name)", "ingest": "\(endpoint)", "variant": "\(variant.rawValue)",
            "markets": "\(symbols.joined(separator: ","))", "depth": "\(depth)",
        ])
        try await runtime.run([connection, feed])
        await replay?.stop()
    }
}
