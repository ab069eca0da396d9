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

/// A streaming type with a direct codec and samples.
typealias DirectSample = WireSample & DirectWireCodable

/// `text` with its first `slot` replaced by `value`.
func replacing(_ slot: String, with value: String, in text: String) -> String {
    guard let range = text.range(of: slot) else { preconditionFailure("no \(slot) in \(text)") }
    return text.replacingCharacters(in: range, with: value)
}

/// `bytes` with one byte changed within its class: a digit to another digit, a letter to another letter, a
/// separator (`-:.TZ`) to another or to a digit; anything else is left.
func retype(_ bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
    var bytes = bytes
    guard !bytes.isEmpty else { return bytes }
    let at = Int(random.next() % UInt64(bytes.count))
    let digits = Array("0123456789".utf8), letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ".utf8)
    let separators = Array("-:.TZ+0123456789".utf8)
    let pool: [UInt8]
    switch bytes[at] {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): pool = digits
    case UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "."): pool = separators
    case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"): pool = letters
    default: return bytes
    }
    bytes[at] = pool[Int(random.next() % UInt64(pool.count))]
    return bytes
}

/// Whether the fast path alone reads all of `text` as `T`.
func fastPathReads<T: DirectWireDecodable>(_ text: [UInt8], as type: T.Type) -> Bool {
    text.withUnsafeBytes { bytes in
        var cursor = WireCursor(bytes)
        return T.readWire(&cursor) != nil && cursor.isAtEnd
    }
}

@Suite("Direct wire codec: the same as the tape, and as Foundation")
struct DirectWireDifferentialTests {
    /// The direct decode against the tape and against Foundation on `T`'s canonical texts and `rounds` random
    /// edits of them, one in 50 at least read by the fast path (so the test exercises it).
    func differential<T: DirectSample>(_ type: T.Type, extra: [String] = [], rounds: Int = 2000) async {
        let canonical = [T.fullWire, T.minimalWire] + extra
        for text in canonical {
            let bytes = Array(text.utf8)
            #expect(directDisagreement(bytes, as: T.self) == nil, "\(directDisagreement(bytes, as: T.self) ?? "")")
            #expect(disagreement(bytes, as: T.self) { data in try data.withUnsafeBytes { try tape.decodeDirect(T.self, from: $0) } } == nil)
        }
        var random = SplitMix64(state: UInt64(T.fullWire.utf8.count) &* 7919)
        var problems: [String] = [], fast = 0
        for round in 0..<rounds {
            if round % 50 == 0 { await Task.yield() }
            var bytes = Array(canonical[round % canonical.count].utf8)
            // Half the rounds edit the syntax, half the values in place (what the fast path reads to other values).
            for _ in 0...(random.next() % 3) { bytes = round & 1 == 0 ? mutate(bytes, using: &random) : retype(bytes, using: &random) }
            if fastPathReads(bytes, as: T.self) { fast += 1 }
            if let problem = directDisagreement(bytes, as: T.self) { problems.append(problem) }
            if let problem = disagreement(bytes, as: T.self, decode: { data in
                try data.withUnsafeBytes { try tape.decodeDirect(T.self, from: $0) }
            }) {
                problems.append("\(T.self) against Foundation: \(problem)")
            }
        }
        #expect(problems.isEmpty, "\(problems.count) disagreements, the first: \(problems.prefix(3).joined(separator: "\n"))")
        #expect(fast > rounds / 50, "\(T.self): the fast path read \(fast) of \(rounds) edits")
    }

    /// The direct decode against the tape on `base` with `slot` replaced by each of `values`.
    func edges<T: DirectSample>(_ type: T.Type, in base: String, slot: String, values: [String]) {
        for value in values {
            let text = replacing(slot, with: value, in: base)
            #expect(directDisagreement(Array(text.utf8), as: T.self) == nil, "\(directDisagreement(Array(text.utf8), as: T.self) ?? "")")
        }
    }

