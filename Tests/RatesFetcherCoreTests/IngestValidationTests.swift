import Foundation
import Market
import Money
import RatesFetcherCore
import Testing

@Suite("Ingest validation")
struct IngestValidationTests {
    /// Every bad input a plugin can send, with the reason it is refused for and the feed it counts under.
    static let badInputs: [(name: String, frames: [Data], reason: IngestRefusal, feed: String)] = [
        ("one frame", [Data("quote.testfeed.ZZZ-USD".utf8)], .malformed, "-"),
        ("three frames", Plugin.goodQuote(seq: 1) + [Data()], .malformed, "-"),
        ("not a topic", [Data("quote testfeed".utf8), Data("{}".utf8)], .topic, "-"),
        ("a kind plugins do not publish", Plugin.frames("price.testfeed.ZZZ", seq: 1, data: "{}"), .topic, "testfeed"),
        ("an upper-case feed name", Plugin.frames("quote.TestFeed.ZZZ-USD", seq: 1, data: Plugin.quote(feed: "TestFeed")), .topic, "-"),
        ("a feed name starting with a digit", Plugin.frames("quote.1feed.ZZZ-USD", seq: 1, data: Plugin.quote(feed: "1feed")), .topic, "-"),
        ("a feed name of 33 characters", Plugin.frames("quote.\(String(repeating: "a", count: 33)).ZZZ-USD", seq: 1, data: "{}"), .topic, "-"),
        ("a quote topic without a market", Plugin.frames("quote.testfeed", seq: 1, data: Plugin.quote()), .topic, "testfeed"),
        ("a lower-case market", Plugin.frames("quote.testfeed.zzz-USD", seq: 1, data: Plugin.quote("zzz")), .topic, "testfeed"),
        ("a market without a dash", Plugin.frames("quote.testfeed.ZZZUSD", seq: 1, data: Plugin.quote()), .topic, "testfeed"),
        ("a status topic with a key", Plugin.frames("status.testfeed.x", seq: 1, data: "{}"), .topic, "testfeed"),
        ("a built-in feed's name", Plugin.frames("quote.bitso.BTC-MXN", seq: 1, data: Plugin.quote("BTC", "MXN", feed: "bitso")), .reserved, "bitso"),
        ("a service's name", Plugin.frames("heartbeat.converter", seq: 1, data: Plugin.heartbeat(feed: "converter")), .reserved, "converter"),
        ("garbage", [Data("quote.testfeed.ZZZ-USD".utf8), Data("garbage \u{1}\u{2}".utf8)], .malformed, "testfeed"),
        ("JSON that is no envelope", [Data("quote.testfeed.ZZZ-USD".utf8), Data("[1, 2]".utf8)], .malformed, "testfeed"),
        ("an envelope without data", [Data("quote.testfeed.ZZZ-USD".utf8),
                                     Data(#"{"type":"quote","seq":1,"time":"2026-11-26T10:00:00.000Z","source":"testfeed"}"#.utf8)], .malformed, "testfeed"),
        ("data without last", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: #"{"source":"testfeed","market":{"base":"ZZZ","quote":"USD"}}"#), .malformed, "testfeed"),
        ("envelope version 2", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(), version: 2), .version, "testfeed"),
        ("another type than the topic's", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(), type: "rate"), .malformed, "testfeed"),
        ("a source that is not the topic's feed", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(), source: "other"), .topic, "testfeed"),
        ("seq 0", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 0, data: Plugin.quote()), .seq, "testfeed"),
        ("price 0", Plugin.goodQuote(seq: 1, last: "0"), .value, "testfeed"),
        ("price 0.000", Plugin.goodQuote(seq: 1, last: "0.000"), .value, "testfeed"),
        ("a negative price", Plugin.goodQuote(seq: 1, last: "-5"), .value, "testfeed"),
        ("a 10,000-digit price", Plugin.goodQuote(seq: 1, last: String(repeating: "9", count: 10_000)), .value, "testfeed"),
        // The JSON reader itself refuses a number of more than 100 bytes: not JSON Tickwire reads.
        ("a 10,000-digit JSON number", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(last: String(repeating: "7", count: 10_000))), .malformed, "testfeed"),
        ("money as a JSON number", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(last: "1.5")), .value, "testfeed"),
        ("a price that is no number", Plugin.goodQuote(seq: 1, last: "NaN"), .value, "testfeed"),
        ("an exponent past 38 places", Plugin.goodQuote(seq: 1, last: "1e-300"), .value, "testfeed"),
        ("high below low", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(extra: #""high":"1","low":"2""#)), .value, "testfeed"),
        ("a negative volume", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(extra: #""volume":"-1""#)), .value, "testfeed"),
        ("a negative bid", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(extra: #""bid":"-1""#)), .value, "testfeed"),
        ("a rank of 0", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(extra: #""marketCapRank":0"#)), .value, "testfeed"),
        ("a currency code with a space", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote("ZZZ", "US D")), .value, "testfeed"),
        ("a lower-case code in the data", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote("zzz", "USD")), .value, "testfeed"),
        ("a code of 13 characters", Plugin.frames("quote.testfeed.ABCDEFGHIJKLM-USD", seq: 1, data: Plugin.quote("ABCDEFGHIJKLM")), .topic, "testfeed"),
        ("a market of a currency in itself", Plugin.frames("quote.testfeed.USD-USD", seq: 1, data: Plugin.quote("USD", "USD")), .value, "testfeed"),
        ("a quote of another feed's source", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(feed: "bitso")), .topic, "testfeed"),
        ("a quote of another market than the topic's", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote("ABC")), .topic, "testfeed"),
        ("a quote in another currency than the topic's", Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote("ZZZ", "USDT")), .topic, "testfeed"),
        ("a rate of 0", Plugin.frames("rate.testfeed.EUR-USD", seq: 1, data: #"{"from":"EUR","to":"USD","rate":"0"}"#), .value, "testfeed"),
        ("a rate of another pair", Plugin.frames("rate.testfeed.EUR-USD", seq: 1, data: #"{"from":"EUR","to":"SEK","rate":"11"}"#), .topic, "testfeed"),
        ("a topic of more than 128 bytes", Plugin.frames("quote.testfeed.\(String(repeating: "A", count: 120))", seq: 1, data: Plugin.quote()), .topic, "-"),
        ("a book key of 100 letters", Plugin.frames("limits.testfeed.\(String(repeating: "x", count: 100))", seq: 1, data: book(String(repeating: "x", count: 100))), .topic, "testfeed"),
        ("a book key without two codes", Plugin.frames("limits.testfeed.zzzusd", seq: 1, data: book("zzzusd")), .topic, "testfeed"),
        ("a book whose minimum is above its maximum", Plugin.frames("limits.testfeed.zzz_usd", seq: 1, data: book(minimumPrice: "9", maximumPrice: "1")), .value, "testfeed"),
        ("a book of another market than the topic's", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(base: "ABC")), .topic, "testfeed"),
        ("a book of another feed's source", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(feed: "bitso")), .topic, "testfeed"),
        ("a book on a limits key", Plugin.frames("book.testfeed.zzz_usd", seq: 1, data: depth()), .topic, "testfeed"),
        ("a book level of price 0", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(bids: [("0", "1")])), .value, "testfeed"),
        ("a book level of size 0", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(asks: [("2", "0")])), .value, "testfeed"),
        ("a book level of a negative size", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(bids: [("1", "-3")])), .value, "testfeed"),
        ("bids best last", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(bids: [("1.0", "1"), ("1.1", "1")])), .value, "testfeed"),
        ("asks best last", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(asks: [("2.1", "1"), ("2.0", "1")])), .value, "testfeed"),
        ("an ask price twice", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(asks: [("2.0", "1"), ("2.00", "1")])), .value, "testfeed"),
        ("a crossed book", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(bids: [("2.5", "1")], asks: [("2.5", "1")])), .value, "testfeed"),
        ("1,001 bids", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(bids: (0..<1_001).map { ("\(2_000 - $0)", "1") }, asks: [])), .value, "testfeed"),
        ("a negative book sequence", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(sequence: -1)), .value, "testfeed"),
        ("a book size of 39 digits", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth(bids: [("1", String(repeating: "9", count: 39))])), .value, "testfeed"),
        ("a book size as a JSON number", Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: depth().replacing(#""size":"2""#, with: #""size":2"#)), .value, "testfeed"),
        ("a trade with a negative size", Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: trade(size: "-0.5")), .value, "testfeed"),
        ("a trade of size 0", Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: trade(size: "0")), .value, "testfeed"),
        ("a trade of price 0", Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: trade(price: "0")), .value, "testfeed"),
        ("a trade of another market than the topic's", Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: trade(quote: "EUR")), .topic, "testfeed"),
        ("a trade of another feed's source", Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: trade(feed: "other")), .topic, "testfeed"),
        ("a trade without an id", Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: trade(id: "")), .value, "testfeed"),
        ("a trade side that is neither buy nor sell", Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: trade(side: "hold")), .value, "testfeed"),
        ("a trade without a time", Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: trade().replacing(#","time":"2026-11-26T09:59:59.123Z""#, with: "")), .malformed, "testfeed"),
        ("a coin without a name", Plugin.frames("coin.testfeed.ZZZ", seq: 1, data: #"{"id":"zzz","symbol":"ZZZ","name":"","image":""}"#), .value, "testfeed"),
        ("a coin image that is no http URL", Plugin.frames("coin.testfeed.ZZZ", seq: 1, data: #"{"id":"zzz","symbol":"ZZZ","name":"Zed","image":"javascript:alert(1)"}"#), .value, "testfeed"),
        ("a coin of another symbol", Plugin.frames("coin.testfeed.ZZZ", seq: 1, data: #"{"id":"zzz","symbol":"ABC","name":"Zed","image":""}"#), .topic, "testfeed"),
        ("a status of another feed", Plugin.frames("status.testfeed", seq: 1, data: #"{"feed":"bitso","state":"ok"}"#), .topic, "testfeed"),
        ("a heartbeat of another service", Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(feed: "other")), .topic, "testfeed"),
        ("a heartbeat interval of 0", Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(interval: 0)), .value, "testfeed"),
        ("a heartbeat without an instance", Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat(instance: "")), .value, "testfeed"),
    ]

    static func book(_ name: String = "zzz_usd", minimumPrice: String = "1", maximumPrice: String = "100") -> String {
        #"{"book":"\#(name)","market":{"base":"ZZZ","quote":"USD"},"minimumAmount":"0.1","maximumAmount":"10","minimumPrice":"\#(minimumPrice)","maximumPrice":"\#(maximumPrice)","minimumValue":"1","maximumValue":"1000"}"#
    }

    /// A book's JSON: `feed`'s `base`-`quote` at `sequence` with levels (price, size) best first.
    static func depth(
        base: String = "ZZZ", quote: String = "USD", feed: String = "testfeed", sequence: Int64 = 27,
        bids: [(String, String)] = [("1.10", "2"), ("1.05", "0.5")], asks: [(String, String)] = [("1.20", "3")]
    ) -> String {
        func levels(_ levels: [(String, String)]) -> String {
            "[" + levels.map { #"{"price":"\#($0.0)","size":"\#($0.1)"}"# }.joined(separator: ",") + "]"
        }
        return #"{"source":"\#(feed)","market":{"base":"\#(base)","quote":"\#(quote)"},"sequence":\#(sequence),"bids":\#(levels(bids)),"asks":\#(levels(asks))}"#
    }

    /// A trade's JSON: `feed`'s `base`-`quote`.
    static func trade(
        base: String = "ZZZ", quote: String = "USD", feed: String = "testfeed", id: String = "t-1", price: String = "1.15", size: String = "0.25",
        side: String = "buy"
    ) -> String {
        #"{"source":"\#(feed)","market":{"base":"\#(base)","quote":"\#(quote)"},"id":"\#(id)","price":"\#(price)","size":"\#(size)","side":"\#(side)","time":"2026-11-26T09:59:59.123Z"}"#
    }

    /// Each bad input is refused with its reason, counted under its feed, and the refusal's detail is short.
    @Test(arguments: badInputs.indices)
    func badInputIsRefused(_ index: Int) {
        let input = Self.badInputs[index]
        var registry = FeedRegistry(reserved: ["bitso", "converter"])
        let decision = registry.receive(input.frames, userID: nil, at: TestClock().now)
        guard case .refused(let refusal, let feed) = decision else {
            Issue.record("\(input.name): accepted")
            return
        }
        #expect(refusal.reason == input.reason, "\(input.name): \(refusal)")
        #expect(feed == input.feed, "\(input.name)")
        #expect(refusal.detail.count < 500, "\(input.name): a log line, not the input")
    }

    /// A good message of each kind is accepted, decoded into the contract's types.
    @Test func goodMessagesOfEveryKind() throws {
        var registry = FeedRegistry(reserved: ["bitso"])
        let now = TestClock().now
        let messages: [[Data]] = [
            Plugin.frames("heartbeat.testfeed", seq: 1, data: Plugin.heartbeat()),
            Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(extra: #""high":"2","low":"1","volume":"0","marketCapRank":3"#)),
            Plugin.frames("rate.testfeed.EUR-USD", seq: 1, data: #"{"from":"EUR","to":"USD","rate":"1.08"}"#),
            Plugin.frames("limits.testfeed.zzz_usd", seq: 1, data: Self.book()),
            Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: Self.depth()),
            Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: Self.trade()),
            Plugin.frames("coin.testfeed.ZZZ", seq: 1, data: #"{"id":"zzz","symbol":"ZZZ","name":"Zed","image":""}"#),
            Plugin.frames("status.testfeed", seq: 1, data: #"{"feed":"testfeed","state":"ok"}"#),
            Plugin.frames("quote.testfeed.ZZZ-USD", seq: 2, data: Plugin.quote(last: #""3.5""#), version: nil),
        ]
        var payloads: [IngestPayload] = []
        for frames in messages {
            guard case .accepted(let message, _) = registry.receive(frames, userID: nil, at: now) else {
                Issue.record("refused: \(String(decoding: frames[0], as: UTF8.self))")
                continue
            }
            payloads.append(message.payload)
        }
        #expect(payloads.count == messages.count)
        #expect(payloads.last == .quote(Quote(source: "testfeed", market: MarketPair(base: "ZZZ", quote: "USD"), last: try .init("3.5"))))
        #expect(registry.statuses.first?.accepted == messages.count)
    }

    /// A book and a trade are read exactly as sent: decimal strings, levels best first, the exchange's sequence;
    /// one-sided and 1,000-level books are books too.
    @Test func booksAndTrades() throws {
        var registry = FeedRegistry(reserved: [])
        let now = TestClock().now
        let market = MarketPair(base: "ZZZ", quote: "USD")
        func accepted(_ frames: [Data]) -> IngestPayload? {
            guard case .accepted(let message, _) = registry.receive(frames, userID: nil, at: now) else { return nil }
            return message.payload
        }
        let expected = BookDepth(
            source: "testfeed", market: market, sequence: 27,
            bids: [BookLevel(price: try .init("1.10"), size: try .init("2")), BookLevel(price: try .init("1.05"), size: try .init("0.5"))],
            asks: [BookLevel(price: try .init("1.20"), size: try .init("3"))])
        #expect(accepted(Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: Self.depth())) == .book(expected))
        guard case .trade(let trade) = accepted(Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: Self.trade(side: "sell"))) else {
            Issue.record("the trade was refused")
            return
        }
        #expect(trade.source == "testfeed" && trade.market == market && trade.id == "t-1" && trade.side == .sell)
        let (price, size) = (try ExactDecimal("1.15"), try ExactDecimal("0.25"))
        #expect(trade.price == price && trade.size == size)
        #expect((trade.time.timeIntervalSince1970 * 1000).rounded() == 1_795_687_199_123)
        let deepest = (0..<IngestValidation.maxBookLevels).map { ("\(2_000 - $0)", "1") }
        let deep = accepted(Plugin.frames("book.testfeed.ZZZ-USD", seq: 2, data: Self.depth(sequence: 0, bids: deepest, asks: [])))
        guard case .book(let depth) = deep else {
            Issue.record("a 1,000-level book was refused")
            return
        }
        #expect(depth.bids.count == 1_000 && depth.asks.isEmpty && depth.sequence == 0)
        #expect(accepted(Plugin.frames("book.testfeed.ZZZ-USD", seq: 3, data: Self.depth(bids: [], asks: []))) != nil, "an empty book")
    }

    /// Feed names: a lower-case letter, then lower-case letters, digits, `-` and `_`, at most 32.
    @Test func feedNames() {
        for name in ["a", "kraken", "my-feed_2", String(repeating: "x", count: 32)] { #expect(IngestValidation.isFeedName(name), "\(name)") }
        for name in ["", "Kraken", "2feed", "-feed", "feed.x", "feed x", "fééd", String(repeating: "x", count: 33)] {
            #expect(!IngestValidation.isFeedName(name), "\(name)")
        }
    }
}
