import Bus
import BusContract
import Candles
import Conversion
import ConverterCore
import Foundation
import Logging
import Market
import Money
import PortfolioCore
import PortfolioEngine
import PresenterViews
import RatesFetcherCore
import RatesFetcherEngine
import ServiceSupport
import TickwireClients
import TickwireMocks
import TickwireContract
import WireJSON
import WireJSONTesting

/// Every service's JSON-RPC methods, the real handlers over mock upstreams, fed arbitrary request bytes:
/// each input's first byte picks the service (rates-fetcher, converter, portfolio, presenter), the rest is
/// the request. Whatever comes in, the answer must be one JSON-RPC response, never a crash, and the same as the tape's.
public final class RPCMethodsFuzz: Sendable {
    /// The services, in the order the first byte picks them.
    public static let services = ["rates-fetcher", "converter", "portfolio", "presenter"]

    private let fetcher: RPCMethods
    private let converter: RPCMethods
    private let presenter: RPCMethods
    private let portfolioStandard: RPCMethods
    private let total: @Sendable (TotalRequest) async throws -> TotalResult
    private let logger: Logger

    /// The four method tables, their upstreams mocks of one seeded rates-fetcher, each state fed its
    /// upstreams' first snapshot.
    public init() async throws {
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical
        self.logger = logger
        let fetcherClient = RatesFetcherClient.mock(seed: 7, interval: .seconds(3600))
        let converterClient = ConverterClient.mock(fetcher: fetcherClient, logger: logger)
        let portfolioClient = PortfolioClient.mock(fetcher: fetcherClient, converter: converterClient, logger: logger)
        total = converterClient.total

        let fetcherRuntime = try Runtime(service: "rates-fetcher", logger: logger)
        let publisher = try Publisher(
            context: fetcherRuntime.context, service: "rates-fetcher", endpoints: ["inproc://fuzz-rates-fetcher-\(UUID())"], logger: logger)
        let hourly = FeedSelection(periods: Dictionary(uniqueKeysWithValues: BuiltInFeed.all.map { ($0.name, Duration.seconds(3600)) }))
        let engine = RatesFetcher.engine(
            environment: .mock(seed: 7), selection: hourly, coins: CoinTracker(ids: FetcherConfiguration.defaultCoinIDs), publisher: publisher,
            logger: logger)
        let candles = try CandleStore.inMemory()
        _ = try await candles.save(try Self.storedCandles())
        fetcher = RatesFetcher.methods(
            engine: engine,
            standard: fetcherRuntime.standardMethods(publisher: publisher) { Health(service: "rates-fetcher", started: Date(), upstreams: [:]) },
            candles: candles)

        let converterState = ConverterState(currencies: ["USD", "SEK", "EUR", "MXN"], logger: logger)
        if let snapshot = await Self.firstSnapshot(of: fetcherClient.updates([.rate, .quote])) { _ = await converterState.apply(snapshot) }
        let converterRuntime = try Runtime(service: "converter", logger: logger)
        converter = Converter.methods(converterState, standard: converterRuntime.standardMethods(publisher: nil) {
            Health(service: "converter", started: Date(), upstreams: [:])
        })

        let portfolioRuntime = try Runtime(service: "portfolio", logger: logger)
        portfolioStandard = portfolioRuntime.standardMethods(publisher: nil) { Health(service: "portfolio", started: Date(), upstreams: [:]) }

        let presenterState = PresenterState(logger: logger)
        if let snapshot = await Self.firstSnapshot(of: fetcherClient.updates([.quote, .book, .coin, .status, .assets, .wallets, .rate])) {
            await presenterState.apply(snapshot, from: "rates-fetcher")
        }
        if let snapshot = await Self.firstSnapshot(of: converterClient.prices()) { await presenterState.apply(snapshot, from: "converter") }
        let builder = ScreenBuilder(state: presenterState, sources: ViewSources(
            portfolio: portfolioClient, fetcher: fetcherClient, converter: converterClient))
        let presenterRuntime = try Runtime(service: "presenter", logger: logger)
        var presenter = presenterRuntime.standardMethods(publisher: nil) { Health(service: "presenter", started: Date(), upstreams: [:]) }
        presenter.register(PresenterAPI.view) { try await builder.view($0) }
        self.presenter = presenter
    }