    @Test func canonicalTextsTakeTheFastPath() {
        #expect(fastPathReads(Array(MarketPair.fullWire.utf8), as: MarketPair.self))
        #expect(fastPathReads(Array(MarketPair.minimalWire.utf8), as: MarketPair.self))
        #expect(fastPathReads(Array(Quote.fullWire.utf8), as: Quote.self))
        #expect(fastPathReads(Array(Quote.minimalWire.utf8), as: Quote.self))
        #expect(fastPathReads(Array(AssetPrice.fullWire.utf8), as: AssetPrice.self))
        #expect(fastPathReads(Array(AssetPrice.minimalWire.utf8), as: AssetPrice.self))
        #expect(fastPathReads(Array(Heartbeat.fullWire.utf8), as: Heartbeat.self))
        #expect(fastPathReads(Array(ExchangeRate.fullWire.utf8), as: ExchangeRate.self))
        #expect(fastPathReads(Array(BookLevel.fullWire.utf8), as: BookLevel.self))
        #expect(fastPathReads(Array(BookLevel.minimalWire.utf8), as: BookLevel.self))
        #expect(fastPathReads(Array(BookDepth.fullWire.utf8), as: BookDepth.self))
        #expect(fastPathReads(Array(BookDepth.minimalWire.utf8), as: BookDepth.self))
        #expect(fastPathReads(Array(Envelope<Quote>.fullWire.utf8), as: Envelope<Quote>.self))
        #expect(fastPathReads(Array(Envelope<Quote>.minimalWire.utf8), as: Envelope<Quote>.self))
        #expect(fastPathReads(Array(benchmarkWire.utf8), as: Envelope<Quote>.self))
        #expect(fastPathReads(Array(Envelope<AssetPrice>.fullWire.utf8), as: Envelope<AssetPrice>.self))
        #expect(fastPathReads(Array(Envelope<AssetPrice>.minimalWire.utf8), as: Envelope<AssetPrice>.self))
        // Escapes and UTF-8 are the tape's to read.
        #expect(!fastPathReads(Array(Heartbeat.minimalWire.utf8), as: Heartbeat.self))
        #expect(!fastPathReads(Array(ExchangeRate.minimalWire.utf8), as: ExchangeRate.self))
    }

    /// What the fast path reads is the tape's value, bit for bit: the direct decode of each canonical text is the tape's.
    @Test func canonicalTextsReadAsTheTapeReadsThem() throws {
        func check<T: DirectSample>(_ type: T.Type) throws {
            for wire in [T.fullWire, T.minimalWire] {
                let direct = try Array(wire.utf8).withUnsafeBytes { try tape.decodeDirect(T.self, from: $0) }
                #expect(try sameValue(direct, tape.decode(T.self, from: Data(wire.utf8))), "\(T.self): \(wire)")
                #expect(try sameValue(direct, wire == T.fullWire ? T.fullSample : T.minimalSample), "\(T.self): \(wire)")
            }
        }
        try check(MarketPair.self)
        try check(Quote.self)
        try check(AssetPrice.self)
        try check(Heartbeat.self)
        try check(ExchangeRate.self)
        try check(BookLevel.self)
        try check(BookDepth.self)
        try check(Envelope<Quote>.self)
        try check(Envelope<AssetPrice>.self)
        let bench = try Array(benchmarkWire.utf8).withUnsafeBytes { try tape.decodeDirect(Envelope<Quote>.self, from: $0) }
        #expect(try sameValue(bench, benchmarkEnvelope))
    }

    @Test func quotes() async {
        await differential(Quote.self)
        await differential(MarketPair.self, rounds: 500)
    }

    @Test func prices() async {
        await differential(AssetPrice.self)
    }

    @Test func heartbeatsRatesAndBooks() async {
        await differential(Heartbeat.self)
        await differential(ExchangeRate.self)
        await differential(BookLevel.self, rounds: 500)
        await differential(BookDepth.self)
    }

    @Test func envelopes() async {
        await differential(Envelope<Quote>.self, extra: [benchmarkWire])
        await differential(Envelope<AssetPrice>.self)
        await differential(Envelope<Heartbeat>.self, rounds: 500)
        await differential(Envelope<ExchangeRate>.self, rounds: 500)
        await differential(Envelope<BookDepth>.self, rounds: 500)
    }

