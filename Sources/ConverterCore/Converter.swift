import Bus
import Metrics
import Conversion
import TickwireClients
import Foundation
import Logging
import Market
import TickwireContract
import Money
import ServiceLifecycle
import ServiceSupport
import BusContract

/// The converter's settings, from flags and environment.
public struct ConverterConfiguration: Sendable {
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// Where its price stream binds.
    public var pub: String
    /// The currencies every asset is re-priced into.
    public var displayCurrencies: [String]
    /// The feeds preferred for a market several quote, in order (`--sources`).
    public var ranking: FeedRanking

    /// A configuration; display currencies default to USD, SEK, EUR, MXN, the ranking to coingecko, bitso, wazirx.
    public init(
        rep: String, pub: String, displayCurrencies: [String] = ["USD", "SEK", "EUR", "MXN"], ranking: FeedRanking = .standard
    ) {
        self.rep = rep
        self.pub = pub
        self.displayCurrencies = displayCurrencies
        self.ranking = ranking
    }
}

/// The converter: follows rates-fetcher, answers `convert`/`total`/`rates`/`sources`,
/// and publishes `price.<ASSET>.<FIAT>` the moment an update (a rate, a quote, a feed's status) changes it.
public enum Converter {
    /// The services of one converter process, in start order, following rates-fetcher through `fetcher`.
    ///
    /// Its RPC server runs on the runtime's loop thread (``Runtime/loop``): a request is read, answered from `state` (a
    /// default actor, which runs there for it) and the reply sent on that one thread. With `fetcher` made from
    /// `runtime.connection(onLoop: true)`, its calls to rates-fetcher are on the loop too. Rates-fetcher's stream is not:
    /// its subscriber reads on a thread of its own and the re-pricing runs on Swift's pool, so reading and re-pricing
    /// overlap on two cores. On the loop, a quote reached its price through two threads fewer, but the converter
    /// re-priced 40 % fewer quotes a second flat out (bench/PROFILE.md, "Issue 31, stage 2"), and still a third fewer
    /// once tasks on the loop stopped going through its queue at each call (stage 5).
    public static func services(_ configuration: ConverterConfiguration, fetcher: RatesFetcherClient, runtime: Runtime) throws -> [any Service] {
        let currencies = try configuration.displayCurrencies.map { try Currency(code: $0).code }
        let state = ConverterState(currencies: currencies, ranking: configuration.ranking, logger: runtime.logger)
        let publisher = try runtime.publisher(binding: [configuration.pub])
        let methods = methods(state, standard: runtime.standardMethods(publisher: publisher) {
            Health(service: runtime.service, started: runtime.started, upstreams: ["rates-fetcher": await state.upstream])
        }, dailyRates: fetcher.ratesHistory)
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods, onLoop: true)
        // Feed statuses say which feeds are live: a market falls back from a stale or gone feed to the next.
        let rates = fetcher.updates([.rate, .quote, .status])
        // From a quote's own time (the feed's timestamp) to the publication of a price made from it: the feed's
        // delay and the pipeline's, per published price that has one.
        let quoteToPrice = Metrics.Timer(label: "tickwire_converter_quote_to_price_seconds")
        let logger = runtime.logger
        return [
            publisher, server,
            LoopService {
                await state.follow(rates) { price in
                    let topic = try Topics.price(asset: price.asset, currency: price.currency)
                    guard let seq = try publisher.publish(price, on: topic, source: "converter", onlyIfChanged: true) else { return }
                    logger.debug("price published", metadata: ["topic": "\(topic.topic)", "seq": "\(seq)", "price": "\(price.price)"])
                    if let made = price.quoteTime {
                        quoteToPrice.recordNanoseconds(Int64(max(Date().timeIntervalSince(made), 0) * 1e9))
                    }
                } retract: { price in
                    try publisher.retract(Topics.price(asset: price.asset, currency: price.currency).topic, source: "converter")
                } within: { trace, reprice in
                    // A quote that came in a trace is re-priced in a span of it: its prices carry the quote's trace id.
                    TraceContext.withSpan("reprice", continuing: trace, reprice)
                }
            },
        ]
    }

    /// `standard` and the converter's own methods, answered by `state` (`convert.series` with the daily rates
    /// of `dailyRates`, rates-fetcher's `rates.history`): what its server serves, and what in-process tests
    /// call through `LocalRPC`.
    public static func methods(
        _ state: ConverterState, standard: RPCMethods = RPCMethods(),
        dailyRates: (@Sendable (RatesHistoryRequest) async throws -> FiatRateHistory)? = nil
    ) -> RPCMethods {
        var methods = standard
        methods.register(ConverterAPI.convert) { try await state.convert($0) }
        methods.register(ConverterAPI.total) { try await state.total($0) }
        methods.register(ConverterAPI.rates) { try await state.rates($0) }
        methods.register(ConverterAPI.sources) { await state.sources() }
        methods.register(ConverterAPI.convertSeries) { request in
            let (daily, problem) = await SeriesConversion.dailyRates(for: request, fetch: dailyRates)
            return try await state.convertSeries(request, daily: daily, dailyProblem: problem)
        }
        return methods
    }
}
