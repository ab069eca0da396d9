import AsyncHTTPClient
import Feeds
import Foundation
import Hummingbird
import Market
import Money
import Testing

@Suite struct BitsoClientTests {
    /// The test client decodes the recorded books into exact limits and Bitso's book ids into pairs.
    @Test func testClientBooks() async throws {
        let books = try await BitsoClient.test.availableBooks()
        #expect(books.map(\.book) == ["btc_mxn", "eth_mxn", "xrp_btc", "xrp_mxn", "eth_btc", "bch_btc"])
        let btc = try #require(books.first)
        #expect(btc.market == MarketPair(base: "BTC", quote: "MXN"))
        #expect(btc.market.displayName == "BTC MXN")
        #expect(btc.minimumAmount == (try dec("0.00015")))
        #expect(btc.maximumAmount == (try dec("500.00000000")))
        #expect(btc.minimumPrice == (try dec("500.00")))
        #expect(btc.maximumPrice == (try dec("80000.00")))
        #expect(btc.minimumValue == (try dec("5")))
        #expect(btc.maximumValue == (try dec("10000000.00")))
        #expect(books[2].minimumPrice == (try dec("0.00000100")))
    }

    /// The single-book ticker comes from its own recording; other books from the all-tickers one.
    @Test func testClientTickers() async throws {
        let btc = try await BitsoClient.test.ticker("btc_mxn")
        #expect(btc.source == "bitso")
        #expect(btc.market.symbol == "BTC-MXN")
        #expect(btc.last == (try dec("5633.98")))
        #expect(btc.ask == (try dec("5632.24")))
        #expect(btc.bid == (try dec("5520.01")))
        #expect(btc.high == (try dec("5750.00")))
        #expect(btc.volume == (try dec("22.31349615")))
        #expect(btc.time == Date(timeIntervalSince1970: 1_460_137_951))

        let all = try await BitsoClient.test.tickers()
        #expect(all.count == 6)
        let eth = try #require(all.first { $0.market.symbol == "ETH-MXN" })
        #expect(eth.last == (try dec("4630.00")))
        #expect(eth.vwap == (try dec("4505.92746695")))
        #expect(eth.time == Date(timeIntervalSince1970: 1_502_125_963))
        #expect(try await BitsoClient.test.ticker("xrp_btc").last == (try dec("0.00005200")))

        let missing = await feedError { try await BitsoClient.test.ticker("doge_mxn") }
        #expect(missing == .notInFixtures("bitso ticker for book doge_mxn"))
    }

    /// The live client asks for each endpoint with the right path and query and decodes what the test client does.
    @Test func liveClientMatchesFixtures() async throws {
        let expectedBooks = try await BitsoClient.test.availableBooks()
        let expectedTicker = try await BitsoClient.test.ticker("btc_mxn")
        let expectedTickers = try await BitsoClient.test.tickers()
        try await FakeAPI.serve([
            "/v3/available_books/": .fixture(.bitsoAvailableBooks),
            "/v3/ticker/?book=btc_mxn": .fixture(.bitsoTickerBTCMXN),
            "/v3/ticker/": .fixture(.bitsoTickers),
        ]) { url in
            let live = BitsoClient.live(http: .shared, baseURL: url)
            let books = try await live.availableBooks()
            let ticker = try await live.ticker("btc_mxn")
            let tickers = try await live.tickers()
            #expect(books == expectedBooks)
            #expect(ticker == expectedTicker)
            #expect(tickers == expectedTickers)
        }
    }

    /// The recording with `fees` really carries them: every book has a `flat_rate` and a volume `structure`.
    @Test func feesFixtureHasFees() throws {
        let entries = try payloadEntries(.bitsoAvailableBooksWithFees)
        #expect(entries.count == 25)
        for entry in entries {
            let fees = try #require(entry["fees"] as? [String: Any], "\(entry["book"] ?? "?") has no fees")
            let flat = try #require(fees["flat_rate"] as? [String: String])
            #expect(flat["maker"] != nil && flat["taker"] != nil)
            let structure = try #require(fees["structure"] as? [[String: String]])
            #expect(!structure.isEmpty)
        }
    }

    /// The wire parser reads every book of the recording with `fees` to its exact limits, as the JSON writes them,
    /// and reads past `fees`, `tick_size` and `default_chart` (the exercise ignores fees).
    @Test func testClientReadsBooksWithFees() async throws {
        let books = try await BitsoClient.test(books: .bitsoAvailableBooksWithFees).availableBooks()
        #expect(books == (try expectedBooks(.bitsoAvailableBooksWithFees)))
        #expect(books.count == 25)
        let btc = try #require(books.first)
        #expect(btc.book == "btc_mxn")
        #expect(btc.market.displayName == "BTC MXN")
        #expect(btc.minimumAmount == (try dec("0.00005")))
        #expect(btc.maximumPrice == (try dec("10000000")))
        let xrp = try #require(books.first { $0.book == "xrp_btc" })
        #expect(xrp.maximumPrice == (try dec("0.0014")))
        #expect(xrp.minimumAmount == (try dec("0.000005")))
        #expect(books.last?.market == MarketPair(base: "BTC", quote: "BRL"))
        // The default test client keeps its six-book recording.
        #expect(try await BitsoClient.test.availableBooks().count == 6)
    }

