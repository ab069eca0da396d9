import Bus
import Foundation
import Logging
import Market
import Messages
import Money
import ServiceLifecycle
import ServiceSupport

/// The converter's settings, from flags and environment.
public struct ConverterConfiguration: Sendable {
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// Where its price stream binds.
    public var pub: String
    /// rates-fetcher's PUB endpoint.
    public var fetcherPub: String
    /// rates-fetcher's REP endpoint (for snapshots).
    public var fetcherRep: String
    /// The currencies every asset is re-priced into.
    public var displayCurrencies: [String]
    /// How often changed prices are published at most.
    public var repriceInterval: Duration

    /// A configuration; display currencies default to USD, SEK, EUR, MXN.
    public init(
        rep: String, pub: String, fetcherPub: String, fetcherRep: String,
        displayCurrencies: [String] = ["USD", "SEK", "EUR", "MXN"], repriceInterval: Duration = .milliseconds(200)
    ) {
        self.rep = rep
        self.pub = pub
        self.fetcherPub = fetcherPub
        self.fetcherRep = fetcherRep
        self.displayCurrencies = displayCurrencies
        self.repriceInterval = repriceInterval
    }
}

/// The converter: follows rates-fetcher, answers `convert`/`total`/`rates`/`sources`,
/// and publishes `price.<ASSET>.<FIAT>`.
public enum Converter {
    /// The services of one converter process, in start order.
    public static func services(_ configuration: ConverterConfiguration, runtime: Runtime) throws -> [any Service] {
        let currencies = try configuration.displayCurrencies.map { try Currency(code: $0).code }
        let state = ConverterState(logger: runtime.logger)
        let publisher = try Publisher(context: runtime.context, service: runtime.service, endpoints: [configuration.pub], logger: runtime.logger)
        let subscriber = try runtime.subscriber(
            of: "rates-fetcher", pub: configuration.fetcherPub, rep: configuration.fetcherRep, prefixes: ["rate.", "quote."])
        var methods = runtime.standardMethods(publisher: publisher) {
            Health(service: runtime.service, started: runtime.started, upstreams: ["rates-fetcher": await state.upstream])
        }
        methods.register("convert", params: ConvertRequest.self) { try await state.convert($0) }
        methods.register("total", params: TotalRequest.self) { try await state.total($0) }
        methods.register("rates", params: RatesRequest.self) { try await state.rates($0) }
        methods.register("sources") { await state.sources() }
        let server = try RPCServer(context: runtime.context, service: runtime.service, endpoints: [configuration.rep], methods: methods, logger: runtime.logger)
        let logger = runtime.logger
        return [
            publisher, server, subscriber,
            LoopService { await state.follow(subscriber.events) },
            LoopService {
                await every(configuration.repriceInterval, logger: logger) {
                    for price in await state.changedPrices(in: currencies) {
                        try publisher.publish(price, on: Topics.price(asset: price.asset, currency: price.currency), source: "converter", onlyIfChanged: true)
                    }
                }
            },
        ]
    }
}

/// The one owner of the converter's rate book.
actor ConverterState {
    private var book = RateBook()
    private var dirty = false
    private let logger: Logger
    /// rates-fetcher's state as `health` reports it.
    private(set) var upstream = "waiting for rates-fetcher's snapshot"

    init(logger: Logger) { self.logger = logger }

    /// Applies the fetcher's events until the stream ends. The loop runs on the actor, so a burst
    /// of waiting events costs no executor hop each.
    func follow(_ events: SubscriberEvents) async {
        for await event in events { apply(event) }
    }

    func apply(_ event: SubscriberEvent) {
        switch event {
        case .snapshot(_, _, let messages):
            let failures = book.reset(with: messages)
            if failures > 0 { logger.warning("snapshot had undecodable rates", metadata: ["count": "\(failures)"]) }
            upstream = "ok"
            dirty = true
        case .message(let message):
            do {
                if try book.apply(message) != nil { dirty = true }
            } catch {
                logger.warning("dropped an undecodable message", metadata: ["topic": "\(message.topic)", "error": "\(error)"])
            }
            upstream = "ok"
        case .unavailable(let reason):
            upstream = reason
        }
    }

    func convert(_ request: ConvertRequest) throws -> ConvertResult { try Conversions.convert(request, in: &book) }
    func total(_ request: TotalRequest) throws -> TotalResult { try Conversions.total(request, in: &book) }
    func rates(_ request: RatesRequest) throws -> RatesResult { try Conversions.rates(request, in: &book) }

    func sources() -> [RateSourceInfo] {
        book.sources.map { source in
            RateSourceInfo(source: source, rates: book.count(of: source), currencies: (try? book.graph(for: source).currencies) ?? [])
        }
    }

    /// Every asset's price in each of `currencies` if anything changed since the last call, else none.
    func changedPrices(in currencies: [String]) -> [AssetPrice] {
        guard dirty else { return [] }
        dirty = false
        return Pricing.prices(in: currencies, book: &book)
    }
}
