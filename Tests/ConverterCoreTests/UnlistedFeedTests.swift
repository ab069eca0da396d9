import BusContract
import Conversion
import Foundation
import Logging
import Market
import Money
import Testing
import TickwireContract

/// A feed the ranking does not list (a plugin) cannot move what the listed feeds and the fiat source price: its
/// fiat-based quotes are no edges, and its quotes of an asset a listed live feed quotes are not either; an asset
/// of its own is still priced in every display currency.
@Suite("Feeds the ranking does not list")
struct UnlistedFeedTests {
    private static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    private static let currencies = ["USD", "SEK", "EUR", "MXN"]

    /// ECB's euro rates, CoinGecko's BTC in USD, CoinGecko live.
    private static func snapshot() throws -> [StreamUpdate<FetcherUpdate>] {
        [
            try rateMessage("ecb", "EUR", "USD", "1.25"), try rateMessage("ecb", "EUR", "SEK", "11.5"),
            try rateMessage("ecb", "EUR", "MXN", "20"),
            try quoteMessage("coingecko", "BTC", "USD", last: "70000"),
            try statusMessage("coingecko", .ok),
        ]
    }

    /// "BTC.SEK" → "644000.00000000" of a full repricing of `messages` applied in order.
    private static func priced(_ messages: [StreamUpdate<FetcherUpdate>], ranking: FeedRanking = .standard) throws -> [String: String] {
        var rated = try book(messages, ranking: ranking)
        return Dictionary(uniqueKeysWithValues: Pricing.prices(in: currencies, book: &rated).map { ("\($0.asset).\($0.currency)", "\($0.price) \($0.source ?? "-")") })
    }

    /// A plugin's USD-SEK quote does not replace ECB's rate: BTC in SEK stays 70000 / 1.25 × 11.5, and so does a
    /// conversion of dollars into kronor; listed, the same quote would be an edge.
    @Test func aPluginsFiatQuoteIsNoEdge() throws {
        let honest = try Self.priced(Self.snapshot())
        #expect(honest["BTC.SEK"] == "644000.00000000 coingecko")
        let attacked = try Self.snapshot() + [try quoteMessage("evil", "USD", "SEK", last: "1000")]
        #expect(try Self.priced(attacked) == honest)
        let rated = try book(attacked)
        #expect(try convert("1", "USD", "SEK", source: "market", in: rated).amount == (try dec("9.20")))
        #expect(rated.chosenQuote(for: MarketPair(base: "USD", quote: "SEK")) == nil)
        #expect(!rated.preferredQuotes.contains { $0.source == "evil" })
        // Even with no listed feed quoting anything of USD, and with the code only the fiat source knows.
        let fiatOnly = try Self.snapshot() + [try rateMessage("ecb", "EUR", "BGN", "1.9558"), try quoteMessage("evil", "BGN", "USD", last: "1000")]
        #expect(try Self.priced(fiatOnly)["BTC.SEK"] == "644000.00000000 coingecko")
        #expect(try book(fiatOnly).chosenQuote(for: MarketPair(base: "BGN", quote: "USD")) == nil)
        // Listed by the operator, the feed is trusted.
        let listed = try Self.priced(attacked, ranking: FeedRanking(["evil", "coingecko"]))
        #expect(listed["BTC.SEK"] == "70000000.00000000 coingecko")
    }

    /// A plugin's BTC-SEK is one hop where CoinGecko's BTC → USD → SEK is more, but it does not price BTC while
    /// CoinGecko is live; it does when CoinGecko is stale, and when the plugin is listed first.
    @Test func aPluginsDirectQuoteDoesNotBeatTheListedPath() async throws {
        let evil = try quoteMessage("evil", "BTC", "SEK", last: "1")
        #expect(try Self.priced(Self.snapshot() + [evil])["BTC.SEK"] == "644000.00000000 coingecko")
        #expect(try Self.priced(Self.snapshot() + [evil])["BTC.USD"] == "70000.00000000 coingecko")
        let first = try Self.priced(Self.snapshot() + [evil], ranking: FeedRanking(["evil", "coingecko"]))
        #expect(first["BTC.SEK"] == "1.00000000 evil")

        let state = ConverterState(currencies: Self.currencies, logger: Self.logger)
        _ = await state.apply(.snapshot(try Self.snapshot()))
        #expect(await state.apply(.update(evil)).isEmpty, "no price moves")
        let stale = await state.apply(.update(try statusMessage("coingecko", .stale, seq: 2)))
        #expect(stale.first { $0.currency == "SEK" }.map { "\($0.price) \($0.source ?? "-")" } == "1.00000000 evil")
        let live = await state.apply(.update(try statusMessage("coingecko", .live, seq: 3)))
        #expect(live.first { $0.currency == "SEK" }.map { "\($0.price) \($0.source ?? "-")" } == "644000.00000000 coingecko")
    }

    /// A plugin's new asset is priced in every display currency through its one quote.
    @Test func aPluginsNewAssetIsPricedEverywhere() throws {
        let prices = try Self.priced(Self.snapshot() + [try quoteMessage("evil", "XMR", "USD", last: "125")])
        #expect(prices["XMR.USD"] == "125.00000000 evil")
        #expect(prices["XMR.EUR"] == "100.00000000 evil")
        #expect(prices["XMR.SEK"] == "1150.00000000 evil")
        #expect(prices["XMR.MXN"] == "2000.00000000 evil")
    }

    /// A plugin's asset with quotes in two currencies has one edge only (the fiat quote first, then by symbol), so
    /// it is never a step between two other currencies: "AAA" would otherwise join USD to SEK in two steps,
    /// tying ECB's USD → EUR → SEK and winning on its name.
    @Test func aPluginsAssetIsNoBridge() throws {
        let bridged = try Self.snapshot() + [
            try quoteMessage("evil", "AAA", "USD", last: "1"), try quoteMessage("evil", "AAA", "SEK", last: "1000"),
            try quoteMessage("evil", "AAA", "BTC", last: "1"),
        ]
        let prices = try Self.priced(bridged)
        #expect(prices["BTC.SEK"] == "644000.00000000 coingecko")
        #expect(prices["AAA.SEK"] == "1000.00000000 evil", "its SEK quote is its edge (fiat, then by symbol)")
        #expect(prices["AAA.USD"] == "108.69565217 evil", "its USD price goes through SEK and ECB's rates")
        let rated = try book(bridged)
        #expect(try convert("1", "USD", "SEK", source: "market", in: rated).path == ["USD", "EUR", "SEK"])
        #expect(rated.chosenQuote(for: MarketPair(base: "AAA", quote: "USD")) == nil)
        #expect(rated.chosenQuote(for: MarketPair(base: "AAA", quote: "BTC")) == nil)
    }
}
