import Bus
import BusContract
import ContractWire
import Foundation
import Market
import Money
import Testing
import TickwireContract
import WireJSON
import WireJSONTesting

/// The direct codecs of the streaming types, checked on a few hand-made values: the bytes are WireJSON's, the
/// canonical text reads back on the fast path to the same value, and text off the fast path is left to the tape.
@Suite("Direct codecs: the encoder's bytes, read back on the fast path")
struct DirectCodecSmokeTests {
    static func money(_ text: String) -> ExactDecimal {
        guard let value = try? ExactDecimal(text) else { preconditionFailure("not money: \(text)") }
        return value
    }

    static func date(_ text: String) -> Date {
        guard let value = WireDate.parse(text) else { preconditionFailure("not a wire date: \(text)") }
        return value
    }

    static func direct<T: DirectWireEncodable>(_ value: T) -> [UInt8] {
        var buffer = WireBuffer(capacity: 16)
        value.writeWire(to: &buffer)
        return buffer.withBytes { Array($0) }
    }

    /// `T` read by its fast path alone, nil when it declines or leaves bytes unread.
    static func fast<T: DirectWireDecodable>(_ type: T.Type, _ text: String) -> T? {
        Array(text.utf8).withUnsafeBytes { bytes in
            var cursor = WireCursor(bytes)
            guard let value = T.readWire(&cursor), cursor.isAtEnd else { return nil }
            return value
        }
    }

    /// Writes `value` directly, checks the bytes against WireJSON's (both its paths) and `expected`, reads them
    /// back on the fast path and checks the value and its bytes.
    static func check<T: DirectWireCodable & Equatable>(_ value: T, _ expected: String) throws {
        let bytes = direct(value)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        #expect(bytes == Array(try WireJSONEncoder().encode(value)))
        #expect(bytes == Array(try WireJSONEncoder().encode(ViaCodable(value))))
        let read = fast(T.self, expected)
        #expect(read == value)
        let written = read.map { direct($0) }
        #expect(written == bytes)
        let decoded = try Array(expected.utf8).withUnsafeBytes { try WireJSONDecoder().decodeDirect(T.self, from: $0) }
        #expect(decoded == value)
    }

    /// Checks that the fast path declines `text` and that `decodeDirect` then gives what the tape gives.
    static func declines<T: DirectWireDecodable & Equatable>(_ type: T.Type, _ text: String) {
        #expect(fast(T.self, text) == nil, "fast path took \(text)")
        let viaTape = Result { try WireJSONDecoder().decode(T.self, from: Data(text.utf8)) }
        let viaDirect = Result { try Array(text.utf8).withUnsafeBytes { try WireJSONDecoder().decodeDirect(T.self, from: $0) } }
        switch (viaTape, viaDirect) {
        case (.success(let a), .success(let b)): #expect(a == b, "\(text)")
        case (.failure(let a), .failure(let b)): #expect(describe(a) == describe(b), "\(text)")
        default: Issue.record("decodeDirect and the tape disagree on \(text)")
        }
    }

    static let fullQuote = Quote(
        source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: money("1298765.43"), open: money("1"),
        high: money("1310000.00"), low: money("-0.001"), volume: money("123.45678901"), quoteVolume: money("12"),
        vwap: money("0.5"), ask: money("1298772.55"), bid: money("1298758.93"), change24h: money("-12.5"),
        changePercent24h: money("-1.50"), marketCap: money("99999999999999999999"), marketCapRank: -7,
        circulatingSupply: money("19000000"), totalSupply: money("21000000.0"), maxSupply: money("21000000"),
        allTimeHigh: money("2000000.01"), time: date("2026-11-26T21:58:10.123Z"))

