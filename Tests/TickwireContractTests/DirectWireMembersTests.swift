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

// The streaming types' exact bytes as WireJSON's encoder writes them today (plan I31 §1.1), pinned here so
// that the direct codec is held to them, and the samples every direct-codec test starts from.

/// A streaming type's samples for the direct codec's tests.
protocol WireSample: Codable, Equatable {
    /// Every optional member set (no nil child: checked).
    static var fullSample: Self { get }
    /// Every optional member nil; for a type without optionals, another value with edge cases.
    static var minimalSample: Self { get }
    /// ``fullSample``'s bytes as WireJSON writes them today.
    static var fullWire: String { get }
    /// ``minimalSample``'s bytes as WireJSON writes them today.
    static var minimalWire: String { get }
    /// One closure per optional member (a payload's too), that sets it to nil.
    static var optionalMembers: [@Sendable (inout Self) -> Void] { get }
    /// A random value: random strings (escapes, UTF-8), money, dates and integers at their edges, each optional present or not.
    static func random(using random: inout SplitMix64) -> Self
}

/// The wire's decoder as `Wire` configures it (no user info).
let tape = WireJSONDecoder()

/// `value`'s bytes through WireJSON's `Codable` path.
func codableBytes<T: Codable>(_ value: T) throws -> [UInt8] {
    Array(try WireJSONEncoder().encode(ViaCodable(value)))
}

/// `value`'s bytes through WireJSON's encoder as it is called today (a `WireCodable` type's member-by-member path).
func wireBytes<T: Encodable>(_ value: T) throws -> [UInt8] {
    Array(try WireJSONEncoder().encode(value))
}

/// Whether `a` and `b` are the same value: `==` (money by value, dates to the bit) and the same bytes (money's scale, codes' case).
func sameValue<T: Codable & Equatable>(_ a: T, _ b: T) throws -> Bool {
    try a == b && codableBytes(a) == codableBytes(b)
}

/// `sample` with each optional member cleared or kept at random.
func randomSubset<T: WireSample>(of sample: T, using random: inout SplitMix64) -> T {
    var value = sample
    for clear in T.optionalMembers where random.next() & 1 == 0 { clear(&value) }
    return value
}

/// A date the wire carries exactly, from its text.
func wireDate(_ text: String) -> Date {
    guard let date = WireDate.parse(text) else { preconditionFailure("not a wire date: \(text)") }
    return date
}

/// Money from its text, for samples.
func money(_ text: String) -> ExactDecimal {
    guard let value = try? ExactDecimal(text) else { preconditionFailure("not money: \(text)") }
    return value
}

/// Random members at the edges of what the encoder writes.
enum RandomMember {
    static let strings = [
        "", "bitso", "BTC", "MXN", "quote", "rates-fetcher", "a\"b", #"back\slash"#, "tab\there", "new\nline", "\u{01}\u{1F}",
        "\u{7F}", "é", "café € 😀", "/path/", "kraken (bitso stale)", String(repeating: "x", count: 15), String(repeating: "y", count: 16),
        String(repeating: "long", count: 40), "\u{08}\u{0C}\r", "\u{00}", "\u{2028}\u{FEFF}", String(repeating: "a\"é\n\\", count: 50),
    ]
    static let moneyTexts = [
        "0", "-0", "0.00", "1", "-1", "12.50", "1298765.43", "0.00000001", "-0.001", "123.45678901",
        "99999999999999999999999999999999999999", "-0.00000000000000000000000000000000000001", "18446744073709551616", "1E3",
    ]
    static let dateTexts = [
        "2026-11-26T21:58:10.123Z", "2026-11-26T21:58:59.999Z", "2026-11-26T21:59:00.000Z", "2026-12-31T23:59:59.999Z",
        "2028-02-29T12:00:00.500Z", "1970-01-01T00:00:00.000Z", "1969-12-31T23:59:59.999Z", "0001-01-01T00:00:00.000Z",
        "9999-12-31T23:59:59.999Z",
    ]
    /// Dates the wire writes wider (past 9999), signed (before 0), clamped (infinite, NaN), or rounded into the next minute or back before 1970.
    static let outsideDates = [
        Date(timeIntervalSince1970: 253_402_300_800), Date(timeIntervalSince1970: -62_198_033_399.75), Date(timeIntervalSince1970: 1e15),
        Date(timeIntervalSince1970: -1e15), Date(timeIntervalSince1970: .infinity), Date(timeIntervalSince1970: -.infinity),
        Date(timeIntervalSince1970: .nan), Date(timeIntervalSince1970: 1_795_000_019.9995), Date(timeIntervalSince1970: -0.0005),
    ]

