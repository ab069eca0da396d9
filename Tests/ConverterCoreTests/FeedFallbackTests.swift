import BusContract
import Conversion
import Foundation
import Logging
import Market
import Money
import Synchronization
import Testing
import TickwireContract

@Suite("Falling back from a stale feed")
struct FeedFallbackTests {
    private static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })
    private let quoteTime = Date(timeIntervalSince1970: 1_765_000_000)

    /// Kraken ranked first, then Bitso: both quote BTC-USD, only Bitso quotes ETH-USD; ECB's USD-SEK.
    private func state() async throws -> ConverterState {
        let state = ConverterState(currencies: ["USD", "SEK"], ranking: try FeedRanking(["kraken", "bitso"]), logger: Self.logger)
        await state.apply(.snapshot([
            try rateMessage("ecb", "USD", "SEK", "10"),
            try quoteMessage("kraken", "BTC", "USD", last: "70000", changePercent24h: "1.5", time: quoteTime),
            try quoteMessage("bitso", "BTC", "USD", last: "69000", changePercent24h: "-2", time: quoteTime),
            try quoteMessage("bitso", "ETH", "USD", last: "3500", time: quoteTime),
            try statusMessage("kraken", .live), try statusMessage("bitso", .ok),
        ]))
        return state
    }

    /// "BTC/USD 70000 kraken" for each price, sorted.
    private static func described(_ prices: [AssetPrice]) -> [String] {
        prices.map { "\($0.asset)/\($0.currency) \($0.price.description) \($0.source ?? "-")" }.sorted()
    }

    /// The first-ranked feed's quote prices the market and is named as the price's source.
    @Test func firstRankedLiveFeedWins() async throws {
        let state = ConverterState(currencies: ["USD", "SEK"], ranking: try FeedRanking(["kraken", "bitso"]), logger: Self.logger)
        let prices = await state.apply(.snapshot([
            try rateMessage("ecb", "USD", "SEK", "10"),
            try quoteMessage("kraken", "BTC", "USD", last: "70000", time: quoteTime),
            try quoteMessage("bitso", "BTC", "USD", last: "69000", time: quoteTime),
        ]))
        #expect(Self.described(prices) == ["BTC/SEK 700000.00000000 kraken", "BTC/USD 70000.00000000 kraken"])
    }

    /// Kraken goes stale: BTC is re-priced at once from Bitso, whose price says it stands in for Kraken; ETH,
    /// which Kraken does not quote, is not touched. Kraken live again wins again, at once.
    @Test func staleFeedFallsBackAndComesBack() async throws {
        let state = try await state()
        let stale = await state.apply(.update(try statusMessage("kraken", .stale, seq: 2)))
        #expect(Self.described(stale) == [
            "BTC/SEK 690000.00000000 bitso (kraken stale)", "BTC/USD 69000.00000000 bitso (kraken stale)",
        ])
        #expect(stale.first?.changePercent24h == (try dec("-2")), "the 24 h change is the chosen quote's")

        #expect(await state.apply(.update(try statusMessage("kraken", .stale, seq: 3))).isEmpty, "no news, no prices")
        let newer = await state.apply(.update(try quoteMessage("kraken", "BTC", "USD", last: "70500", time: quoteTime, seq: 2)))
        #expect(newer.isEmpty, "a stale feed's quote does not price the market while another is live")

        let live = await state.apply(.update(try statusMessage("kraken", .live, seq: 4)))
        #expect(Self.described(live) == ["BTC/SEK 705000.00000000 kraken", "BTC/USD 70500.00000000 kraken"])
        #expect(live.first?.changePercent24h == nil, "kraken's latest quote carries no 24 h change")
    }

    /// A gone feed is passed over too, and its retracted quotes (the hub retracts a gone feed's topics) are
    /// forgotten: the price then names Bitso alone.
    @Test func goneFeedFallsBackAndItsRetractedQuotesGo() async throws {
        let state = try await state()
        let gone = await state.apply(.update(try statusMessage("kraken", .gone, seq: 2)))
        #expect(Self.described(gone) == ["BTC/SEK 690000.00000000 bitso (kraken gone)", "BTC/USD 69000.00000000 bitso (kraken gone)"])
        let retracted = await state.applyChanges(.removed(try Topic("quote.kraken.BTC-USD")))
        #expect(Self.described(retracted.changed) == ["BTC/SEK 690000.00000000 bitso", "BTC/USD 69000.00000000 bitso"])
        #expect(retracted.removed.isEmpty)
        // A plugin's only quotes retracted take its asset's prices away.
        _ = await state.apply(.update(try quoteMessage("kraken", "XYZ", "USD", last: "2", time: quoteTime, seq: 3)))
        let xyz = await state.applyChanges(.removed(try Topic("quote.kraken.XYZ-USD")))
        #expect(xyz.removed.map { "\($0.asset)/\($0.currency)" }.sorted() == ["XYZ/SEK", "XYZ/USD"])
    }

    /// A quote counts as its topic's feed's (rates-fetcher vouches for the topic), whatever source its payload
    /// claims: a plugin cannot pass its quote off as CoinGecko's, and the retraction of its topic takes it away.
    @Test func aQuoteIsItsTopicsFeeds() throws {
        let pair = MarketPair(base: "BTC", quote: "USD")
        let claimed = Quote(source: "coingecko", market: pair, last: 1)
        let impostor = StreamUpdate<FetcherUpdate>(
            topic: try Topic("quote.kraken.BTC-USD"), seq: 1, time: quoteTime, source: "kraken", value: .quote(claimed))
        var ranked = try book([quoteMessage("coingecko", "BTC", "USD", last: "70000", time: quoteTime), impostor])
        #expect(ranked.chosenQuote(for: pair)?.feed == "coingecko")
        #expect(ranked.chosenQuote(for: pair)?.quote.last == 70000)
        try ranked.apply(statusMessage("coingecko", .stale))
        #expect(ranked.chosenQuote(for: pair)?.feed == "kraken")
        #expect(ranked.chosenQuote(for: pair)?.source == "kraken (coingecko stale)")
        #expect(ranked.remove(try Topic("quote.kraken.BTC-USD")))
        #expect(ranked.chosenQuote(for: pair)?.source == "coingecko (stale)")
        #expect(ranked.chosenQuote(for: pair)?.quote.last == 70000)
    }

    /// The status of a feed that quotes nothing, and a change between live states (`ok` → `error`), re-price nothing.
    @Test func statusesThatChangeNothing() async throws {
        let state = try await state()
        #expect(await state.apply(.update(try statusMessage("bitso", .error, seq: 2))).isEmpty)
        #expect(await state.apply(.update(try statusMessage("kraken", .ok, seq: 2))).isEmpty)
        #expect(await state.apply(.update(try statusMessage("wazirx", .stale))).isEmpty)
        #expect(await state.apply(.update(try statusMessage("ecb", .gone))).isEmpty)
    }

    /// With no live feed for a market, the best stale one still prices it, and the price says it is stale; a
    /// retracted status counts the feed as live again.
    @Test func noLiveFeedKeepsTheBestStaleOne() async throws {
        let state = try await state()
        _ = await state.apply(.update(try statusMessage("kraken", .stale, seq: 2)))
        let bothStale = await state.apply(.update(try statusMessage("bitso", .stale, seq: 2)))
        #expect(Self.described(bothStale) == [
            "BTC/SEK 700000.00000000 kraken (stale)", "BTC/USD 70000.00000000 kraken (stale)",
            "ETH/SEK 35000.00000000 bitso (stale)", "ETH/USD 3500.00000000 bitso (stale)",
        ])
        let bitsoGone = await state.apply(.update(try statusMessage("bitso", .gone, seq: 3)))
        #expect(Self.described(bitsoGone) == ["ETH/SEK 35000.00000000 bitso (gone)", "ETH/USD 3500.00000000 bitso (gone)"])
        let forgotten = await state.applyChanges(.removed(try Topic("status.kraken")))
        #expect(Self.described(forgotten.changed) == ["BTC/SEK 700000.00000000 kraken", "BTC/USD 70000.00000000 kraken"])
    }

    /// Several higher-ranked feeds passed over are all named, in rank order.
    @Test func everyPassedFeedIsNamed() throws {
        let pair = MarketPair(base: "BTC", quote: "USD")
        var ranked = try book([
            quoteMessage("kraken", "BTC", "USD", last: "70000"), quoteMessage("coingecko", "BTC", "USD", last: "70100"),
            quoteMessage("bitso", "BTC", "USD", last: "69000"),
            statusMessage("coingecko", .gone), statusMessage("kraken", .stale),
        ], ranking: FeedRanking(["coingecko", "kraken", "bitso"]))
        #expect(ranked.chosenQuote(for: pair)?.source == "bitso (coingecko gone, kraken stale)")
        #expect(ranked.chosenQuote(for: pair)?.quote.last == 69000)
        #expect(try convert("1", "BTC", "USD", in: ranked).amount == (try dec("69000.00")))
        try ranked.apply(statusMessage("coingecko", .live, seq: 2))
        #expect(ranked.chosenQuote(for: pair)?.source == "coingecko")
        #expect(try convert("1", "BTC", "USD", in: ranked).amount == (try dec("70100.00")))
    }

    /// A snapshot's statuses count: a converter that joins while a feed is stale starts on the fallback.
    @Test func snapshotStatusesCount() async throws {
        let state = ConverterState(currencies: ["USD"], ranking: try FeedRanking(["kraken", "bitso"]), logger: Self.logger)
        let prices = await state.apply(.snapshot([
            try statusMessage("kraken", .stale),
            try quoteMessage("kraken", "BTC", "USD", last: "70000"), try quoteMessage("bitso", "BTC", "USD", last: "69000"),
        ]))
        #expect(Self.described(prices) == ["BTC/USD 69000.00000000 bitso (kraken stale)"])
    }

    /// `follow` publishes the fallback the moment the status arrives, as a quote would be.
    @Test func followPublishesOnAStatus() async throws {
        let state = ConverterState(currencies: ["USD"], ranking: try FeedRanking(["kraken", "bitso"]), logger: Self.logger)
        let (events, feed) = AsyncStream.makeStream(of: StreamEvent<FetcherUpdate>.self)
        feed.yield(.snapshot([try quoteMessage("kraken", "BTC", "USD", last: "70000"), try quoteMessage("bitso", "BTC", "USD", last: "69000")]))
        feed.yield(.update(try statusMessage("kraken", .stale)))
        feed.yield(.update(try statusMessage("kraken", .live, seq: 2)))
        feed.finish()
        let published = Mutex<[String]>([])
        await state.follow(events) { price in published.withLock { $0.append("\(price.price) \(price.source ?? "-")") } }
        #expect(published.withLock { $0 } == ["70000.00000000 kraken", "69000.00000000 bitso (kraken stale)", "70000.00000000 kraken"])
    }
}

