import AsyncHTTPClient
import Feeds
import Foundation
import Market
import Money
import Testing

@Suite struct WazirXClientTests {
    /// The test client decodes the recorded tickers, with the 24-hour change worked out exactly from the open price.
    @Test func testClientDecodesFixture() async throws {
        let quotes = try await WazirXClient.test.tickers()
        #expect(quotes.map(\.market.symbol) == ["BTC-INR", "XRP-INR", "TRX-INR", "EOS-INR"])
        let btc = try #require(quotes.first)
        #expect(btc.source == "wazirx")
        #expect(btc.last == (try dec("2590224.0")))
        #expect(btc.open == (try dec("2533223")))
        #expect(btc.high == (try dec("2615145.0")))
        #expect(btc.low == (try dec("2508749.0")))
        #expect(btc.volume == (try dec("15.23415")))
        #expect(btc.bid == (try dec("2590224.0")))
        #expect(btc.ask == (try dec("2594885.0")))
        #expect(btc.change24h == (try dec("57001.0")))
        #expect(btc.changePercent24h == (try dec("2.2501")))
        #expect(btc.time == time(milliseconds: 1_681_252_518_000))
    }

    /// The live client fetches `/sapi/v1/tickers/24hr` and decodes what the test client does.
    @Test func liveClientMatchesFixture() async throws {
        let expected = try await WazirXClient.test.tickers()
        try await FakeAPI.serve(["/sapi/v1/tickers/24hr": .fixture(.wazirxTickers)]) { url in
            let tickers = try await WazirXClient.live(http: .shared, baseURL: url).tickers()
            #expect(tickers == expected)
        }
    }

    /// WazirX's error body (the documented sample) becomes an error with its code and message.
    @Test func wazirxErrorBody() async throws {
        let body = #"{"code": -1121, "message": "Invalid symbol."}"#
        try await FakeAPI.serve(["/sapi/v1/tickers/24hr": .text(body, status: .badRequest)]) { url in
            let error = await feedError { try await WazirXClient.live(http: .shared, baseURL: url).tickers() }
            #expect(error == .api(
                source: "wazirx", code: "-1121", message: "Invalid symbol.",
                url: "\(url.absoluteString)/sapi/v1/tickers/24hr"
            ))
        }
    }
}