    static func string(_ random: inout SplitMix64) -> String { strings[Int(random.next() % UInt64(strings.count))] }

    static func amount(_ random: inout SplitMix64) -> ExactDecimal {
        if random.next() & 1 == 0 { return money(moneyTexts[Int(random.next() % UInt64(moneyTexts.count))]) }
        let mantissa = Int128(Int64(bitPattern: random.next())) >> Int(random.next() % 64)
        return (try? ExactDecimal(mantissa: mantissa, scale: Int(random.next() % 20))) ?? .zero
    }

    static func date(_ random: inout SplitMix64) -> Date {
        if random.next() % 8 == 0 { return outsideDates[Int(random.next() % UInt64(outsideDates.count))] }
        if random.next() & 1 == 0 { return wireDate(dateTexts[Int(random.next() % UInt64(dateTexts.count))]) }
        // Any Double of about 1900 to 2100, not only whole milliseconds: the encoder rounds.
        return Date(timeIntervalSince1970: Double(Int64(bitPattern: random.next()) % 6_000_000_000_000) / 1000 + Double(random.next() % 1000) / 1e6)
    }

    static func int(_ random: inout SplitMix64) -> Int {
        switch random.next() % 4 {
        case 0: [0, 1, -1, Int.max, Int.min][Int(random.next() % 5)]
        case 1: Int(truncatingIfNeeded: random.next())
        default: Int(random.next() % 100_000)
        }
    }

    static func uint64(_ random: inout SplitMix64) -> UInt64 {
        random.next() & 1 == 0 ? [0, 1, 9, 10, UInt64.max][Int(random.next() % 5)] : random.next() >> (random.next() % 64)
    }

    static func maybe<T>(_ random: inout SplitMix64, _ make: (inout SplitMix64) -> T) -> T? {
        random.next() & 1 == 0 ? nil : make(&random)
    }
}