    /// What the fetcher's `candles` finds: a day of `bitso`'s hourly BTC-USD candles from 2026-11-25 00:00 UTC.
    static func storedCandles() throws -> [Candle] {
        let day = Date(timeIntervalSince1970: 1_795_564_800)
        return try (0..<24).map { hour in
            let open = try ExactDecimal("\(95_000 + hour * 10).5")
            return try Candle(
                source: "bitso", market: MarketPair(base: "BTC", quote: "USD"), interval: .oneHour, start: day.addingTimeInterval(Double(hour) * 3600),
                open: open, high: open + 25, low: open - 25, close: open + 5, volume: try ExactDecimal("0.25"), count: 3)
        }
    }

    /// The problems with the answer to `input`: empty when it is one JSON-RPC response, and the same answer as the
    /// tape's alone (``directAgreesWithTape(_:_:)``).
    public func check(_ input: Data) async -> [String] {
        guard let selector = input.first else { return [] }
        let service = Int(selector) % Self.services.count
        let request = Data(input.dropFirst())
        let answer = await methods(of: service).handle(request)
        let disagreement = await directAgreesWithTape(service, request, answer: answer)
        return Self.problems(answer) + [disagreement].compactMap { $0 }
    }

    /// How the answer to `request` differs from the tape's: the same request with a space after it, which the tape reads
    /// alike and the direct reader (a request in the form RPCClient writes it) leaves to the tape. Compared as JSON
    /// values (a dictionary's members come in any order). A method whose answer changes from call to call (metrics,
    /// times, new ids) is asked again after the tape's turn and left out when it changed; a parse error is left out
    /// too, as its text says where the text ended.
    func directAgreesWithTape(_ service: Int, _ request: Data, answer: Data) async -> String? {
        let decoder = WireJSONDecoder()
        let tape = await methods(of: service).handle(request + Data(" ".utf8))
        guard let value = try? decoder.decode(JSONValue.self, from: answer), (try? decoder.decode(JSONValue.self, from: tape)) != value,
              !Self.isParseError(value)
        else { return nil }
        guard (try? decoder.decode(JSONValue.self, from: await methods(of: service).handle(request))) == value else { return nil }
        return "the answer differs from the tape's: \(String(decoding: answer, as: UTF8.self)) (tape: \(String(decoding: tape, as: UTF8.self)))"
    }

    /// The methods of service `index`; the portfolio's over a fresh state, so trades added by earlier calls do not pile up.
    private func methods(of index: Int) -> RPCMethods {
        switch index {
        case 0: fetcher
        case 1: converter
        case 2: Portfolio.methods(PortfolioState(store: .memory(), total: total, publish: { _ in }, logger: logger, now: { Date() }), standard: portfolioStandard)
        default: presenter
        }
    }

    /// Whether `answer` is JSON-RPC's parse error (-32700).
    static func isParseError(_ answer: JSONValue) -> Bool {
        guard case .object(let members) = answer, case .object(let error)? = members["error"] else { return false }
        return error["code"] == .number(-32700)
    }

    /// What is wrong with `answer` as a JSON-RPC 2.0 response.
    public static func problems(_ answer: Data) -> [String] {
        let text = String(decoding: answer, as: UTF8.self)
        guard case .object(let members)? = try? WireJSONDecoder().decode(JSONValue.self, from: answer) else {
            return ["the answer is not a JSON object: \(text)"]
        }
        var problems: [String] = []
        if members["jsonrpc"] != .string("2.0") { problems.append("the answer lacks \"jsonrpc\": \"2.0\": \(text)") }
        if (members["result"] == nil) == (members["error"] == nil) { problems.append("the answer must hold one of result and error: \(text)") }
        if case .object(let error)? = members["error"] {
            if case .number? = error["code"], case .string? = error["message"] {} else { problems.append("an error without code and message: \(text)") }
        }
        return problems
    }

    private static func firstSnapshot<Value>(of events: StreamEvents<Value>) async -> StreamEvent<Value>? {
        for await event in events {
            if case .snapshot = event { return event }
        }
        return nil
    }
}
