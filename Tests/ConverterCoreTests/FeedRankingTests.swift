import BusContract
import Conversion
import ConverterCore
import Foundation
import Market
import Testing
import TickwireContract

@Suite("The feed ranking (--sources)")
struct FeedRankingTests {
    private let quoteTime = Date(timeIntervalSince1970: 1_765_000_000)
    private let pair = MarketPair(base: "BTC", quote: "USD")

    /// The default is coingecko, bitso, wazirx, and is what a converter gets when it is not told otherwise.
    @Test func defaultRanking() throws {
        #expect(FeedRanking.standard.feeds == ["coingecko", "bitso", "wazirx"])
        #expect(FeedRanking.standard.description == "coingecko,bitso,wazirx")
        #expect(try FeedRanking(parsing: "coingecko,bitso,wazirx") == .standard)
        #expect(ConverterConfiguration(rep: "ipc://rep", pub: "ipc://pub").ranking == .standard)
        #expect(RateBook().ranking == .standard)
    }

    /// Names are taken in order, blanks around them ignored; a feed name may have digits, `-` and `_`.
    @Test func parsesNamesInOrder() throws {
        let ranking = try FeedRanking(parsing: " kraken , my-feed_2,bitso ")
        #expect(ranking.feeds == ["kraken", "my-feed_2", "bitso"])
        #expect(ranking.place(of: "kraken") == 0)
        #expect(ranking.place(of: "bitso") == 2)
        #expect(ranking.place(of: "coingecko") == nil)
        #expect(try FeedRanking(parsing: "k").feeds == ["k"])
        #expect(try FeedRanking(parsing: String(repeating: "a", count: 32)).feeds.count == 1)
    }

    /// Each bad ranking is refused with a sentence that says what is wrong.
    @Test(arguments: [
        ("", FeedRankingError.empty, "lists no feed"),
        ("  ", .empty, "lists no feed"),
        ("bitso,,wazirx", .emptyEntry(position: 2), "entry 2 is empty"),
        ("bitso,", .emptyEntry(position: 2), "entry 2 is empty"),
        ("Bitso", .invalidName("Bitso"), "\"Bitso\" is not a feed name"),
        ("2fast", .invalidName("2fast"), "a lower-case letter first"),
        ("bit so", .invalidName("bit so"), "is not a feed name"),
        ("bitso.mx", .invalidName("bitso.mx"), "is not a feed name"),
        (String(repeating: "a", count: 33), .invalidName(String(repeating: "a", count: 33)), "1 to 32 characters"),
        ("bitso,kraken,bitso", .duplicate("bitso"), "lists \"bitso\" twice"),
    ])
    func refusesBadRankings(text: String, error: FeedRankingError, says: String) {
        #expect(throws: error) { try FeedRanking(parsing: text) }
        #expect(error.description.contains(says), "\(error.description)")
        #expect(throws: FeedRankingError.empty) { try FeedRanking([]) }
    }

    /// A configured ranking decides which feed's quote a pair is priced from; feeds it does not list come after.
    @Test func configuredRankingDecides() throws {
        let messages = [
            try quoteMessage("coingecko", "BTC", "USD", last: "70000", time: quoteTime),
            try quoteMessage("bitso", "BTC", "USD", last: "69000", time: quoteTime),
            try quoteMessage("kraken", "BTC", "USD", last: "71000", time: quoteTime.addingTimeInterval(5)),
        ]
        #expect(try book(messages).preferredQuote(for: pair)?.source == "coingecko")
        let krakenFirst = try book(messages, ranking: FeedRanking(["kraken", "bitso"]))
        #expect(krakenFirst.preferredQuote(for: pair)?.source == "kraken")
        #expect(try convert("1", "BTC", "USD", in: krakenFirst).amount == (try dec("71000.00")))
        let bitsoOnly = try book(messages, ranking: FeedRanking(["bitso"]))
        #expect(bitsoOnly.preferredQuote(for: pair)?.source == "bitso")
        var withoutBitso = bitsoOnly
        #expect(withoutBitso.remove(try Topic("quote.bitso.BTC-USD")))
        #expect(withoutBitso.preferredQuote(for: pair)?.source == "kraken", "of the unlisted, kraken's quote is the freshest")
    }

    /// Feeds the ranking does not list come after the listed ones, the freshest quote first: the one rates-fetcher
    /// published last, whatever time the quote itself claims.
    @Test func unlistedFeedsByFreshness() throws {
        var ranked = try book([
            quoteMessage("alpha", "BTC", "USD", last: "100", time: quoteTime, received: quoteTime.addingTimeInterval(10)),
            quoteMessage("zeta", "BTC", "USD", last: "200", time: quoteTime.addingTimeInterval(60), received: quoteTime),
        ], ranking: FeedRanking(["bitso"]))
        #expect(ranked.chosenQuote(for: pair)?.source == "alpha")
        try ranked.apply(quoteMessage("zeta", "BTC", "USD", last: "201", time: quoteTime, seq: 2, received: quoteTime.addingTimeInterval(20)))
        #expect(ranked.chosenQuote(for: pair)?.source == "zeta")
        #expect(ranked.chosenQuote(for: pair)?.quote.last == 201)
        #expect(try convert("1", "BTC", "USD", in: ranked).amount == (try dec("201.00")))
        try ranked.apply(quoteMessage("bitso", "BTC", "USD", last: "300", time: quoteTime, received: quoteTime))
        #expect(ranked.chosenQuote(for: pair)?.source == "bitso", "a listed feed comes first however old its quote")
    }

    /// A plugin that stamps its quotes in 2099 does not win the pair for good: the hub's time of publication
    /// ranks it, and another unlisted feed's later quote takes the pair over.
    @Test func aQuotesOwnFutureTimeDoesNotRankIt() throws {
        let future = Date(timeIntervalSince1970: 4_070_908_800) // 2099-01-01
        var ranked = try book([
            quoteMessage("evil", "BTC", "USD", last: "1", time: future, received: quoteTime),
            quoteMessage("zeta", "BTC", "USD", last: "200", time: quoteTime, received: quoteTime.addingTimeInterval(1)),
        ], ranking: FeedRanking(["bitso"]))
        #expect(ranked.chosenQuote(for: pair)?.source == "zeta")
        #expect(try convert("1", "BTC", "USD", in: ranked).amount == (try dec("200.00")))
        try ranked.apply(quoteMessage("evil", "BTC", "USD", last: "2", time: future, seq: 2, received: quoteTime.addingTimeInterval(2)))
        #expect(ranked.chosenQuote(for: pair)?.source == "evil", "its newer publication is fresher")
        try ranked.apply(quoteMessage("zeta", "BTC", "USD", last: "201", time: quoteTime, seq: 2, received: quoteTime.addingTimeInterval(3)))
        #expect(ranked.chosenQuote(for: pair)?.source == "zeta")
    }
}