    /// Dates at the edges of the calendar and of the canonical form: the fast path reads only what the tape reads.
    @Test func dates() {
        let dates = [
            "2026-02-29T00:00:00.000Z", "2028-02-29T00:00:00.000Z", "2100-02-29T00:00:00.000Z", "2000-02-29T00:00:00.000Z",
            "2026-11-31T00:00:00.000Z", "2026-11-30T23:59:59.999Z", "2026-11-26T24:00:00.000Z", "2026-11-26T23:60:00.000Z",
            "2026-11-26T23:59:60.000Z", "2026-00-26T21:58:10.123Z", "2026-13-26T21:58:10.123Z", "2026-11-00T21:58:10.123Z",
            "0000-01-01T00:00:00.000Z", "0000-02-29T12:00:00.000Z", "9999-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z",
            "2026-11-26T21:58:10.12Z", "2026-11-26T21:58:10.1234Z", "2026-11-26T21:58:10Z", "2026-11-26T21:58:10.123+00:00",
            "2026-11-26T21:58:10.123+01:00", "2026-11-26t21:58:10.123Z", "2026-11-26T21:58:10.123z", "2026-11-26 21:58:10.123Z",
            "2026-11-26T21:5/:10.123Z", "2026-11-26T21:5::10.123Z", "2026/11-26T21:58:10.123Z", "2026-11-26T21:58:10,123Z",
            "+2026-11-26T21:58:10.12Z", "-0001-11-26T21:58:10.123Z", "10000-01-01T00:00:00.000Z", "2026-11-26T21:58:10.123Z ",
            "2026-11-26T21:58:10.999Z", "2026-11-26T21:58:10.000Z", "2026-11-26T21:58:10.001Z", "2026-11-26T21:58:10.1\\u0032Z",
        ]
        let slot = "2026-11-26T21:58:10.123Z"
        edges(Envelope<Quote>.self, in: Envelope<Quote>.fullWire, slot: slot, values: dates)
        edges(Quote.self, in: replacing("2026-11-26T21:58:09.456Z", with: slot, in: Quote.fullWire), slot: slot, values: dates)
        edges(AssetPrice.self, in: replacing("2026-11-18T11:06:40.123Z", with: slot, in: AssetPrice.fullWire), slot: slot, values: dates)
        edges(BookDepth.self, in: replacing("2026-11-26T21:58:10.001Z", with: slot, in: BookDepth.fullWire), slot: slot, values: dates)
        // Every millisecond of a random day of every century: the fast path's arithmetic gives the tape's Double.
        var random = SplitMix64(state: 31)
        func digits(_ value: UInt64, _ count: Int) -> String {
            let text = String(value)
            return String(repeating: "0", count: max(0, count - text.count)) + text
        }
        let days = (0..<400).map { _ in
            digits(random.next() % 10_000, 4) + "-" + digits(1 + random.next() % 12, 2) + "-" + digits(1 + random.next() % 28, 2) + "T"
                + digits(random.next() % 24, 2) + ":" + digits(random.next() % 60, 2) + ":" + digits(random.next() % 60, 2) + "."
                + digits(random.next() % 1000, 3) + "Z"
        }
        edges(Quote.self, in: replacing("2026-11-26T21:58:09.456Z", with: slot, in: Quote.fullWire), slot: slot, values: days)
    }

