import BusContract
import ContractSchema
import Foundation
import Market
import Money
import PresenterViews
import Testing
import TickwireStack
import TickwireContract

/// The package's root folder, found from this file's path.
let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
/// The recorded answers of a real stack (scripts/record-client-fixtures.py).
let fixtures = root.appendingPathComponent("Sources/TickwireClients/Fixtures")
/// Every named schema, and a validator that also refuses members a schema does not list.
let definitions = ContractDocuments.definitions()
let strict = SchemaValidator(definitions: definitions, strict: true)

/// The method a recorded answer's file is of: `view-coins.json` is the presenter's `view`.
func methodName(ofFixture file: String) -> String {
    let name = String(file.dropLast(".json".count))
    return name.hasPrefix("view-") ? "view" : name
}

/// The catalog lists each service's methods and streams exactly as its API does, types included.
@Test(arguments: [
    ("rates-fetcher", RatesFetcherAPI.methods, RatesFetcherAPI.streams),
    ("converter", ConverterAPI.methods, ConverterAPI.streams),
    ("portfolio", PortfolioAPI.methods, PortfolioAPI.streams),
    ("presenter", PresenterAPI.methods, PresenterAPI.streams),
    ("plugin", [AnyRPCMethod(PluginAPI.panel)], []),
])
func catalogMatchesTheAPI(service: String, methods: [AnyRPCMethod], streams: [AnyTopicSpec]) throws {
    let described = try #require(ContractCatalog.services.first { $0.name == service })
    #expect(described.methods.map(\.method) == methods)
    #expect(described.streams.map(\.stream) == streams)
    for stream in described.streams {
        #expect(stream.address.hasPrefix(stream.stream.kind + "."), "\(stream.address) is not a \(stream.stream.kind) topic")
        let names = stream.address.split(separator: ".").filter { $0.hasPrefix("{") }.map { String($0.dropFirst().dropLast()) }
        #expect(names == stream.parameters.map(\.key), "\(stream.address): its parameters are not described")
    }
}

/// The services whose answers are recorded: every one but `plugin` (each plugin records its own, in its package).
let recordedServices = ContractCatalog.services.map(\.name).filter { $0 != "plugin" }

/// Every recorded answer of every service validates against its method's result schema, with no member the schema leaves out.
@Test(arguments: recordedServices)
func recordedAnswersValidate(service: String) throws {
    let described = try #require(ContractCatalog.services.first { $0.name == service })
    let files = try FileManager.default.contentsOfDirectory(atPath: fixtures.appendingPathComponent(service).path)
        .filter { $0.hasSuffix(".json") }.sorted()
    #expect(files.count >= 2, "\(service) has no recorded answers")
    for file in files {
        let method = try #require(described.methods.first { $0.method.name == methodName(ofFixture: file) }, "\(service)/\(file): no such method")
        let answer = try JSONValue(parsing: Data(contentsOf: fixtures.appendingPathComponent("\(service)/\(file)")))
        let errors = strict.errors(answer, against: method.result.json)
        #expect(errors.isEmpty, "\(service)/\(file) against \(method.method.result): \(errors.prefix(5).joined(separator: "; "))")
    }
}