@Suite("A plugin's new asset")
struct PluginAssetTests {
    private static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// An asset no built-in feed knows, first seen in a plugin's `quote.<feed>.<SYM>-USD`, is priced in every
    /// display currency (USD as quoted, SEK through ECB's rates) and names the plugin as its source; one quoted
    /// in EUR or in BTC is reached as well.
    @Test func newAssetIsPricedInEveryDisplayCurrency() async throws {
        let state = ConverterState(currencies: ["USD", "SEK"], logger: Self.logger)
        _ = await state.apply(.snapshot([
            try rateMessage("ecb", "EUR", "USD", "1.08"), try rateMessage("ecb", "EUR", "SEK", "11.5"),
            try quoteMessage("coingecko", "BTC", "USD", last: "70000"),
        ]))
        let zil = await state.apply(.update(try quoteMessage("kucoin", "ZIL", "USD", last: "0.0123", changePercent24h: "4.2")))
        let byCurrency = Dictionary(uniqueKeysWithValues: zil.map { ($0.currency, $0) })
        #expect(byCurrency["USD"]?.price == (try dec("0.0123")))
        #expect(byCurrency["USD"]?.path == ["ZIL", "USD"])
        // 0.0123 / 1.08 × 11.5 = 0.13097222…, rounded half-even to 8 places.
        #expect(byCurrency["SEK"]?.price.description == "0.13097222")
        #expect(byCurrency["SEK"]?.path == ["ZIL", "USD", "EUR", "SEK"])
        #expect(byCurrency["SEK"]?.changePercent24h == (try dec("4.2")))
        #expect(zil.allSatisfy { $0.source == "kucoin" })

        let abc = await state.apply(.update(try quoteMessage("kucoin", "ABC", "EUR", last: "2")))
        #expect(Set(abc.map { "\($0.currency) \($0.price.description)" }) == ["USD 2.16000000", "SEK 23.00000000"])
        let sat = await state.apply(.update(try quoteMessage("kucoin", "SATS", "BTC", last: "0.00000001")))
        #expect(Set(sat.map { "\($0.currency) \($0.price.description) \($0.path)" }) == [
            "USD 0.00070000 [\"SATS\", \"BTC\", \"USD\"]", "SEK 0.00745370 [\"SATS\", \"BTC\", \"USD\", \"EUR\", \"SEK\"]",
        ])
    }
}