extension MarketPair: WireSample {
    static var fullSample: Self { MarketPair(base: "BTC", quote: "MXN") }
    static var minimalSample: Self {
        var pair = MarketPair(base: "", quote: "")
        pair.base = "eth"
        pair.quote = "usd"
        return pair
    }
    static var fullWire: String { #"{"base":"BTC","quote":"MXN"}"# }
    static var minimalWire: String { #"{"base":"eth","quote":"usd"}"# }
    static var optionalMembers: [@Sendable (inout Self) -> Void] { [] }
    static func random(using random: inout SplitMix64) -> Self {
        var pair = MarketPair(base: "", quote: "")
        pair.base = RandomMember.string(&random)
        pair.quote = RandomMember.string(&random)
        return pair
    }
}

extension Quote: WireSample {
    static var fullSample: Self {
        Quote(
            source: "bitso", market: .fullSample, last: money("1298765.43"), open: money("1290000.00"), high: money("1310000.00"),
            low: money("1280000.50"), volume: money("123.45678901"), quoteVolume: money("160000000.1"), vwap: money("1295000.12"),
            ask: money("1298772.55"), bid: money("1298758.93"), change24h: money("-1234.5"), changePercent24h: money("-0.095"),
            marketCap: money("25000000000000"), marketCapRank: 1, circulatingSupply: money("19800000"), totalSupply: money("19800000.5"),
            maxSupply: money("21000000"), allTimeHigh: money("2100000.00"), time: wireDate("2026-11-26T21:58:09.456Z"))
    }
    static var minimalSample: Self { Quote(source: "coingecko", market: .minimalSample, last: money("0")) }
    static var fullWire: String {
        #"{"source":"bitso","market":{"base":"BTC","quote":"MXN"},"last":"1298765.43","open":"1290000.00","high":"1310000.00","#
            + #""low":"1280000.50","volume":"123.45678901","quoteVolume":"160000000.1","vwap":"1295000.12","ask":"1298772.55","#
            + #""bid":"1298758.93","change24h":"-1234.5","changePercent24h":"-0.095","marketCap":"25000000000000","marketCapRank":1,"#
            + #""circulatingSupply":"19800000","totalSupply":"19800000.5","maxSupply":"21000000","allTimeHigh":"2100000.00","#
            + #""time":"2026-11-26T21:58:09.456Z"}"#
    }
    static var minimalWire: String { #"{"source":"coingecko","market":{"base":"eth","quote":"usd"},"last":"0"}"# }
    static var optionalMembers: [@Sendable (inout Self) -> Void] {
        [
            { $0.open = nil }, { $0.high = nil }, { $0.low = nil }, { $0.volume = nil }, { $0.quoteVolume = nil }, { $0.vwap = nil },
            { $0.ask = nil }, { $0.bid = nil }, { $0.change24h = nil }, { $0.changePercent24h = nil }, { $0.marketCap = nil },
            { $0.marketCapRank = nil }, { $0.circulatingSupply = nil }, { $0.totalSupply = nil }, { $0.maxSupply = nil },
            { $0.allTimeHigh = nil }, { $0.time = nil },
        ]
    }
    static func random(using r: inout SplitMix64) -> Self {
        Quote(
            source: RandomMember.string(&r), market: .random(using: &r), last: RandomMember.amount(&r),
            open: RandomMember.maybe(&r, RandomMember.amount), high: RandomMember.maybe(&r, RandomMember.amount),
            low: RandomMember.maybe(&r, RandomMember.amount), volume: RandomMember.maybe(&r, RandomMember.amount),
            quoteVolume: RandomMember.maybe(&r, RandomMember.amount), vwap: RandomMember.maybe(&r, RandomMember.amount),
            ask: RandomMember.maybe(&r, RandomMember.amount), bid: RandomMember.maybe(&r, RandomMember.amount),
            change24h: RandomMember.maybe(&r, RandomMember.amount), changePercent24h: RandomMember.maybe(&r, RandomMember.amount),
            marketCap: RandomMember.maybe(&r, RandomMember.amount), marketCapRank: RandomMember.maybe(&r, RandomMember.int),
            circulatingSupply: RandomMember.maybe(&r, RandomMember.amount), totalSupply: RandomMember.maybe(&r, RandomMember.amount),
            maxSupply: RandomMember.maybe(&r, RandomMember.amount), allTimeHigh: RandomMember.maybe(&r, RandomMember.amount),
            time: RandomMember.maybe(&r, RandomMember.date))
    }
}

extension AssetPrice: WireSample {
    static var fullSample: Self {
        AssetPrice(
            asset: "BTC", currency: "SEK", price: money("653173.35788900"), changePercent24h: money("-3.07"), path: ["BTC", "USD", "SEK"],
            quoteTime: wireDate("2026-11-18T11:06:40.123Z"), source: "bitso (kraken stale)")
    }
    static var minimalSample: Self { AssetPrice(asset: "ETH", currency: "EUR", price: money("2500"), changePercent24h: nil, path: [], quoteTime: nil) }
    static var fullWire: String {
        #"{"asset":"BTC","currency":"SEK","price":"653173.35788900","changePercent24h":"-3.07","path":["BTC","USD","SEK"],"#
            + #""quoteTime":"2026-11-18T11:06:40.123Z","source":"bitso (kraken stale)"}"#
    }
    static var minimalWire: String { #"{"asset":"ETH","currency":"EUR","price":"2500","path":[]}"# }
    static var optionalMembers: [@Sendable (inout Self) -> Void] { [{ $0.changePercent24h = nil }, { $0.quoteTime = nil }, { $0.source = nil }] }
    static func random(using r: inout SplitMix64) -> Self {
        AssetPrice(
            asset: RandomMember.string(&r), currency: RandomMember.string(&r), price: RandomMember.amount(&r),
            changePercent24h: RandomMember.maybe(&r, RandomMember.amount), path: (0..<Int(r.next() % 4)).map { _ in RandomMember.string(&r) },
            quoteTime: RandomMember.maybe(&r, RandomMember.date), source: RandomMember.maybe(&r, RandomMember.string))
    }
}

extension Heartbeat: WireSample {
    static var fullSample: Self { Heartbeat(service: "rates-fetcher", instance: "7F3A-01", topics: 42, dropped: 0, intervalMilliseconds: 1000) }
    static var minimalSample: Self { Heartbeat(service: "", instance: "é\"\\\n\u{01}", topics: Int.max, dropped: Int.min, intervalMilliseconds: -1) }
    static var fullWire: String { #"{"service":"rates-fetcher","instance":"7F3A-01","topics":42,"dropped":0,"intervalMilliseconds":1000}"# }
    static var minimalWire: String {
        #"{"service":"","instance":"é\"\\\n\u0001","topics":9223372036854775807,"dropped":-9223372036854775808,"intervalMilliseconds":-1}"#
    }
    static var optionalMembers: [@Sendable (inout Self) -> Void] { [] }
    static func random(using r: inout SplitMix64) -> Self {
        Heartbeat(
            service: RandomMember.string(&r), instance: RandomMember.string(&r), topics: RandomMember.int(&r), dropped: RandomMember.int(&r),
            intervalMilliseconds: RandomMember.int(&r))
    }
}

extension ExchangeRate: WireSample {
    static var fullSample: Self { ExchangeRate(from: "EUR", to: "USD", rate: money("1.359")) }
    static var minimalSample: Self { ExchangeRate(from: "", to: "😀/", rate: money("-0.00000000000000000000000000000000000001")) }
    static var fullWire: String { #"{"from":"EUR","to":"USD","rate":"1.359"}"# }
    static var minimalWire: String { #"{"from":"","to":"😀/","rate":"-0.00000000000000000000000000000000000001"}"# }
    static var optionalMembers: [@Sendable (inout Self) -> Void] { [] }
    static func random(using r: inout SplitMix64) -> Self {
        ExchangeRate(from: RandomMember.string(&r), to: RandomMember.string(&r), rate: RandomMember.amount(&r))
    }
}

extension BookLevel: WireSample {
    static var fullSample: Self { BookLevel(price: money("1298772.55"), size: money("0.5")) }
    static var minimalSample: Self { BookLevel(price: money("99999999999999999999999999999999999999"), size: money("0.00")) }
    static var fullWire: String { #"{"price":"1298772.55","size":"0.5"}"# }
    static var minimalWire: String { #"{"price":"99999999999999999999999999999999999999","size":"0.00"}"# }
    static var optionalMembers: [@Sendable (inout Self) -> Void] { [] }
    static func random(using r: inout SplitMix64) -> Self { BookLevel(price: RandomMember.amount(&r), size: RandomMember.amount(&r)) }
}

extension BookDepth: WireSample {
    static var fullSample: Self {
        BookDepth(
            source: "bitso-ws", market: .fullSample, sequence: 123_456_789_012,
            bids: [BookLevel(price: money("1298758.93"), size: money("0.25")), BookLevel(price: money("1298750"), size: money("1.5"))],
            asks: [.fullSample], time: wireDate("2026-11-26T21:58:10.001Z"))
    }
    static var minimalSample: Self { BookDepth(source: "kraken", market: .minimalSample, sequence: Int64.min, bids: [], asks: []) }
    static var fullWire: String {
        #"{"source":"bitso-ws","market":{"base":"BTC","quote":"MXN"},"sequence":123456789012,"#
            + #""bids":[{"price":"1298758.93","size":"0.25"},{"price":"1298750","size":"1.5"}],"asks":[{"price":"1298772.55","size":"0.5"}],"#
            + #""time":"2026-11-26T21:58:10.001Z"}"#
    }
    static var minimalWire: String { #"{"source":"kraken","market":{"base":"eth","quote":"usd"},"sequence":-9223372036854775808,"bids":[],"asks":[]}"# }
    static var optionalMembers: [@Sendable (inout Self) -> Void] { [{ $0.time = nil }] }
    static func random(using r: inout SplitMix64) -> Self {
        BookDepth(
            source: RandomMember.string(&r), market: .random(using: &r), sequence: Int64(truncatingIfNeeded: RandomMember.int(&r)),
            bids: (0..<Int(r.next() % 4)).map { _ in .random(using: &r) }, asks: (0..<Int(r.next() % 4)).map { _ in .random(using: &r) },
            time: RandomMember.maybe(&r, RandomMember.date))
    }
}

/// The trace context of the W3C recommendation's example.
let sampleTraceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
let sampleTracestate = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"

/// An envelope's samples around its payload's.
protocol EnvelopeSamplePayload: WireSample, Sendable {
    /// The stream's type name, e.g. `quote`.
    static var typeName: String { get }
}

extension Quote: EnvelopeSamplePayload { static var typeName: String { "quote" } }
extension AssetPrice: EnvelopeSamplePayload { static var typeName: String { "price" } }
extension Heartbeat: EnvelopeSamplePayload { static var typeName: String { "heartbeat" } }
extension ExchangeRate: EnvelopeSamplePayload { static var typeName: String { "rate" } }
extension BookDepth: EnvelopeSamplePayload { static var typeName: String { "book" } }

extension Envelope: WireSample where Payload: EnvelopeSamplePayload {
    static var fullSample: Self {
        var envelope = Envelope(type: Payload.typeName, seq: 123_456, time: wireDate("2026-11-26T21:58:10.123Z"), source: "bitso", data: .fullSample)
        envelope.traceparent = sampleTraceparent
        envelope.tracestate = sampleTracestate
        return envelope
    }
    static var minimalSample: Self {
        Envelope(type: Payload.typeName, seq: UInt64.max, time: wireDate("1969-12-31T23:59:59.999Z"), source: "", data: .minimalSample)
    }
    static var fullWire: String {
        #"{"version":1,"type":""# + Payload.typeName + #"","seq":123456,"time":"2026-11-26T21:58:10.123Z","source":"bitso","#
            + #""traceparent":""# + sampleTraceparent + #"","tracestate":""# + sampleTracestate + #"","data":"# + Payload.fullWire + "}"
    }
    static var minimalWire: String {
        #"{"version":1,"type":""# + Payload.typeName + #"","seq":18446744073709551615,"time":"1969-12-31T23:59:59.999Z","source":"","data":"#
            + Payload.minimalWire + "}"
    }
    static var optionalMembers: [@Sendable (inout Self) -> Void] {
        [{ $0.traceparent = nil }, { $0.tracestate = nil }] + Payload.optionalMembers.map { clear in { clear(&$0.data) } }
    }
    static func random(using r: inout SplitMix64) -> Self {
        var envelope = Envelope(
            type: RandomMember.string(&r), seq: RandomMember.uint64(&r), time: RandomMember.date(&r), source: RandomMember.string(&r),
            data: .random(using: &r))
        envelope.traceparent = RandomMember.maybe(&r, RandomMember.string)
        envelope.tracestate = RandomMember.maybe(&r, RandomMember.string)
        return envelope
    }
}

/// The benchmark's message (`Benchmarks/Sources/tickwire-bench/Support.swift`), 272 bytes at seq 1.
let benchmarkEnvelope: Envelope<Quote> = Envelope(
    type: "quote", seq: 1, time: wireDate("2026-11-26T21:58:10.123Z"), source: "bitso",
    data: Quote(
        source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: money("1298765.43"), high: money("1310000.00"),
        low: money("1280000.50"), volume: money("123.45678901"), ask: money("1298772.55"), bid: money("1298758.93")))
let benchmarkWire = #"{"version":1,"type":"quote","seq":1,"time":"2026-11-26T21:58:10.123Z","source":"bitso","data":{"source":"bitso","#
    + #""market":{"base":"BTC","quote":"MXN"},"last":"1298765.43","high":"1310000.00","low":"1280000.50","volume":"123.45678901","#
    + #""ask":"1298772.55","bid":"1298758.93"}}"#

/// `value`'s bytes through its direct codec, into a fresh buffer.
func directBytes<T: DirectWireEncodable>(_ value: T) -> [UInt8] {
    var buffer = WireBuffer(capacity: 16)
    value.writeWire(to: &buffer)
    return buffer.withBytes { Array($0) }
}

/// Whether a reflected member is an optional holding nil.
private func isNil(_ value: Any) -> Bool {
    let mirror = Mirror(reflecting: value)
    return mirror.displayStyle == .optional && mirror.children.isEmpty
}

@Suite("Direct wire codec: members and bytes")
struct DirectWireMembersTests {
    /// Today's encoder, both of its paths, writes exactly the pinned bytes of each sample.
    func pinned<T: WireSample>(_ type: T.Type) throws {
        for (value, wire) in [(T.fullSample, T.fullWire), (T.minimalSample, T.minimalWire)] {
            #expect(String(decoding: try codableBytes(value), as: UTF8.self) == wire, "\(T.self) through Codable")
            #expect(String(decoding: try wireBytes(value), as: UTF8.self) == wire, "\(T.self) through WireJSON's encoder")
            #expect(try sameValue(tape.decode(T.self, from: Data(wire.utf8)), value), "\(T.self) read back")
            #expect(try sameOnWire(Reference.decoder.decode(T.self, from: Data(wire.utf8)), value), "\(T.self) read back by Foundation")
        }
    }

    /// The full sample sets every member, so the member checks see them all.
    func full<T: WireSample>(_ type: T.Type) {
        let children = Mirror(reflecting: T.fullSample).children
        #expect(children.allSatisfy { !isNil($0.value) }, "\(T.self): nil members in its full sample: \(children.filter { isNil($0.value) }.map(\.label))")
        #expect(T.minimalSample != T.fullSample)
    }

    /// 1.2's check of a direct codec against the type: its keys are the stored properties, in order, and it writes
    /// the bytes of the `Codable` path for the full and minimal samples, 64 random subsets of the full one's optionals
    /// and 64 random values; Foundation reads those bytes as the value, and the fast path reads them as the tape does.
    func members<T: DirectSample>(_ type: T.Type) throws {
        #expect(T.wireKeys.map(\.description) == Mirror(reflecting: T.fullSample).children.map { $0.label ?? "?" }, "\(T.self)'s keys")
        var random = SplitMix64(state: UInt64(T.fullWire.utf8.count))
        let subsets = (0..<64).map { _ in randomSubset(of: T.fullSample, using: &random) }
        let values = [T.fullSample, T.minimalSample] + subsets + (0..<64).map { _ in T.random(using: &random) }
        #expect(Set(subsets.map { try! codableBytes($0) }).count > min(32, 1 << T.optionalMembers.count) / 2, "\(T.self): the subsets differ")
        #expect(String(decoding: directBytes(T.fullSample), as: UTF8.self) == T.fullWire)
        #expect(String(decoding: directBytes(T.minimalSample), as: UTF8.self) == T.minimalWire)
        for value in values {
            let direct = directBytes(value), codable = try codableBytes(value)
            #expect(direct == codable, "\(T.self): direct \(String(decoding: direct, as: UTF8.self)) Codable \(String(decoding: codable, as: UTF8.self))")
            // A year past 9999 or before 0 is written wider, and read back by neither.
            if (try? tape.decode(T.self, from: Data(direct))) != nil {
                #expect(try sameOnWire(Reference.decoder.decode(T.self, from: Data(direct)), value), "\(T.self): \(String(decoding: direct, as: UTF8.self))")
            }
            #expect(directDisagreement(direct, as: T.self) == nil, "\(directDisagreement(direct, as: T.self) ?? "")")
        }
        // One buffer for every value, emptied between them or not: the same bytes, grown as needed.
        var buffer = WireBuffer(capacity: 64)
        var all: [UInt8] = []
        for (index, value) in values.enumerated() {
            if index % 3 == 0 {
                buffer.removeAll()
                all.removeAll()
            }
            value.writeWire(to: &buffer)
            all += try codableBytes(value)
            #expect(buffer.withBytes { Array($0) } == all, "\(T.self): a reused buffer")
        }
    }

    @Test func directCodecsWriteTheMembersOfCodable() throws {
        try members(MarketPair.self)
        try members(Quote.self)
        try members(AssetPrice.self)
        try members(Heartbeat.self)
        try members(ExchangeRate.self)
        try members(BookLevel.self)
        try members(BookDepth.self)
        try members(Envelope<Quote>.self)
        try members(Envelope<AssetPrice>.self)
        try members(Envelope<Heartbeat>.self)
        try members(Envelope<ExchangeRate>.self)
        try members(Envelope<BookDepth>.self)
        #expect(String(decoding: directBytes(benchmarkEnvelope), as: UTF8.self) == benchmarkWire)
    }

    /// A publisher writes envelope after envelope with one date cache: each is written as on its own.
    @Test func envelopesThroughOneDateCache() throws {
        var random = SplitMix64(state: 27)
        var dates = WireDateCache()
        var buffer = WireBuffer()
        let start = wireDate("2026-11-26T21:58:59.000Z").timeIntervalSince1970
        for round in 0..<2000 {
            var envelope = round % 4 == 0 ? Envelope<Quote>.random(using: &random) : benchmarkEnvelope
            if round % 4 != 0 {
                // Mostly in the minute of the one before, now and then across a minute, a day, a year or back in time.
                let step = [0.001, 0.0005, 0.7, 60, 86_400, -59.999, 31_536_000][Int(random.next() % 7)]
                envelope.time = Date(timeIntervalSince1970: start + Double(round) * step)
            }
            buffer.removeAll()
            envelope.writeWire(to: &buffer, dates: &dates)
            let expected = try codableBytes(envelope)
            #expect(buffer.withBytes { Array($0) } == expected, "\(String(decoding: expected, as: UTF8.self))")
        }
    }

    @Test func todaysBytesArePinned() throws {
        try pinned(MarketPair.self)
        try pinned(Quote.self)
        try pinned(AssetPrice.self)
        try pinned(Heartbeat.self)
        try pinned(ExchangeRate.self)
        try pinned(BookLevel.self)
        try pinned(BookDepth.self)
        try pinned(Envelope<Quote>.self)
        try pinned(Envelope<AssetPrice>.self)
        #expect(try String(decoding: wireBytes(benchmarkEnvelope), as: UTF8.self) == benchmarkWire)
        #expect(benchmarkWire.utf8.count == 272)
    }

    @Test func fullSamplesSetEveryMember() {
        full(MarketPair.self)
        full(Quote.self)
        full(AssetPrice.self)
        full(Heartbeat.self)
        full(ExchangeRate.self)
        full(BookLevel.self)
        full(BookDepth.self)
        full(Envelope<Quote>.self)
        full(Envelope<AssetPrice>.self)
        // Each clearer clears one member of its own: all of them leave the minimal sample's optionals.
        var cleared = Quote.fullSample
        for clear in Quote.optionalMembers { clear(&cleared) }
        #expect(Mirror(reflecting: cleared).children.filter { isNil($0.value) }.count == Quote.optionalMembers.count)
    }
}