    /// Integers at the edges of their types and of the JSON grammar.
    @Test func integers() {
        let unsigned = ["0", "00", "01", "-0", "-1", "1.0", "1e2", "1E2", "18446744073709551615", "18446744073709551616", "99999999999999999999",
                        "184467440737095516150", "1 ", "+1", "0x1", "\"1\"", "null", "true", "1.", "-", ""]
        let signed = unsigned + ["9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809", "-00", "--1"]
        edges(Envelope<Quote>.self, in: Envelope<Quote>.fullWire, slot: "123456", values: unsigned)
        edges(Heartbeat.self, in: Heartbeat.fullWire, slot: "42", values: signed)
        edges(Heartbeat.self, in: Heartbeat.fullWire, slot: "1000", values: signed)
        edges(BookDepth.self, in: BookDepth.fullWire, slot: "123456789012", values: signed)
        edges(Quote.self, in: Quote.fullWire, slot: #""marketCapRank":1"#, values: signed.map { #""marketCapRank":"# + $0 })
        edges(Envelope<Quote>.self, in: Envelope<Quote>.fullWire, slot: #""version":1"#,
              values: ["0", "2", "01", "1.0", "-1", "10", "\"1\"", "null", "1e0", "-0", "9223372036854775808"].map { #""version":"# + $0 })
    }

    /// Money texts the fast path must read as the tape does, or leave to it.
    @Test func money() {
        let texts = [
            "\"1e3\"", "\"1.5E-7\"", "\" 1\"", "\"+1\"", "\"0x10\"", "\".\"", "\"1.\"", "\".5\"", "\"NaN\"", "\"\"", "12.5", "null", "\"-\"",
            "\"0.00000000000000000000000000000000000001\"", "\"-0.00000000000000000000000000000000000001\"",
            "\"-0.000000000000000000000000000000000000001\"", "\"00000000000000000000000000000000000000001.5\"",
            "\"99999999999999999999999999999999999999\"", "\"100000000000000000000000000000000000000\"", "\"1\\u0030\"", "\"１\"",
            "\"1298765.43\"", "\"-0\"", "\"-0.00\"", "\"0000.1\"",
        ]
        edges(Quote.self, in: Quote.fullWire, slot: "\"1298765.43\"", values: texts)
        edges(Quote.self, in: Quote.fullWire, slot: "\"2100000.00\"", values: texts)
        edges(ExchangeRate.self, in: ExchangeRate.fullWire, slot: "\"1.359\"", values: texts)
        edges(AssetPrice.self, in: AssetPrice.fullWire, slot: "\"-3.07\"", values: texts)
        edges(BookDepth.self, in: BookDepth.fullWire, slot: "\"0.25\"", values: texts)
    }

    /// Money written and read back through the direct codec keeps its exact mantissa and scale: 5,000 values made from
    /// their parts (not parsed), of 1 to 38 digits at scales 0 to 38, either sign.
    @Test func moneyRoundTripsExactly() throws {
        var random = SplitMix64(state: 8191)
        for _ in 0..<5000 {
            let digits = 1 + Int(random.next() % 38)
            var mantissa: Int128 = 0
            for index in 0..<digits { mantissa = mantissa * 10 + Int128((random.next() % 10) | (index == 0 ? 1 : 0)) }
            if random.next() & 1 == 0 { mantissa = -mantissa }
            let value = try ExactDecimal(mantissa: mantissa, scale: Int(random.next() % 39))
            var quote = Quote.minimalSample
            quote.last = value
            quote.ask = value
            let bytes = directBytes(quote)
            let read = try bytes.withUnsafeBytes { try tape.decodeDirect(Quote.self, from: $0) }
            #expect(fastPathReads(bytes, as: Quote.self))
            #expect(read.last.mantissa == mantissa && read.last.scale == value.scale, "\(value): read \(read.last)")
            #expect(read.ask?.mantissa == mantissa && read.ask?.scale == value.scale, "\(value): read \(String(describing: read.ask))")
        }
    }

    /// Strings: plain ASCII on the fast path, the rest to the tape.
    @Test func strings() {
        let texts = [
            "\"\"", "\"a\\\"b\"", "\"\\u0041\"", "\"é\"", "\"\u{7F}\"", "\"\u{1F}\"", "\"\\/\"", "\"a\\\"", "\"\\ud800\"", "5", "null", "[]",
            "\"" + String(repeating: "x", count: 15) + "\"", "\"" + String(repeating: "x", count: 16) + "\"", "\"\u{FF}\"",
        ]
        edges(Quote.self, in: Quote.fullWire, slot: "\"bitso\"", values: texts)
        edges(MarketPair.self, in: MarketPair.fullWire, slot: "\"MXN\"", values: texts)
        edges(AssetPrice.self, in: AssetPrice.fullWire, slot: "\"USD\"", values: texts)
        edges(Heartbeat.self, in: Heartbeat.fullWire, slot: "\"7F3A-01\"", values: texts)
        // A trace member that is not a string is ignored by the tape, so the fast path must leave it to it.
        edges(Envelope<Quote>.self, in: Envelope<Quote>.fullWire, slot: "\"\(sampleTraceparent)\"", values: texts + ["{}", "{\"a\":[1,2]}", "1.5"])
        edges(Envelope<AssetPrice>.self, in: Envelope<AssetPrice>.fullWire, slot: "\"\(sampleTracestate)\"", values: texts + ["{}", "true"])
    }

    /// Texts other than the canonical form of a value: all of them are the tape's to read.
    @Test func otherForms() {
        let envelope = Envelope<Quote>.fullWire
        let others = [
            envelope.replacingOccurrences(of: ":", with: ": ").replacingOccurrences(of: ",\"", with: ", \""),  // json.dumps' default
            " " + envelope, envelope + " ", envelope + "\n", "\u{FEFF}" + envelope, envelope + "{}", envelope + "}",
            replacing(#"{"version":1,"#, with: "{", in: envelope),  // written before versions
            replacing(#""type":"quote","#, with: "", in: envelope) + "",  // a member missing
            replacing(#"{"version":1,"type":"quote","#, with: #"{"type":"quote","version":1,"#, in: envelope),  // reordered
            replacing(#""source":"bitso","traceparent""#, with: #""source":"bitso","extra":[1,{"b":null}],"traceparent""#, in: envelope),
            replacing(#""seq":123456,"#, with: #""seq":123456,"seq":7,"#, in: envelope),  // a duplicate
            String(envelope.dropLast()) + #","version":2}"#,  // a duplicate after the data
            replacing(#""data":{"#, with: #""data":{"unknown":1,"#, in: envelope),
            replacing(#""open":"1290000.00","high":"1310000.00""#, with: #""high":"1310000.00","open":"1290000.00""#, in: envelope),
            replacing(#""last":"1298765.43""#, with: #""last":null"#, in: envelope),
            replacing(#""open":"1290000.00""#, with: #""open":null"#, in: envelope),
            replacing(#""data":{"source""#, with: #""data":{"source":"x","source""#, in: envelope),
            String(envelope.dropLast()), String(envelope.dropLast(2)), "{}", "[]", "null", "",
        ]
        for text in others {
            #expect(!fastPathReads(Array(text.utf8), as: Envelope<Quote>.self), "the fast path reads \(text)")
            #expect(directDisagreement(Array(text.utf8), as: Envelope<Quote>.self) == nil, "\(directDisagreement(Array(text.utf8), as: Envelope<Quote>.self) ?? "")")
        }
        let book = BookDepth.fullWire
        for text in [
            replacing(#""bids":["#, with: #""bids":[ "#, in: book), replacing(#""size":"1.5"}]"#, with: #""size":"1.5"},]"#, in: book),
            replacing(#""asks":[{"#, with: #""asks":[{"size":"0.5","#, in: book), replacing(#""bids":["#, with: #""bids":null,"x":["#, in: book),
            replacing(#""sequence":123456789012"#, with: #""sequence":123456789012.0"#, in: book),
        ] {
            #expect(!fastPathReads(Array(text.utf8), as: BookDepth.self), "the fast path reads \(text)")
            #expect(directDisagreement(Array(text.utf8), as: BookDepth.self) == nil, "\(directDisagreement(Array(text.utf8), as: BookDepth.self) ?? "")")
        }
    }

    /// The member-by-member decode (`init(wire:)`, which the tape calls for a ``WireCodable`` type and these types gained
    /// or have) reads what the synthesized `Codable` conformance reads, on the canonical texts and 1,000 edits each:
    /// the same value, or an error that says the same (`describe`), which a BusMessage reports.
    @Test func memberByMemberDecodeIsTheSynthesizedOne() {
        func check<T: WireSample>(_ type: T.Type) -> [String] {
            var random = SplitMix64(state: 4099)
            var problems: [String] = []
            for round in 0..<1000 {
                var bytes = Array((round & 1 == 0 ? T.fullWire : T.minimalWire).utf8)
                if round > 1 { bytes = round % 4 < 2 ? mutate(bytes, using: &random) : retype(bytes, using: &random) }
                let data = Data(bytes)
                switch (Result { try tape.decode(T.self, from: data) }, Result { try tape.decode(ViaCodable<T>.self, from: data).value }) {
                case (.success(let a), .success(let b)) where (try? sameValue(a, b)) == true: continue
                case (.failure(let a), .failure(let b)) where describe(a) == describe(b): continue
                case (let a, let b): problems.append("\(T.self): \(a) / synthesized \(b): \(String(decoding: bytes, as: UTF8.self))")
                }
            }
            return problems
        }
        let problems = check(MarketPair.self) + check(Quote.self) + check(AssetPrice.self) + check(Heartbeat.self) + check(ExchangeRate.self)
            + check(BookLevel.self) + check(BookDepth.self)
        #expect(problems.isEmpty, "\(problems.count) differences, the first: \(problems.prefix(3).joined(separator: "\n"))")
    }

    /// The seeds of the WireJSON fuzzer's corpus named `direct-*` (but the RPC ones) are canonical: each takes a fast path.
    @Test func fuzzSeedsTakeTheFastPath() throws {
        let folder = URL(filePath: #filePath).deletingLastPathComponent().appending(path: "../../Fuzz/corpus/WireJSONFuzzer").standardized
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("direct-") && !$0.hasPrefix("direct-rpc") }
        #expect(names.count >= 16)
        for name in names {
            let bytes = Array(try Data(contentsOf: folder.appending(path: name)))
            let read = [
                fastPathReads(bytes, as: Quote.self), fastPathReads(bytes, as: AssetPrice.self), fastPathReads(bytes, as: Heartbeat.self),
                fastPathReads(bytes, as: ExchangeRate.self), fastPathReads(bytes, as: BookDepth.self), fastPathReads(bytes, as: Envelope<Quote>.self),
                fastPathReads(bytes, as: Envelope<AssetPrice>.self), fastPathReads(bytes, as: Envelope<Heartbeat>.self),
                fastPathReads(bytes, as: Envelope<ExchangeRate>.self), fastPathReads(bytes, as: Envelope<BookDepth>.self),
            ]
            #expect(read.contains(true), "\(name) takes no fast path")
        }
    }

    /// The differential check finds a fast path that reads more than the tape, or reads another value: a codec with
    /// both faults, checked on the texts that show them.
    @Test func theCheckCatchesWhatItIsFor() {
        #expect(directDisagreement(Array(#"{"from":"EUR","to":"USD","rate":"1.359"}"#.utf8), as: LaxRate.self) == nil)
        #expect(directDisagreement(Array(#"{"from":"eur","to":"USD","rate":"1.359"}"#.utf8), as: LaxRate.self)?.contains("another value") == true)
        #expect(directDisagreement(Array(#"{"from":"EUR","to":"USD","rate":"1.359"}   "#.utf8), as: LaxRate.self) == nil)
        #expect(directDisagreement(Array(#"{"from":"EUR","to":"USD","rate":"1.359""#.utf8), as: LaxRate.self)?.contains("only the direct decode accepts") == true)
    }

    /// A decoder with tighter limits than the fast path assumes keeps it off: the tape's limit errors stay.
    @Test func limitsStayTheTapes() throws {
        let wire = Array(Envelope<Quote>.fullWire.utf8)
        for limits in [WireJSONLimits(maxDepth: 2), WireJSONLimits(maxNumberLength: 5), WireJSONLimits(maxStringLength: 10)] {
            let tight = WireJSONDecoder(limits: limits)
            #expect(directDisagreement(wire, as: Envelope<Quote>.self, decoder: tight) == nil)
            #expect(throws: (any Error).self) { try wire.withUnsafeBytes { try tight.decodeDirect(Envelope<Quote>.self, from: $0) } }
        }
    }
}

/// An exchange rate whose fast path has two faults the differential check must find: it upper-cases `from` (another
/// value than the tape's) and takes a text whose closing brace is missing (one the tape refuses).
private struct LaxRate: Codable, Equatable, DirectWireCodable {
    var from: String
    var to: String
    var rate: ExactDecimal

    init(from: String, to: String, rate: ExactDecimal) {
        self.from = from
        self.to = to
        self.rate = rate
    }

    init(wire object: WireObjectReader) throws {
        self.init(from: try object.decode(forKey: "from"), to: try object.decode(forKey: "to"), rate: try object.decode(forKey: "rate"))
    }

    func encode(wire object: WireObjectWriter) throws {
        try object.encode(from, forKey: "from")
        try object.encode(to, forKey: "to")
        try object.encode(rate, forKey: "rate")
    }

    func writeWire(to out: inout WireBuffer) {
        out.append(#"{"from":"#)
        out.appendString(from)
        out.append(#","to":"#)
        out.appendString(to)
        out.append(#","rate":"#)
        out.appendText(rate)
        out.append("}")
    }

    static func readWire(_ cursor: inout WireCursor) -> LaxRate? {
        guard cursor.expect(#"{"from":"#), let from = cursor.string(), cursor.expect(#","to":"#), let to = cursor.string(),
              cursor.expect(#","rate":"#), let rate = cursor.text(ExactDecimal.self)
        else { return nil }
        _ = cursor.expect("}")
        return LaxRate(from: from.uppercased(), to: to, rate: rate)
    }

    static var wireKeys: [StaticString] { ["from", "to", "rate"] }
}
