import Conversion
import Bus
import ConverterCore
import Foundation
import Market
import TickwireContract
import Money
import Testing
import BusContract

@Suite("Rate sources")
struct SourceTests {
    /// ECB and GNB both quote EUR→USD; each source answers with its own rate only.
    private func twoSources() throws -> RateBook {
        try book([
            rateMessage("ecb", "EUR", "USD", "1.1"),
            rateMessage("ecb", "USD", "SEK", "9.3295"),
            rateMessage("gnb", "EUR", "USD", "1.359"),
            quoteMessage("coingecko", "BTC", "USD", last: "70000"),
        ])
    }

    /// The same pair gives each source's own answer, and the result names the source used.
    @Test func sourcesNeverMix() throws {
        let book = try twoSources()
        let ecb = try convert("100", "EUR", "USD", source: "ecb", in: book)
        let gnb = try convert("100", "EUR", "USD", source: "gnb", in: book)
        #expect(ecb.amount == (try dec("110.00")))
        #expect(ecb.rate == (try dec("1.1")))
        #expect(ecb.source == "ecb")
        #expect(gnb.amount == (try dec("135.90")))
        #expect(gnb.rate == (try dec("1.359")))
        #expect(gnb.source == "gnb")
        // gnb has no SEK even though ecb does: no borrowing across sources.
        #expect(throws: MoneyError.unknownCurrency("SEK")) { try convert("1", "EUR", "SEK", source: "gnb", in: book) }
        #expect(try convert("1", "EUR", "SEK", source: "ecb", in: book).path == ["EUR", "USD", "SEK"])
    }

    /// An unknown source is a JSON-RPC error that names it and lists the known ones.
    @Test func unknownSourceNamesTheKnownOnes() throws {
        let book = try twoSources()
        let error = #expect(throws: RPCError.self) { try convert("1", "EUR", "USD", source: "fixer", in: book) }
        #expect(error?.code == -32013)
        #expect(error?.message == #"unknown rate source "fixer"; known: ecb, gnb, market"#)
        #expect(error?.data == ["source": "fixer"])
        #expect(book.sources == ["ecb", "gnb", "market"])
    }

    /// Without a source, two ISO fiats use the fiat source (ecb) and anything with a crypto code uses `market`.
    @Test func defaultSourceIsFiatForFiatsAndMarketForCrypto() throws {
        let book = try twoSources()
        #expect(book.defaultSource(for: ["EUR", "USD"]) == "ecb")
        #expect(book.defaultSource(for: ["eur", "usd"]) == "ecb")
        #expect(book.defaultSource(for: ["BTC", "USD"]) == "market")

        let fiat = try convert("100", "EUR", "USD", in: book)
        #expect(fiat.source == "ecb")
        #expect(fiat.amount == (try dec("110.00")))
        let crypto = try convert("0.5", "BTC", "SEK", in: book)
        #expect(crypto.source == "market")
        #expect(crypto.path == ["BTC", "USD", "SEK"])
        #expect(crypto.amount == (try dec("326532.50")))  // 0.5 × 70000 × 9.3295

        #expect(try total([("1", "EUR"), ("1", "USD")], to: "SEK", in: book).source == "ecb")
        #expect(try total([("1", "EUR"), ("0.001", "BTC")], to: "USD", in: book).source == "market")
        #expect(try rates(from: "EUR", in: book).source == "ecb")
        #expect(try rates(from: "BTC", in: book).source == "market")
    }

    /// With no ecb rates, fixer is the fiat source, both for defaults and inside `market`.
    @Test func fixerIsTheFiatSourceWithoutECB() throws {
        let book = try book([
            rateMessage("fixer", "EUR", "USD", "1.2"),
            rateMessage("gnb", "EUR", "USD", "1.359"),
            quoteMessage("bitso", "BTC", "USD", last: "60000"),
        ])
        #expect(book.fiatSource == "fixer")
        let fiat = try convert("10", "EUR", "USD", in: book)
        #expect(fiat.source == "fixer")
        #expect(fiat.amount == (try dec("12.00")))
        let crypto = try convert("1", "BTC", "EUR", in: book)
        #expect(crypto.source == "market")
        #expect(crypto.path == ["BTC", "USD", "EUR"])
        #expect(crypto.amount == (try dec("50000.00")))  // 60000 / 1.2
    }

