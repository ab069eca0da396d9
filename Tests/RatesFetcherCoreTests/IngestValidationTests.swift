import Foundation
import Market
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

    /// Feed names: a lower-case letter, then lower-case letters, digits, `-` and `_`, at most 32.
    @Test func feedNames() {
        for name in ["a", "kraken", "my-feed_2", String(repeating: "x", count: 32)] { #expect(IngestValidation.isFeedName(name), "\(name)") }
        for name in ["", "Kraken", "2feed", "-feed", "feed.x", "feed x", "fééd", String(repeating: "x", count: 33)] {
            #expect(!IngestValidation.isFeedName(name), "\(name)")
        }
    }
}