    /// The mock client serves the same books from the recording with `fees` as the test client.
    @Test func mockClientReadsBooksWithFees() async throws {
        let mock = BitsoClient.mock(seed: 5, books: .bitsoAvailableBooksWithFees, now: fixedNow)
        #expect(try await mock.availableBooks() == (try expectedBooks(.bitsoAvailableBooksWithFees)))
    }

    /// The live client, served the recording with `fees` by the local fake API, decodes it as the test client does.
    @Test func liveClientReadsBooksWithFees() async throws {
        let expected = try expectedBooks(.bitsoAvailableBooksWithFees)
        try await FakeAPI.serve(["/v3/available_books/": .fixture(.bitsoAvailableBooksWithFees)]) { url in
            let books = try await BitsoClient.live(http: .shared, baseURL: url).availableBooks()
            #expect(books == expected)
        }
    }

    /// `fees` is ignored whatever its shape: missing, null, a string, or with values that are not numbers.
    @Test(arguments: [
        "", #","fees":null"#, #","fees":"none""#,
        #","fees":{"flat_rate":{"maker":"half","taker":-1},"structure":"tiers"}"#,
    ])
    func feesOfAnyShapeAreIgnored(fees: String) async throws {
        let book = #"{"book":"btc_mxn","minimum_price":"500","maximum_price":"10000000","minimum_amount":"0.00005","#
            + #""maximum_amount":"500","minimum_value":"5","maximum_value":"10000000"\#(fees)}"#
        try await FakeAPI.serve(["/v3/available_books/": .text(#"{"success":true,"payload":[\#(book)]}"#)]) { url in
            let books = try await BitsoClient.live(http: .shared, baseURL: url).availableBooks()
            #expect(books.map(\.book) == ["btc_mxn"])
            #expect(books.first?.maximumValue == (try dec("10000000")))
        }
    }

    /// Bitso's own error body becomes an error with its code and message, whatever the HTTP status.
    @Test(arguments: [HTTPResponse.Status.badRequest, .ok])
    func bitsoErrorBody(status: HTTPResponse.Status) async throws {
        // The body Bitso sends for an unknown book.
        let body = #"{"success":false,"error":{"code":"0301","message":"Unknown OrderBook"}}"#
        try await FakeAPI.serve(["/v3/ticker/?book=doge_mxn": .text(body, status: status)]) { url in
            let error = await feedError { try await BitsoClient.live(http: .shared, baseURL: url).ticker("doge_mxn") }
            #expect(error == .api(
                source: "bitso", code: "0301", message: "Unknown OrderBook",
                url: "\(url.absoluteString)/v3/ticker/?book=doge_mxn"
            ))
        }
    }

    /// "success": true without a payload is not data.
    @Test func successWithoutPayload() async throws {
        try await FakeAPI.serve(["/v3/ticker/": .text(#"{"success":true}"#)]) { url in
            let error = await feedError { try await BitsoClient.live(http: .shared, baseURL: url).tickers() }
            guard case let .malformed(_, reason, _) = error else {
                Issue.record("expected .malformed, got \(String(describing: error))")
                return
            }
            #expect(reason == "success without a payload")
        }
    }

    /// A ticker time that is not ISO 8601 (or not a real date) is a malformed answer naming it.
    @Test(arguments: ["2017-08-07 17:12:43", "2017-02-30T17:12:43+00:00", "yesterday"])
    func badTickerTime(time: String) async throws {
        let body = #"{"success":true,"payload":[{"book":"btc_mxn","last":"1.0","created_at":"\#(time)"}]}"#
        try await FakeAPI.serve(["/v3/ticker/": .text(body)]) { url in
            let error = await feedError { try await BitsoClient.live(http: .shared, baseURL: url).tickers() }
            guard case let .malformed(_, reason, _) = error else {
                Issue.record("expected .malformed, got \(String(describing: error))")
                return
            }
            #expect(reason == "not an ISO 8601 time: \(time)")
        }
    }
}

/// The `payload` entries of a recorded Bitso answer, read with `JSONSerialization` rather than the client's decoder.
private func payloadEntries(_ fixture: FeedFixture) throws -> [[String: Any]] {
    let object = try #require(try JSONSerialization.jsonObject(with: fixture.data()) as? [String: Any])
    #expect(object["success"] as? Bool == true)
    return try #require(object["payload"] as? [[String: Any]])
}

/// The books a recording holds, built from its JSON strings independently of the wire parser.
private func expectedBooks(_ fixture: FeedFixture) throws -> [BookInfo] {
    try payloadEntries(fixture).map { entry in
        func limit(_ key: String) throws -> ExactDecimal { try dec(try #require(entry[key] as? String, "\(key)")) }
        let book = try #require(entry["book"] as? String)
        let parts = book.split(separator: "_").map(String.init)
        try #require(parts.count == 2)
        return BookInfo(
            book: book, market: MarketPair(base: parts[0], quote: parts[1]),
            minimumAmount: try limit("minimum_amount"), maximumAmount: try limit("maximum_amount"),
            minimumPrice: try limit("minimum_price"), maximumPrice: try limit("maximum_price"),
            minimumValue: try limit("minimum_value"), maximumValue: try limit("maximum_value")
        )
    }
}