    /// A newer rate replaces the older one of its source, and the cached graphs (market included) follow.
    @Test func newRatesReplaceOldOnes() throws {
        var book = try twoSources()
        #expect(try convert("100", "EUR", "USD", source: "ecb", in: book).amount == (try dec("110.00")))
        #expect(try convert("1", "BTC", "EUR", in: book).amount == (try dec("63636.36")))  // 70000 / 1.1
        // Warm the caches on the book itself, then change the rate.
        _ = try book.graph(for: "ecb")
        _ = try book.graph(for: RateBook.marketSource)
        #expect(try book.apply(rateMessage("ecb", "EUR", "USD", "1.25", seq: 2)) == .rate(source: "ecb"))
        #expect(try convert("100", "EUR", "USD", source: "ecb", in: book).amount == (try dec("125.00")))
        #expect(try convert("1", "BTC", "EUR", in: book).amount == (try dec("56000.00")))  // 70000 / 1.25
        #expect(try convert("100", "EUR", "USD", source: "gnb", in: book).amount == (try dec("135.90")))
        #expect(try book.apply(quoteMessage("coingecko", "BTC", "USD", last: "80000", seq: 2)) == .quote(MarketPair(base: "BTC", quote: "USD")))
        #expect(try convert("1", "BTC", "EUR", in: book).amount == (try dec("64000.00")))
    }

    /// A snapshot replaces everything; unusable rates are counted, other kinds of update than rates, quotes and
    /// statuses ignored.
    @Test func resetReplacesAndCountsFailures() throws {
        var book = try twoSources()
        let broken = try rateMessage("ecb", "EUR", "GBP", "0")
        let status = StreamUpdate<FetcherUpdate>(
            topic: try Topic("status.ecb"), seq: 1, time: Date(), source: "ecb",
            value: .status(FeedStatus(feed: "ecb", state: .ok)))
        #expect(try book.apply(status) == .status(feed: "ecb"))
        #expect(book.marketChange == .none, "a status of a feed without quotes changes no price")
        let coin = StreamUpdate<FetcherUpdate>(
            topic: try Topic("coin.kraken.XYZ"), seq: 1, time: Date(), source: "kraken",
            value: .coin(CoinInfo(id: "xyz", symbol: "XYZ", name: "Xyzcoin", image: "")))
        #expect(try book.apply(coin) == nil)
        let failures = book.reset(with: [try rateMessage("ecb", "EUR", "CHF", "0.93"), broken, status])
        #expect(failures == 1)
        #expect(book.sources == ["ecb"])
        #expect(book.count(of: "ecb") == 1)
        #expect(book.count(of: "gnb") == 0)
        #expect(try convert("100", "EUR", "CHF", in: book).amount == (try dec("93.00")))
        #expect(throws: MoneyError.unknownCurrency("USD")) { try convert("1", "EUR", "USD", in: book) }
    }
}

@Suite("One bad value does not take down a source")
struct PoisoningTests {
    /// A zero rate from upstream is refused on its own; the source's other rates (and market) keep converting.
    @Test func zeroRateDoesNotBreakItsSource() throws {
        var book = try book([rateMessage("ecb", "EUR", "USD", "1.1"), quoteMessage("coingecko", "BTC", "USD", last: "70000")])
        #expect(throws: MoneyError.invalidRate(from: "EUR", to: "JPY", rate: "0")) { try book.apply(rateMessage("ecb", "EUR", "JPY", "0")) }
        #expect(throws: MoneyError.invalidRate(from: "EUR", to: "CHF", rate: "-0.9")) { try book.apply(rateMessage("ecb", "EUR", "CHF", "-0.9")) }
        #expect(book.count(of: "ecb") == 1)
        #expect(try convert("100", "EUR", "USD", source: "ecb", in: book).amount == (try dec("110.00")))
        #expect(try convert("1", "BTC", "EUR", in: book).amount == (try dec("63636.36")))
        #expect(throws: MoneyError.unknownCurrency("JPY")) { try convert("1", "EUR", "JPY", source: "ecb", in: book) }
        // In a snapshot the bad rate counts as a failure and the good ones stay.
        #expect(book.reset(with: [try rateMessage("ecb", "EUR", "USD", "1.1"), try rateMessage("ecb", "EUR", "JPY", "0")]) == 1)
        #expect(try convert("100", "EUR", "USD", in: book).amount == (try dec("110.00")))
    }

    /// A quote for a coin whose symbol is not a currency code (CoinGecko has one-letter symbols such as
    /// Threshold's "t") is left out of `market`; every other asset keeps its price.
    @Test func malformedQuoteCodeDoesNotBreakTheMarket() throws {
        var book = try book([rateMessage("ecb", "USD", "SEK", "9.3295"), quoteMessage("coingecko", "BTC", "USD", last: "70000")])
        #expect(Pricing.prices(in: ["USD"], book: &book).map(\.asset) == ["BTC"])
        _ = try? book.apply(quoteMessage("coingecko", "T", "USD", last: "0.02"))
        #expect(try convert("1", "BTC", "SEK", in: book).amount == (try dec("653065.00")))
        #expect(Pricing.prices(in: ["USD", "SEK"], book: &book).map(\.asset) == ["BTC", "BTC"])
        #expect(throws: MoneyError.invalidCurrencyCode("T")) { try convert("1", "T", "USD", in: book) }
    }
}