    @Test func quote() throws {
        try Self.check(Self.fullQuote, #"{"source":"bitso","market":{"base":"BTC","quote":"MXN"},"last":"1298765.43","open":"1","#
            + #""high":"1310000.00","low":"-0.001","volume":"123.45678901","quoteVolume":"12","vwap":"0.5","ask":"1298772.55","#
            + #""bid":"1298758.93","change24h":"-12.5","changePercent24h":"-1.50","marketCap":"99999999999999999999","#
            + #""marketCapRank":-7,"circulatingSupply":"19000000","totalSupply":"21000000.0","maxSupply":"21000000","#
            + #""allTimeHigh":"2000000.01","time":"2026-11-26T21:58:10.123Z"}"#)
        try Self.check(Quote(source: "", market: MarketPair(base: "eth", quote: "usd"), last: Self.money("0")),
                       #"{"source":"","market":{"base":"ETH","quote":"USD"},"last":"0"}"#)
        // The codes are read as written, not upper-cased, as `init(wire:)` reads them.
        let lower = Self.fast(Quote.self, #"{"source":"x","market":{"base":"btc","quote":"mxn"},"last":"1"}"#)
        #expect(lower?.market.base == "btc" && lower?.market.quote == "mxn")
        // Money is whatever `ExactDecimal(wireText:)` reads, on both paths.
        let exponent = #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1.5e3"}"#
        #expect(Self.fast(Quote.self, exponent)?.last == Self.money("1500"))
        #expect(try Self.fast(Quote.self, exponent) == WireJSONDecoder().decode(Quote.self, from: Data(exponent.utf8)))
        for text in [
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1","open":null}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1","high":"2","open":"1"}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1","open":"1","open":"2"}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1","extra":1}"#,
            #"{"source":"x", "market":{"base":"BTC","quote":"MXN"},"last":"1"}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":1}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1","marketCapRank":1.0}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1","marketCapRank":01}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1","time":"2026-11-26T21:58:10.12Z"}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"},"last":"1","time":"2026-11-26T21:58:10.123+00:00"}"#,
            #"{"source":"\u0078","market":{"base":"BTC","quote":"MXN"},"last":"1"}"#,
            #"{"source":"bitsö","market":{"base":"BTC","quote":"MXN"},"last":"1"}"#,
            #"{"source":"x","market":{"quote":"MXN","base":"BTC"},"last":"1"}"#,
            #"{"source":"x","market":{"base":"BTC","quote":"MXN"}}"#,
        ] {
            Self.declines(Quote.self, text)
        }
    }

    @Test func assetPrice() throws {
        try Self.check(
            AssetPrice(asset: "BTC", currency: "SEK", price: Self.money("653173.35788900"), changePercent24h: Self.money("-3.07"),
                       path: ["BTC", "USD", "SEK"], quoteTime: Self.date("2026-11-18T11:06:40.123Z"), source: "bitso (kraken stale)"),
            #"{"asset":"BTC","currency":"SEK","price":"653173.35788900","changePercent24h":"-3.07","path":["BTC","USD","SEK"],"#
                + #""quoteTime":"2026-11-18T11:06:40.123Z","source":"bitso (kraken stale)"}"#)
        try Self.check(
            AssetPrice(asset: "SEK", currency: "SEK", price: Self.money("1"), changePercent24h: nil, path: [], quoteTime: nil),
            #"{"asset":"SEK","currency":"SEK","price":"1","path":[]}"#)
        try Self.check(
            AssetPrice(asset: "A", currency: "B", price: Self.money("2"), changePercent24h: nil, path: ["A"], quoteTime: nil, source: "s"),
            #"{"asset":"A","currency":"B","price":"2","path":["A"],"source":"s"}"#)
        for text in [
            #"{"asset":"A","currency":"B","price":"2","path":["A",]}"#,
            #"{"asset":"A","currency":"B","price":"2","path":["A" ,"B"]}"#,
            #"{"asset":"A","currency":"B","price":"2","path":[1]}"#,
            #"{"asset":"A","currency":"B","price":"2","path":["A"],"source":null}"#,
            #"{"asset":"A","currency":"B","price":"2"}"#,
        ] {
            Self.declines(AssetPrice.self, text)
        }
    }

    @Test func exchangeRateAndHeartbeat() throws {
        try Self.check(ExchangeRate(from: "EUR", to: "USD", rate: Self.money("1.359")), #"{"from":"EUR","to":"USD","rate":"1.359"}"#)
        try Self.check(
            Heartbeat(service: "converter", instance: "7f3a", topics: 0, dropped: Int.max, intervalMilliseconds: -1),
            #"{"service":"converter","instance":"7f3a","topics":0,"dropped":9223372036854775807,"intervalMilliseconds":-1}"#)
        Self.declines(ExchangeRate.self, #"{"from":"EUR","to":"USD","rate":"1.359" }"#)
        Self.declines(Heartbeat.self, #"{"service":"c","instance":"i","topics":-0,"dropped":0,"intervalMilliseconds":1}"#)
        Self.declines(Heartbeat.self, #"{"service":"c","instance":"i","topics":9223372036854775808,"dropped":0,"intervalMilliseconds":1}"#)
    }

    @Test func bookDepth() throws {
        let levels = [BookLevel(price: Self.money("100.5"), size: Self.money("0.01")), BookLevel(price: Self.money("100"), size: Self.money("2"))]
        try Self.check(
            BookDepth(source: "bitso-ws", market: MarketPair(base: "BTC", quote: "MXN"), sequence: -9_223_372_036_854_775_807 - 1,
                      bids: levels, asks: [levels[1]], time: Self.date("2026-11-26T21:58:10.000Z")),
            #"{"source":"bitso-ws","market":{"base":"BTC","quote":"MXN"},"sequence":-9223372036854775808,"#
                + #""bids":[{"price":"100.5","size":"0.01"},{"price":"100","size":"2"}],"asks":[{"price":"100","size":"2"}],"#
                + #""time":"2026-11-26T21:58:10.000Z"}"#)
        try Self.check(
            BookDepth(source: "k", market: MarketPair(base: "ETH", quote: "EUR"), sequence: 0, bids: [], asks: []),
            #"{"source":"k","market":{"base":"ETH","quote":"EUR"},"sequence":0,"bids":[],"asks":[]}"#)
        try Self.check(levels[0], #"{"price":"100.5","size":"0.01"}"#)
        Self.declines(BookDepth.self, #"{"source":"k","market":{"base":"ETH","quote":"EUR"},"sequence":0,"bids":[{"size":"1","price":"2"}],"asks":[]}"#)
        Self.declines(BookDepth.self, #"{"source":"k","market":{"base":"ETH","quote":"EUR"},"sequence":0,"bids":[],"asks":[],"time":null}"#)
    }

    @Test func envelopes() throws {
        let time = Self.date("2026-11-26T21:58:10.123Z")
        var quote = Envelope(type: "quote", seq: 1, time: time, source: "bitso", data: Self.fullQuote)
        quote.data.time = nil
        quote.data.open = nil
        quote.data.quoteVolume = nil
        try Self.check(quote, #"{"version":1,"type":"quote","seq":1,"time":"2026-11-26T21:58:10.123Z","source":"bitso","data":"#
            + String(decoding: Self.direct(quote.data), as: UTF8.self) + "}")
        var traced = Envelope(type: "heartbeat", seq: .max, time: time, source: "hub",
                              data: Heartbeat(service: "hub", instance: "i", topics: 3, dropped: 0, intervalMilliseconds: 1000))
        traced.traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
        traced.tracestate = "congo=t61rcWkgMzE"
        try Self.check(traced, #"{"version":1,"type":"heartbeat","seq":18446744073709551615,"time":"2026-11-26T21:58:10.123Z","#
            + #""source":"hub","traceparent":"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01","tracestate":"congo=t61rcWkgMzE","#
            + #""data":{"service":"hub","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000}}"#)
        let rate = Envelope(type: "rate", seq: 42, time: time, source: "ecb", data: ExchangeRate(from: "EUR", to: "SEK", rate: Self.money("11.2")))
        try Self.check(rate, #"{"version":1,"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","#
            + #""data":{"from":"EUR","to":"SEK","rate":"11.2"}}"#)

        let data = #"{"from":"EUR","to":"SEK","rate":"11.2"}"#
        for text in [
            #"{"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","data":"# + data + "}",
            #"{"version":2,"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","data":"# + data + "}",
            #"{"version":1.0,"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","data":"# + data + "}",
            #"{"version":1,"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","traceparent":7,"data":"# + data + "}",
            #"{"version":1,"type":"rate","seq":-1,"time":"2026-11-26T21:58:10.123Z","source":"ecb","data":"# + data + "}",
            #"{"version":1,"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","data":"# + data + ",\"x\":1}",
            #"{"version":1,"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","data":"# + data,
        ] {
            Self.declines(Envelope<ExchangeRate>.self, text)
        }
    }

    @Test func converterRPC() throws {
        try Self.check(ConvertRequest(amount: Self.money("1298.990"), from: "USD", to: "EUR", source: "gnb"),
                       #"{"amount":"1298.990","from":"USD","to":"EUR","source":"gnb"}"#)
        try Self.check(ConvertRequest(amount: Self.money("-0.5"), from: "SEK", to: "BTC"), #"{"amount":"-0.5","from":"SEK","to":"BTC"}"#)
        try Self.check(
            ConvertResult(amount: Self.money("7.36"), currency: "EUR", rate: Self.money("0.736"), rateExact: true, path: ["USD", "EUR"], source: "gnb"),
            #"{"amount":"7.36","currency":"EUR","rate":"0.736","rateExact":true,"path":["USD","EUR"],"source":"gnb"}"#)
        try Self.check(
            ConvertResult(amount: Self.money("1"), currency: "EUR", rate: Self.money("0.333333333333333333"), rateExact: false, path: [], source: ""),
            #"{"amount":"1","currency":"EUR","rate":"0.333333333333333333","rateExact":false,"path":[],"source":""}"#)
        try Self.check(
            TotalRequest(items: [CurrencyAmount(amount: Self.money("10.00"), currency: "USD"), CurrencyAmount(amount: Self.money("-1"), currency: "SEK")],
                         to: "EUR", source: "ecb"),
            #"{"items":[{"amount":"10.00","currency":"USD"},{"amount":"-1","currency":"SEK"}],"to":"EUR","source":"ecb"}"#)
        try Self.check(TotalRequest(items: [], to: "EUR"), #"{"items":[],"to":"EUR"}"#)
        Self.declines(ConvertRequest.self, #"{"amount":"1","from":"USD","to":"EUR","source":null}"#)
        Self.declines(ConvertRequest.self, #"{"from":"USD","amount":"1","to":"EUR"}"#)
        Self.declines(ConvertRequest.self, #"{"amount":1,"from":"USD","to":"EUR"}"#)
        Self.declines(ConvertResult.self, #"{"amount":"1","currency":"EUR","rate":"1","rateExact":1,"path":[],"source":""}"#)
        Self.declines(ConvertResult.self, #"{"amount":"1","currency":"EUR","rate":"1","rateExact":truex,"path":[],"source":""}"#)
        Self.declines(TotalRequest.self, #"{"items":[{"currency":"USD","amount":"1"}],"to":"EUR"}"#)
        Self.declines(TotalRequest.self, #"{"items":[{"amount":"1","currency":"USD"},],"to":"EUR"}"#)
    }

    /// The header's prefix leaves the cursor at the data's first byte; text off its path is declined.
    @Test func headerPrefix() throws {
        let text = #"{"version":1,"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","tracestate":"a=b","data":{"x":1}}"#
        let (header, rest) = Array(text.utf8).withUnsafeBytes { bytes in
            var cursor = WireCursor(bytes)
            let header = EnvelopeHeader.readWirePrefix(&cursor)
            return (header, String(decoding: bytes[cursor.offset...], as: UTF8.self))
        }
        #expect(header == (try WireJSONDecoder().decode(EnvelopeHeader.self, from: Data(text.utf8))))
        #expect(header?.tracestate == "a=b" && header?.traceparent == nil && header?.seq == 42)
        #expect(rest == #"{"x":1}}"#)
        let versionless = Array(#"{"type":"rate","seq":42,"time":"2026-11-26T21:58:10.123Z","source":"ecb","data":{}}"#.utf8)
        #expect(versionless.withUnsafeBytes { bytes in
            var cursor = WireCursor(bytes)
            return EnvelopeHeader.readWirePrefix(&cursor)
        } == nil)
    }

    /// Dates far from today, escapes and UTF-8 are written as the encoder writes them, with one date cache reused.
    @Test func unusualValuesAreWrittenAsTheEncoderWritesThem() throws {
        var dates = WireDateCache()
        var buffer = WireBuffer(capacity: 8)
        let seconds: [Double] = [
            1_795_730_339.999, 1_795_730_340, -62_167_219_200, 253_402_300_799.999, 253_402_300_800, -62_167_219_200.001, -0.001,
            1_795_730_339.999, 1_795_730_339.9995,
        ]
        for (index, second) in seconds.enumerated() {
            var envelope = Envelope(type: "t\"\\\n\u{1}/é", seq: UInt64(index), time: Date(timeIntervalSince1970: second), source: "s\u{7F}",
                                    data: ExchangeRate(from: "€", to: "\t", rate: Self.money("-0.000000001")))
            envelope.tracestate = ""
            buffer.removeAll()
            envelope.writeWire(to: &buffer, dates: &dates)
            let bytes = buffer.withBytes { Array($0) }
            #expect(bytes == Array(try WireJSONEncoder().encode(envelope)), "\(second)")
            #expect(bytes == Self.direct(envelope))
            Self.declines(Envelope<ExchangeRate>.self, String(decoding: bytes, as: UTF8.self))
        }
    }
}