/// Every envelope of every recorded snapshot validates against its stream's envelope schema.
@Test(arguments: recordedServices.filter {
    FileManager.default.fileExists(atPath: fixtures.appendingPathComponent("\($0)/snapshot.json").path)
})
func recordedEnvelopesValidate(service: String) throws {
    let described = try #require(ContractCatalog.services.first { $0.name == service })
    let snapshot = try JSONValue(parsing: Data(contentsOf: fixtures.appendingPathComponent("\(service)/snapshot.json")))
    let entries = try #require(snapshot["entries"]?.array)
    #expect(!entries.isEmpty)
    var kinds: Set<String> = []
    for entry in entries {
        let topic = try #require(entry["topic"]?.string)
        let streams = described.streams.filter { $0.matches(topic) }
        #expect(streams.count == 1, "\(topic) is on \(streams.count) of \(service)'s streams")
        guard let stream = streams.first else { continue }
        kinds.insert(stream.stream.kind)
        let body = try JSONValue(parsing: Data(try #require(entry["body"]?.string).utf8))
        let errors = strict.errors(body, against: ContractDocuments.envelope(stream).json)
        #expect(errors.isEmpty, "\(service) \(topic): \(errors.prefix(5).joined(separator: "; "))")
    }
    #expect(!kinds.isEmpty)
}

/// A request of every method that takes params, every optional member set, keyed by method name.
func exampleParams() throws -> [String: any Encodable] {
    let day = Date(timeIntervalSince1970: 1_795_000_000.123)
    let history = PriceHistory(asset: "BTC", currency: "USD", points: [PricePoint(time: day, price: try ExactDecimal("90123.45"))])
    return [
        "snapshot": SnapshotRequest(prefix: "quote."),
        "history": HistoryRequest(asset: "BTC", currency: "USD", days: 7),
        "refresh": RefreshRequest(feed: "bitso"),
        "rates.history": RatesHistoryRequest(start: "2026-11-02", end: "2026-11-06"),
        "coins.add": CoinRequest(coin: "solana"),
        "coins.remove": CoinRequest(coin: "solana"),
        "coins.known": KnownCoinsRequest(query: "bit", limit: 5),
        "candles": CandlesRequest(market: "BTC-MXN", interval: .oneHour, source: "bitso-ws", start: day, end: day.addingTimeInterval(86_400)),
        "convert": ConvertRequest(amount: try ExactDecimal("10.00"), from: "EUR", to: "USD", source: "ecb"),
        "total": TotalRequest(items: [CurrencyAmount(amount: try ExactDecimal("1.5"), currency: "EUR")], to: "USD", source: "gnb"),
        "rates": RatesRequest(base: "EUR", source: "ecb"),
        "convert.series": ConvertSeriesRequest(history: history, to: "EUR"),
        "trades.add": AddTradeRequest(kind: .buy, asset: "BTC", amount: try ExactDecimal("0.5"), price: try ExactDecimal("90000"), currency: "USD",
                                      fee: CurrencyAmount(amount: try ExactDecimal("2"), currency: "USD"), date: day, requestId: "r-1", by: "alice",
                                      portfolio: "Pension"),
        "trades.edit": EditTradeRequest(id: "t-1", activity: AddTradeRequest(
            kind: .sell, asset: "BTC", amount: try ExactDecimal("0.25"), price: try ExactDecimal("95000"), currency: "USD",
            fee: CurrencyAmount(amount: try ExactDecimal("1.50"), currency: "EUR"), date: day, requestId: "r-3", by: "alice", portfolio: "main")),
        "trades.remove": RemoveTradeRequest(id: "t-1", requestId: "r-4", by: "alice"),
        "trades.list": TradesRequest(portfolio: "Pension"),
        "trades.history": TradeHistoryRequest(id: "t-1", portfolio: "main"),
        "holdings": HoldingsRequest(currency: "EUR", portfolio: "Pension"),
        "gains": GainsRequest(currency: "SEK", method: .average, portfolio: "Pension"),
        "performance": PerformanceRequest(currency: "SEK", range: .yearToDate, portfolio: "Pension"),
        "watchlist.add": WatchlistRequest(asset: "ETH"),
        "watchlist.remove": WatchlistRequest(asset: "ETH"),
        "product": ProductRequest(sku: "T2006", currency: "EUR"),
        "activities.import": ImportActivitiesRequest(format: .csv, content: "Date,Code,Currency,Price,Quantity,Action,Fee\n2026-11-02,BTC,USD,90000,0.5,buy,2\n",
                                                     dryRun: false, by: "alice", portfolio: "Pension"),
        "activities.export": ExportActivitiesRequest(format: .json, portfolio: "Pension"),
        "view": ViewRequest(screen: "coin", locale: "de_AT", currency: "EUR", filter: "all", scope: "all", symbol: "BTC", book: "btc_mxn", sku: "T2006"),
    ]
}

/// A JSON encoder writing times as the wire does (ISO 8601 UTC with milliseconds).
func wireEncoder() -> JSONEncoder {
    let encoder = JSONEncoder()
    let format = DateFormatter()
    format.locale = Locale(identifier: "en_US_POSIX")
    format.timeZone = TimeZone(identifier: "UTC")
    format.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
    encoder.dateEncodingStrategy = .formatted(format)
    return encoder
}

/// Every method's params, encoded from a full example, validate against its params schema with no member left out of it.
@Test func requestsValidate() throws {
    let encoder = wireEncoder()
    let examples = try exampleParams()
    var covered: Set<String> = []
    for service in ContractCatalog.services {
        for method in service.methods where method.method.params != "NoParams" {
            let example = try #require(examples[method.method.name], "no example params of \(service.name).\(method.method.name)")
            covered.insert(method.method.name)
            let json = try JSONValue(parsing: encoder.encode(example))
            let errors = strict.errors(json, against: method.params.json)
            #expect(errors.isEmpty, "\(service.name).\(method.method.name): \(errors.joined(separator: "; "))")
        }
        for method in service.methods where method.method.params == "NoParams" {
            #expect(strict.errors([:], against: method.params.json).isEmpty)
        }
    }
    #expect(covered == Set(examples.keys))
}

/// An order book, a trade, a candle and a candle series, encoded from the contract's types with every member set,
/// validate against their schemas with nothing left out; a level's price as a JSON number, a side other than buy or
/// sell and an interval of 2m do not.
@Test func marketDataValidates() throws {
    let fetcher = try #require(ContractCatalog.services.first { $0.name == "rates-fetcher" })
    func payload(_ kind: String) throws -> JSONSchema { try #require(fetcher.streams.first { $0.stream.kind == kind }).payload }
    let market = MarketPair(base: "BTC", quote: "MXN")
    let time = Date(timeIntervalSince1970: 1_795_687_200.398)
    let book = BookDepth(
        source: "bitso-ws", market: market, sequence: 27_214_318,
        bids: [BookLevel(price: try ExactDecimal("1219480.00"), size: try ExactDecimal("0.01920000"))],
        asks: [BookLevel(price: try ExactDecimal("1219800.00"), size: try ExactDecimal("0.00410000"))], time: time)
    let trade = MarketTrade(
        source: "bitso-ws", market: market, id: "85761234", price: try ExactDecimal("1219800.00"), size: try ExactDecimal("0.0021"),
        side: .buy, time: time)
    let candle = Candle(
        source: "bitso-ws", market: market, interval: .oneMinute, start: Date(timeIntervalSince1970: 1_795_687_200),
        open: try ExactDecimal("1219650.00"), high: try ExactDecimal("1219800.00"), low: try ExactDecimal("1219480.00"),
        close: try ExactDecimal("1219800.00"), volume: try ExactDecimal("0.0134"), count: 7)
    let candles = try #require(fetcher.methods.first { $0.method.name == "candles" })
    let examples: [(String, any Encodable, JSONSchema)] = [
        ("book", book, try payload("book")), ("trade", trade, try payload("trade")), ("candle", candle, try payload("candle")),
        ("candles", CandleSeries(source: "bitso-ws", market: market, interval: .oneMinute, candles: [candle]), candles.result),
    ]
    for (name, example, schema) in examples {
        let errors = strict.errors(try JSONValue(parsing: wireEncoder().encode(example)), against: schema.json)
        #expect(errors.isEmpty, "\(name): \(errors.joined(separator: "; "))")
    }
    let bad: [(String, String)] = [
        ("book", #"{"source":"s","market":{"base":"BTC","quote":"MXN"},"sequence":1,"bids":[{"price":1.5,"size":"1"}],"asks":[]}"#),
        ("trade", #"{"source":"s","market":{"base":"BTC","quote":"MXN"},"id":"1","price":"1","size":"1","side":"hold","time":"2026-11-26T10:00:00.000Z"}"#),
        ("candle", #"{"source":"s","market":{"base":"BTC","quote":"MXN"},"interval":"2m","start":"2026-11-26T10:00:00.000Z","open":"1","high":"1","low":"1","close":"1","volume":"0","count":1}"#),
    ]
    for (kind, text) in bad {
        #expect(strict.errors(try JSONValue(parsing: Data(text.utf8)), against: try payload(kind).json).count == 1, "\(kind): \(text)")
    }
}

/// The validator refuses what the contract forbids: money as a number, a missing member, an unknown member, a time without milliseconds.
@Test func schemasRefuseWhatTheContractForbids() throws {
    let convert = try #require(ContractCatalog.services.first { $0.name == "converter" }?.methods.first { $0.method.name == "convert" })
    let good: JSONValue = ["amount": "11.72", "currency": "USD", "rate": "1.17", "rateExact": false, "path": ["EUR", "USD"], "source": "ecb"]
    #expect(strict.errors(good, against: convert.result.json).isEmpty)
    let cases: [(JSONValue, String)] = [
        (["amount": .number(11.72), "currency": "USD", "rate": "1.17", "rateExact": false, "path": ["EUR", "USD"], "source": "ecb"],
         "$.amount: expected string, found 11.72"),
        (["amount": "11.72", "currency": "USD", "rate": "1.17", "rateExact": false, "path": ["EUR", "USD"]], "$: missing required member \"source\""),
        (["amount": "11.72", "currency": "usd", "rate": "1.17", "rateExact": false, "path": ["EUR", "USD"], "source": "ecb"],
         "$.currency: \"usd\" does not match ^[A-Z0-9]{2,12}$"),
        (["amount": "11.72", "currency": "USD", "rate": "1.17", "rateExact": false, "path": ["EUR", "USD"], "source": "ecb", "fee": "0"],
         "$: member \"fee\" is not in the schema"),
    ]
    for (value, error) in cases {
        #expect(strict.errors(value, against: convert.result.json) == [error])
    }
    let trade = try #require(ContractCatalog.services.first { $0.name == "portfolio" }?.methods.first { $0.method.name == "trades.add" })
    let request: JSONValue = ["asset": "BTC", "amount": "1", "price": "100", "currency": "USD", "date": "2026-11-26T07:00:00Z", "requestId": "r1"]
    #expect(strict.errors(request, against: trade.params.json).contains { $0.hasPrefix("$.date: \"2026-11-26T07:00:00Z\" does not match") })
    let lenient = SchemaValidator(definitions: definitions, strict: false)
    #expect(lenient.errors(cases[3].0, against: convert.result.json).isEmpty, "a consumer ignores members added later")
}

/// The committed documents in docs/contract are what the contract types generate.
@Test func committedDocumentsAreCurrent() throws {
    let folder = root.appendingPathComponent("docs/contract")
    for (path, text) in try ContractDocuments.render().sorted(by: { $0.key < $1.key }) {
        let committed = try? String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
        let isCurrent = committed == text  // compared apart, so a failure names the file instead of printing it
        #expect(isCurrent, "docs/contract/\(path) is missing or out of date: regenerate with `swift run tickwire-contract generate --out docs/contract` and commit it")
    }
}

/// The documents' servers are the stack's default endpoints.
@Test func endpointsAreTheDefaults() {
    let endpoints = Dictionary(uniqueKeysWithValues: ContractCatalog.services.map { ($0.name, [$0.requests, $0.publishes]) })
    #expect(endpoints["rates-fetcher"] == [DefaultEndpoint.ratesFetcherRep.rawValue, DefaultEndpoint.ratesFetcherPub.rawValue])
    #expect(endpoints["converter"] == [DefaultEndpoint.converterRep.rawValue, DefaultEndpoint.converterPub.rawValue])
    #expect(endpoints["portfolio"] == [DefaultEndpoint.portfolioRep.rawValue, DefaultEndpoint.portfolioPub.rawValue])
    #expect(endpoints["presenter"] == [DefaultEndpoint.presenterRep.rawValue, nil])
    #expect(endpoints["plugin"] == [ContractCatalog.pluginEndpoint, nil], "a plugin answers on its own endpoint")
}

/// A panel with every member set (a section of each part, a row action, a field of each kind) validates against
/// `panel`'s result schema, and one whose field has an unknown kind does not.
@Test func panelValidates() throws {
    let panel = try #require(ContractCatalog.services.first { $0.name == "plugin" }?.methods.first { $0.method.name == "panel" })
    let example = Panel(title: "Alerts", summary: "Rules on prices.", sections: [
        PanelSection(title: "Rules", text: "Every rule.", table: PanelTable(columns: ["Asset", "Threshold"], rows: [
            PanelRow(cells: ["BTC", "65000"], action: PanelForm(method: "alerts.remove", submit: "Remove",
                                                               fields: [PanelField(name: "id", kind: .hidden, value: "r-1")], confirm: true)),
        ], empty: "No rules.")),
        PanelSection(form: PanelForm(method: "alerts.add", submit: "Add", fields: PanelField.Kind.allCases.map {
            PanelField(name: $0.rawValue, label: $0.rawValue, kind: $0, value: "1", options: ["1", "2"], required: true, placeholder: "1")
        })),
    ], topics: ["alert."])
    let json = try JSONValue(parsing: JSONEncoder().encode(example))
    #expect(strict.errors(json, against: panel.result.json).isEmpty, "\(strict.errors(json, against: panel.result.json))")
    let unknownKind = try JSONValue(parsing: Data(#"{"title":"A","sections":[{"form":{"method":"m","submit":"s","fields":[{"name":"n","kind":"date"}]}}],"topics":[]}"#.utf8))
    #expect(strict.errors(unknownKind, against: panel.result.json).count == 1)
}

/// Each OpenRPC method lists its params by name with the params type's required members, and its result.
@Test func openRPCDescribesParamsByName() throws {
    let portfolio = try #require(ContractCatalog.services.first { $0.name == "portfolio" })
    let document = ContractDocuments.openRPC(portfolio)
    let method = try #require(document["methods"]?.array?.first { $0["name"]?.string == "product" })
    let params = try #require(method["params"]?.array)
    #expect(params.compactMap { $0["name"]?.string } == ["currency", "sku"])
    #expect(params.map { $0["required"] } == [.bool(false), .bool(true)])
    #expect(method["result"]?["schema"] == ["$ref": "#/components/schemas/ProductDetail"])
    #expect(document["components"]?["schemas"]?["ProductDetail"] != nil)
}
