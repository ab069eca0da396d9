import Bus
import BusContract
import Foundation
import Logging
import Market
import Money
import RatesFetcherCore
import TickwireContract
import TickwireFeeds
import ZeroMQ

/// One of rates-fetcher's built-in feeds as a plugin's poll job: its own job (FeedJobs) runs unchanged and publishes
/// on a publisher kept in process (bound to an `inproc://` endpoint no one reads), and each value it left there is
/// handed on under the plugin's name: `quote.bitso.BTC-MXN` becomes `quote.<name>.BTC-MXN`, and a quote's own
/// `source` becomes `<name>`. Only what a hub's ingest takes goes on (quotes, rates, books, coins); the job's own
/// status is the runner's to publish.
enum BuiltInFeed {
    /// The kinds of topic a hub's ingest takes from a feed's job.
    static let handedOn: Set<String> = ["quote", "rate", "book", "coin"]

    /// The poll of `feed` with the clients of `environment`, publishing as `name`; throws for a feed that publishes
    /// nothing a hub takes (masterdata: assets and wallets only).
    static func job(
        _ feed: Feed, environment: FetcherEnvironment, name: String, context: ZMQContext, logger: Logger
    ) throws -> @Sendable () async throws -> [FeedPublication] {
        guard feed != .masterdata else { throw BuiltInFeedError.nothingToHandOn(feed.rawValue) }
        let capture = try Publisher(context: context, service: feed.rawValue, endpoints: ["inproc://tickwire-feed-\(UUID().uuidString)"], logger: logger)
        let builtIn = FeedJobs.job(feed, environment, coinIDs: FetcherConfiguration.defaultCoinIDs, logger: logger)
        return {
            let publications = try await builtIn()
            for publication in publications { try publication.publish(with: capture) }
            let retained = Dictionary(capture.snapshot(prefix: "").entries.map { ($0.topic, $0) }, uniquingKeysWith: { first, _ in first })
            return try publications.compactMap { publication in
                guard handedOn.contains(String(publication.topic.kind)), let entry = retained[publication.topic] else { return nil }
                return try renamed(entry, to: name)
            }
        }
    }

    /// The value of a built-in topic as the same value of feed `name`.
    static func renamed(_ entry: Snapshot.Entry, to name: String) throws -> FeedPublication {
        let message = try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8))
        let key = String(entry.topic.key ?? "")
        switch entry.topic.kind {
        case "quote":
            var quote = try message.decode(Quote.self).data
            quote.source = name
            return FeedPublication(quote, on: try Topics.quote(feed: name, market: quote.market))
        case "rate":
            let rate = try message.decode(ExchangeRate.self).data
            return FeedPublication(rate, on: try Topics.rate(source: name, from: rate.from, to: rate.to))
        case "book":
            return FeedPublication(try message.decode(BookInfo.self).data, on: try Topics.book(feed: name, book: key))
        case "coin":
            return FeedPublication(try message.decode(CoinInfo.self).data, on: try Topics.coin(feed: name, symbol: key))
        default:
            throw BuiltInFeedError.nothingToHandOn(entry.topic.rawValue)
        }
    }
}

/// A built-in feed that cannot run as a plugin.
enum BuiltInFeedError: Error, CustomStringConvertible {
    case nothingToHandOn(String)

    var description: String {
        switch self {
        case .nothingToHandOn(let what): "\(what) publishes nothing a hub's ingest takes (quotes, rates, books, coins)"
        }
    }
}
