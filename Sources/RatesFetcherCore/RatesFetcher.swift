import Bus
import Foundation
import Logging
import Market
import TickwireContract
import ServiceLifecycle
import ServiceSupport

/// The rates-fetcher's settings.
public struct FetcherConfiguration: Sendable {
    /// Where its stream binds.
    public var pub: String
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// Which feeds use which clients, and how often they poll.
    public var selection: FeedSelection
    /// The CoinGecko coins polled.
    public var coinIDs: [String]

    /// The coins polled unless told otherwise.
    public static let defaultCoinIDs = ["bitcoin", "ethereum", "ripple", "litecoin", "cardano", "solana", "dogecoin"]

    /// A configuration.
    public init(pub: String, rep: String, selection: FeedSelection, coinIDs: [String] = defaultCoinIDs) {
        self.pub = pub
        self.rep = rep
        self.selection = selection
        self.coinIDs = coinIDs
    }
}

/// The rates-fetcher: polls every feed, publishes quotes, rates, books, masterdata,
/// transactions and feed status, and answers `snapshot`, `history`, `refresh`, `feeds`, `rates.history`.
public enum RatesFetcher {
    /// The services of one rates-fetcher process.
    public static func services(_ configuration: FetcherConfiguration, environment: FetcherEnvironment, runtime: Runtime) throws -> [any Service] {
        let publisher = try runtime.publisher(binding: [configuration.pub])
        let pollers = Feed.allCases.map { feed in
            FeedPoller(
                feed: feed, period: configuration.selection.period(of: feed), publisher: publisher, logger: runtime.logger,
                job: FeedJobs.job(feed, environment, coinIDs: configuration.coinIDs))
        }
        let standard = runtime.standardMethods(publisher: publisher) {
            var upstreams: [String: String] = [:]
            for poller in pollers {
                let status = await poller.status
                upstreams[status.feed] = status.state == .ok ? "ok" : status.message ?? status.state.rawValue
            }
            return Health(service: runtime.service, started: runtime.started, upstreams: upstreams)
        }
        let methods = methods(pollers: pollers, environment: environment, publisher: publisher, standard: standard)
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods)
        return [publisher, server] + pollers.map { poller in LoopService { await poller.run() } }
    }

    /// `standard` and the fetcher's own methods over `pollers`, with histories from `environment` published
    /// on `publisher`: what its server serves, and what the fuzzer (Tests/FuzzTargets) calls in process.
    package static func methods(pollers: [FeedPoller], environment: FetcherEnvironment, publisher: Publisher, standard: RPCMethods) -> RPCMethods {
        let histories = HistoryCache(coingecko: environment.coingecko, quoteHistory: environment.quoteHistory, publisher: publisher)
        var methods = standard
        methods.register(RatesFetcherAPI.feeds) {
            var statuses: [FeedStatus] = []
            for poller in pollers { statuses.append(await poller.status) }
            return statuses
        }
        methods.register(RatesFetcherAPI.refresh) { request in
            guard let poller = pollers.first(where: { $0.feed.rawValue == request.feed }) else {
                throw RPCError.invalidParams("unknown feed \"\(request.feed)\"; feeds: \(Feed.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return await poller.poll()
        }
        methods.register(RatesFetcherAPI.history) { try await histories.history($0) }
        let fiatHistories = FiatHistoryCache(client: environment.fiatHistory)
        methods.register(RatesFetcherAPI.ratesHistory) { try await fiatHistories.history($0) }
        return methods
    }
}
