import AsyncHTTPClient
import Foundation
import Market
import Money
import RatesFetcherCore
import RatesFetcherEngine
import Testing

@Suite("Walked histories of mock feeds' markets")
struct WalkedHistoryTests {
    private let quote = Quote(source: "bitso", market: MarketPair(base: "ETH", quote: "MXN"), last: ExactDecimal(61_000))

    /// An hourly walk over the days asked, ending at the quote's price at the end given, the same series every time.
    @Test func endsAtTheQuote() throws {
        let end = Date(timeIntervalSince1970: 1_795_478_400)
        let history = try quote.walkedHistory(days: 30, seed: 1, end: end)
        #expect(history.asset == "ETH" && history.currency == "MXN")
        #expect(history.points.count == 30 * 24 + 1)
        #expect(history.points.last == PricePoint(time: end, price: ExactDecimal(61_000)))
        #expect(history.points.first?.time == end.addingTimeInterval(-30 * 86_400))
        #expect(try quote.walkedHistory(days: 30, seed: 1, end: end) == history)
        let low = ExactDecimal(51_850), high = ExactDecimal(70_150)
        #expect(history.points.allSatisfy { low <= $0.price && $0.price <= high }, "within 15 %")
    }

    /// Mock feeds' quotes get one; a live feed's quotes never do.
    @Test func onlyForMockFeeds() throws {
        let mock = try FeedSelection().environment(http: nil, logger: quietLogger)
        #expect(try mock.quoteHistory?(quote, 2).points.count == 49)
        let live = try FeedSelection(overrides: ["bitso": .live]).environment(http: HTTPClient.shared, logger: quietLogger)
        let walked = try #require(live.quoteHistory, "the other feeds are still mocks")
        #expect(throws: (any Error).self) { try walked(quote, 2) }
        let wazirx = Quote(source: "wazirx", market: MarketPair(base: "TRX", quote: "INR"), last: ExactDecimal(5))
        #expect(try walked(wazirx, 1).points.count == 25)
        let allLive = FeedSelection(defaultVariant: .live, sources: ["gnb": "http://127.0.0.1:1", "masterdata": "/nonexistent/masterdata.json"])
        #expect(try allLive.environment(http: HTTPClient.shared, logger: quietLogger).quoteHistory == nil)
    }
}
