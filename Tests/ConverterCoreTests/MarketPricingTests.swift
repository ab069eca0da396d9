import Conversion
import Bus
import ConverterCore
import Foundation
import Market
import TickwireContract
import Money
import Testing

@Suite("Market graph and pricing")
struct MarketPricingTests {
    private let quoteTime = Date(timeIntervalSince1970: 1_765_000_000)

    /// When several feeds quote BTC-USD, by the default ranking coingecko's price is the market's edge, then
    /// bitso's, then wazirx's, then the freshest of the others.
    @Test func coingeckoIsPreferredForTheSamePair() throws {
        let pair = MarketPair(base: "BTC", quote: "USD")
        let all = try book([
            quoteMessage("wazirx", "BTC", "USD", last: "68000"),
            quoteMessage("bitso", "BTC", "USD", last: "69000"),
            quoteMessage("coingecko", "BTC", "USD", last: "70000"),
            quoteMessage("aaa", "BTC", "USD", last: "1"),
        ])
        #expect(all.preferredQuote(for: pair)?.source == "coingecko")
        let result = try convert("1", "BTC", "USD", in: all)
        #expect(result.amount == (try dec("70000.00")))
        #expect(result.path == ["BTC", "USD"])
        #expect(result.source == "market")

        let noCoingecko = try book([
            quoteMessage("wazirx", "BTC", "USD", last: "68000"),
            quoteMessage("bitso", "BTC", "USD", last: "69000"),
        ])
        #expect(noCoingecko.preferredQuote(for: pair)?.source == "bitso")
        #expect(try convert("2", "BTC", "USD", in: noCoingecko).amount == (try dec("138000.00")))

        let unranked = try book([
            quoteMessage("alpha", "BTC", "USD", last: "2", time: quoteTime),
            quoteMessage("zeta", "BTC", "USD", last: "3", time: quoteTime.addingTimeInterval(1)),
        ])
        #expect(unranked.preferredQuote(for: pair)?.source == "zeta", "of feeds not ranked, the freshest quote")
        #expect(try convert("1", "BTC", "USD", in: unranked).amount == (try dec("3.00")))
    }

    /// The market graph joins quote edges to the fiat source's rates; other sources' rates stay out.
    @Test func marketJoinsQuotesAndFiatRates() throws {
        let book = try book([
            rateMessage("ecb", "USD", "SEK", "9.3295"),
            rateMessage("gnb", "USD", "EUR", "0.736"),
            quoteMessage("coingecko", "BTC", "USD", last: "70187"),
        ])
        var copy = book
        #expect(try copy.graph(for: RateBook.marketSource).currencies == ["BTC", "SEK", "USD"])
        #expect(book.count(of: RateBook.marketSource) == 2)
        #expect(throws: MoneyError.unknownCurrency("EUR")) { try convert("1", "BTC", "EUR", in: book) }
    }

    /// BTC in SEK goes through USD with the ECB rate; XRP through BTC; an asset without a path is left out.
    @Test func pricesGoThroughUSDWithTheFiatRate() throws {
        var book = try book([
            rateMessage("ecb", "USD", "SEK", "9.3295"),
            quoteMessage("coingecko", "BTC", "USD", last: "70187", changePercent24h: "-1.5", time: quoteTime),
            quoteMessage("bitso", "XRP", "BTC", last: "0.00001", changePercent24h: "2.25"),
            quoteMessage("wazirx", "TRX", "INR", last: "5.6411"),
        ])
        let prices = Pricing.prices(in: ["USD", "SEK"], book: &book)
        #expect(prices.map { "\($0.asset)/\($0.currency)" } == ["BTC/USD", "BTC/SEK", "XRP/USD", "XRP/SEK"])
        let byKey = Dictionary(uniqueKeysWithValues: prices.map { ("\($0.asset)/\($0.currency)", $0) })

        let btcSEK = try #require(byKey["BTC/SEK"])
        #expect(btcSEK.price == (try dec("654809.6165")))  // 70187 × 9.3295
        #expect(btcSEK.price.scale == Pricing.priceScale)
        #expect(btcSEK.path == ["BTC", "USD", "SEK"])
        #expect(btcSEK.changePercent24h == (try dec("-1.5")))
        #expect(btcSEK.quoteTime == quoteTime)
        let btcUSD = try #require(byKey["BTC/USD"])
        #expect(btcUSD.price == (try dec("70187")))
        #expect(btcUSD.path == ["BTC", "USD"])

        let xrpUSD = try #require(byKey["XRP/USD"])
        #expect(xrpUSD.price == (try dec("0.70187")))
        #expect(xrpUSD.path == ["XRP", "BTC", "USD"])
        #expect(xrpUSD.changePercent24h == (try dec("2.25")))
        // 0.70187 × 9.3295 = 6.548096165, a tie at the ninth place: half-even keeps the 6.
        #expect(byKey["XRP/SEK"]?.price == (try dec("6.54809616")))
        #expect(prices.allSatisfy { $0.asset != "TRX" })
    }

    /// A quote in the display currency itself gives the 24 h change; ISO fiat bases are not re-priced.
    @Test func referenceQuoteAndFiatBases() throws {
        var book = try book([
            rateMessage("ecb", "USD", "MXN", "17.9858"),
            quoteMessage("coingecko", "BTC", "USD", last: "70000", changePercent24h: "-1"),
            quoteMessage("bitso", "BTC", "MXN", last: "1260000", changePercent24h: "3"),
            quoteMessage("bitso", "USD", "MXN", last: "18"),
        ])
        let prices = Pricing.prices(in: ["MXN", "USD"], book: &book)
        #expect(prices.map(\.asset) == ["BTC", "BTC"])
        let mxn = try #require(prices.first { $0.currency == "MXN" })
        #expect(mxn.changePercent24h == (try dec("3")))
        #expect(mxn.path == ["BTC", "MXN"])
        #expect(mxn.price == (try dec("1260000")))
        let usd = try #require(prices.first { $0.currency == "USD" })
        #expect(usd.changePercent24h == (try dec("-1")))
    }

    /// No quotes, no prices; a quote whose asset reaches no display currency gives none either.
    @Test func noPathMeansNoPrice() throws {
        var empty = try book([rateMessage("ecb", "USD", "SEK", "9.3295")])
        #expect(Pricing.prices(in: ["USD", "SEK"], book: &empty).isEmpty)
        var isolated = try book([rateMessage("ecb", "USD", "SEK", "9.3295"), quoteMessage("wazirx", "BTC", "INR", last: "2590224")])
        #expect(Pricing.prices(in: ["USD", "SEK"], book: &isolated).isEmpty)
        #expect(Pricing.prices(in: ["INR"], book: &isolated).map(\.price) == [try dec("2590224")])
    }
}
