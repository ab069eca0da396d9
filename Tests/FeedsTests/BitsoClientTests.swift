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
