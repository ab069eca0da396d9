import ContractWire
import Foundation
import Money
import Synchronization
import Testing
@testable import WireJSON
import WireJSONTesting

/// A small type with a direct codec over every primitive, for `decodeDirect` against the tape.
struct DirectSample: WireCodable, DirectWireCodable, Equatable {
    var name: String
    var count: Int64
    var price: ExactDecimal
    var time: Date?

    static let wireKeys: [StaticString] = ["name", "count", "price", "time"]

    init(name: String, count: Int64, price: ExactDecimal, time: Date?) {
        self.name = name
        self.count = count
        self.price = price
        self.time = time
    }

    func encode(wire object: WireObjectWriter) throws {
        try object.encode(name, forKey: "name")
        try object.encode(count, forKey: "count")
        try object.encode(price, forKey: "price")
        try object.encodeIfPresent(time, forKey: "time")
    }

    init(wire object: WireObjectReader) throws {
        name = try object.decode(forKey: "name")
        count = try object.decode(forKey: "count")
        price = try object.decode(forKey: "price")
        time = try object.decodeIfPresent(forKey: "time")
    }

    func writeWire(to out: inout WireBuffer) {
        out.append(#"{"name":"#)
        out.appendString(name)
        out.append(#","count":"#)
        out.appendInt(count)
        out.append(#","price":"#)
        out.appendText(price)
        if let time {
            var cache = WireDateCache()
            out.append(#","time":"#)
            out.appendDate(time, cache: &cache)
        }
        out.append("}")
    }

    static func readWire(_ cursor: inout WireCursor) -> DirectSample? {
        guard cursor.expect(#"{"name":"#), let name = cursor.string(), cursor.expect(#","count":"#), let count = cursor.int64(),
            cursor.expect(#","price":"#), let price = cursor.text(ExactDecimal.self)
        else { return nil }
        var time: Date?
        if cursor.peek(#","time":"#) {
            guard let value = cursor.date() else { return nil }
            time = value
        }
        guard cursor.expect("}") else { return nil }
        return DirectSample(name: name, count: count, price: price, time: time)
    }
}

/// What `WireCursor` reads from `text`, and how far it got.
private func read<T>(_ text: String, _ body: (inout WireCursor) -> T) -> (value: T, offset: Int) {
    let bytes = Array(text.utf8)
    return bytes.withUnsafeBytes { raw in
        var cursor = WireCursor(raw)
        let value = body(&cursor)
        return (value, cursor.offset)
    }
}

/// The bytes `JSONWriter` writes, the encoder's own code, as the reference for `WireBuffer`.
private func writerBytes(_ body: (JSONWriter) -> Void) -> [UInt8] {
    let writer = JSONWriter()
    body(writer)
    return Array(writer.takeData())
}

/// The bytes `WireBuffer` writes.
private func bufferBytes(capacity: Int = 512, _ body: (inout WireBuffer) -> Void) -> [UInt8] {
    var buffer = WireBuffer(capacity: capacity)
    body(&buffer)
    return buffer.withBytes { Array($0) }
}

/// A decoder's answer: the value, or the error's description.
private enum Answer<T: Equatable>: Equatable {
    case value(T)
    case error(String)

    init(_ body: () throws -> T) {
        do {
            self = .value(try body())
        } catch {
            self = .error("\(error)")
        }
    }

    var value: T? {
        if case .value(let value) = self { value } else { nil }
    }
}

/// The tape's answer for `bytes`.
private func tape<T: Decodable & Equatable>(_ type: T.Type, _ bytes: [UInt8]) -> Answer<T> {
    Answer { try bytes.withUnsafeBytes { try WireJSONDecoder().decode(type, from: $0) } }
}

@Suite("Direct wire: WireCursor's integers and strings")
struct WireCursorScalarTests {
    @Test func unsignedIntegersFollowTheJSONGrammar() {
        #expect(read("0") { $0.uint64() } == (0, 1))
        #expect(read("7,") { $0.uint64() } == (7, 1))
        #expect(read("18446744073709551615}") { $0.uint64() } == (UInt64.max, 20))
        #expect(read("10000000000000000000") { $0.uint64() } == (10_000_000_000_000_000_000, 20))
        for refused in ["", "00", "01", "-0", "-1", "18446744073709551616", "99999999999999999999", "100000000000000000000",
                        "1.5", "1.", "1e5", "1E5", "0e1", "+1", " 1", "\"1\"", "x"] {
            let (value, offset) = read(refused) { $0.uint64() }
            #expect(value == nil, "\(refused)")
            #expect(offset == 0, "a refusal reads nothing: \(refused)")
        }
    }

    @Test func signedIntegersFollowTheJSONGrammar() {
        #expect(read("0") { $0.int64() } == (0, 1))
        #expect(read("-12]") { $0.int64() } == (-12, 3))
        #expect(read("9223372036854775807") { $0.int64() } == (Int64.max, 19))
        #expect(read("-9223372036854775808") { $0.int64() } == (Int64.min, 20))
        for refused in ["", "-", "-0", "-00", "-01", "00", "9223372036854775808", "-9223372036854775809",
                        "18446744073709551615", "-18446744073709551616", "1.0", "-1e2", "--1", "+1"] {
            #expect(read(refused) { $0.int64() }.value == nil, "\(refused)")
        }
    }

    @Test func integersTheCursorReadsAreTheTapes() {
        var random = SplitMix64(state: 31)
        let alphabet = Array("0123456789-.e".utf8)
        var accepted = 0
        for _ in 0..<5000 {
            let length = 1 + Int(random.next() % 22)
            let bytes = (0..<length).map { _ in alphabet[Int(random.next() % UInt64(random.next() % 4 == 0 ? alphabet.count : 10))] }
            let text = String(decoding: bytes, as: UTF8.self)
            let (signed, signedOffset) = read(text) { $0.int64() }
            if let signed, signedOffset == bytes.count {
                accepted += 1
                #expect(tape(Int64.self, bytes) == .value(signed), "\(text)")
            }
            let (unsigned, unsignedOffset) = read(text) { $0.uint64() }
            if let unsigned, unsignedOffset == bytes.count {
                #expect(tape(UInt64.self, bytes) == .value(unsigned), "\(text)")
            }
        }
        #expect(accepted > 500)
    }

    @Test func stringsArePlainASCIIOnly() {
        #expect(read(#""""#) { $0.string() } == ("", 2))
        #expect(read(#""bitso","#) { $0.string() } == ("bitso", 7))
        let long = String(repeating: "abcdefghij/~ !", count: 10)
        #expect(read("\"\(long)\"}") { $0.string() } == (long, long.utf8.count + 2))
        // Every position of the closing quote, so both the word-at-a-time scan and the tail find it.
        for length in 0..<40 {
            let text = String(repeating: "x", count: length)
            #expect(read("\"\(text)\"") { $0.string() } == (text, length + 2))
        }
        for refused in [#""a\"b""#, #""a\\b""#, #""a\nb""#, #""\u0041""#, "\"é\"", "\"\u{7F}\"", "\"a\u{1F}\"",
                        "\"a\tb\"", "\"€uro\"", "\"unterminated", "\"", "'single'", "x", ""] {
            let (value, offset) = read(refused) { $0.string() }
            #expect(value == nil, "\(refused)")
            #expect(offset == 0, "a refusal reads nothing: \(refused)")
        }
        // A refused byte anywhere in a long string, past the first words.
        for at in 0..<30 {
            for byte: UInt8 in [0x00, 0x1F, 0x5C, 0x7F, 0x80, 0xC3, 0xFF] {
                var bytes = Array("\"\(String(repeating: "q", count: 30))\"".utf8)
                bytes[1 + at] = byte
                let text = bytes.withUnsafeBytes { raw -> String? in
                    var cursor = WireCursor(raw)
                    return cursor.string()
                }
                #expect(text == nil, "byte \(byte) at \(at)")
            }
        }
    }

    @Test func shortStringsAreTheStandardLibrarysOwnBits() {
        var random = SplitMix64(state: 15)
        for length in 0...20 {
            for _ in 0..<200 {
                let content = (0..<length).map { _ in UInt8(0x20 + random.next() % 0x5F) }.filter { $0 != 0x22 && $0 != 0x5C }
                let bytes = [0x22] + content + [0x22]
                let read = bytes.withUnsafeBytes { raw -> String? in
                    var cursor = WireCursor(raw)
                    return cursor.string()
                }
                let expected = String(decoding: content, as: UTF8.self)
                #expect(read == expected)
                guard let read else { continue }
                #expect(read.utf8.count == content.count && Array(read.utf8) == content && read.hashValue == expected.hashValue)
                // Up to 15 bytes both are small strings, so their bits are the whole value; longer ones point to storage.
                if content.count <= 15 {
                    #expect(unsafeBitCast(read, to: (UInt64, UInt64).self) == unsafeBitCast(expected, to: (UInt64, UInt64).self),
                            "\(expected)")
                }
                #expect(bufferBytes { $0.appendString(read) } == bytes)
            }
        }
    }

    @Test func stringsTheCursorReadsAreTheTapes() {
        var random = SplitMix64(state: 7)
        var accepted = 0
        for _ in 0..<5000 {
            let length = Int(random.next() % 24)
            var bytes: [UInt8] = [0x22]
            for _ in 0..<length {
                bytes.append(random.next() % 8 == 0 ? UInt8(truncatingIfNeeded: random.next()) : UInt8(0x20 + random.next() % 0x5F))
            }
            bytes.append(0x22)
            let (text, offset) = read(String(decoding: bytes, as: UTF8.self)) { $0.string() }
            let direct = bytes.withUnsafeBytes { raw -> (String?, Int) in
                var cursor = WireCursor(raw)
                return (cursor.string(), cursor.offset)
            }
            if let value = direct.0, direct.1 == bytes.count {
                accepted += 1
                #expect(tape(String.self, bytes) == .value(value))
                #expect(text == value && offset == bytes.count)
            }
        }
        #expect(accepted > 1000)
    }

    @Test func moneyIsReadAsTheTapeReadsIt() throws {
        #expect(read(#""1298.99","#) { $0.text(ExactDecimal.self) }.value == (try ExactDecimal("1298.99")))
        let (negative, offset) = read(#""-0.001""#) { $0.text(ExactDecimal.self) }
        #expect(negative?.description == "-0.001")
        #expect(offset == 8)
        #expect(read(#""12.50""#) { $0.text(ExactDecimal.self) }.value?.description == "12.50")
        let tooLong = "\"" + String(repeating: "1", count: ExactDecimal.maxWireTextLength + 1) + "\""
        // Whatever ExactDecimal's wire text takes (an exponent too), the cursor reads as the tape does.
        for text in [#""1e5""#, #""1.5E-3""#, #""007""#, #""+1""#, #"".5""#, #""-""#, #""99999999999999999999999999999999999999""#] {
            let (value, offset) = read(text) { $0.text(ExactDecimal.self) }
            let expected = tape(ExactDecimal.self, Array(text.utf8))
            #expect(value == expected.value, "\(text)")
            if let value {
                #expect(expected == .value(value) && offset == text.utf8.count, "\(text)")
            }
        }
        for refused in [#""12,5""#, #""""#, "12.5", #""1\u0032""#, #"" 1""#, tooLong, #""abc""#] {
            let (value, offset) = read(refused) { $0.text(ExactDecimal.self) }
            #expect(value == nil, "\(refused)")
            #expect(offset == 0)
        }
    }

    @Test func literalsAreComparedWholly() {
        #expect(read(#"{"version":1"#) { $0.expect(#"{"version":"#) } == (true, 11))
        #expect(read(#"{"versioN":1"#) { $0.expect(#"{"version":"#) } == (false, 0))
        #expect(read(#","last":"1""#) { $0.expect(#","last":"#) } == (true, 8))
        #expect(read(#","quoteVolume":"#) { $0.peek(#","quoteVolume":"#) } == (true, 15))
        #expect(read(#","quoteVolumE":"#) { $0.peek(#","quoteVolume":"#) } == (false, 0))
        #expect(read(#","quoteVol"#) { $0.peek(#","quoteVolume":"#) } == (false, 0))
        #expect(read("}") { $0.expect("}") } == (true, 1))
        #expect(read("") { $0.expect("}") } == (false, 0))
    }
}

@Suite("Direct wire: skipping values")
struct WireCursorSkipTests {
    static let seeds = [
        #"{"version":1,"type":"quote","seq":1,"time":"2026-11-26T21:58:10.123Z","source":"bitso","data":{"source":"bitso","market":{"base":"BTC","quote":"MXN"},"last":"1298765.43","high":"1310000.00","low":"1280000.50","volume":"123.45678901","ask":"1298772.55","bid":"1298758.93"}}"#,
        #"{"a":[1,-2,3.25,-0.5,0,true,false,null,[],{},[[["x"]]]],"b":{"c":{"d":{"e":"f"}}},"":""}"#,
        #"[{"price":"1.5","size":"2"},{"price":"1.25","size":"0.001"}]"#,
        #"{"jsonrpc":"2.0","id":17,"result":{"rows":[{"k":"v","n":-12.5}],"ok":true}}"#,
    ]

    @Test func theSeedsAreSkippedWhole() {
        for seed in Self.seeds {
            let (skipped, offset) = read(seed) { $0.skipValue() }
            #expect(skipped && offset == seed.utf8.count, "\(seed)")
        }
        #expect(read("[[[1]]]") { $0.skipValue(depth: 3) }.value)
        #expect(!read("[[[1]]]") { $0.skipValue(depth: 2) }.value)
    }

    @Test func whatIsSkippedTheTapeAccepts() {
        var random = SplitMix64(state: 3131)
        var skipped = 0, refused = 0
        for round in 0..<10_000 {
            var bytes = Array(Self.seeds[round % Self.seeds.count].utf8)
            for _ in 0..<(1 + Int(random.next() % 3)) { bytes = mutate(bytes, using: &random) }
            let (ok, offset) = bytes.withUnsafeBytes { raw -> (Bool, Int) in
                var cursor = WireCursor(raw)
                return (cursor.skipValue(), cursor.offset)
            }
            guard ok else {
                refused += 1
                continue
            }
            skipped += 1
            let value = Data(bytes[..<offset])
            do {
                _ = try WireJSONDecoder().parse(value)
            } catch {
                Issue.record("skipped what the tape refuses: \(String(decoding: value, as: UTF8.self)): \(error)")
            }
        }
        // Both answers come up often, or the test proves little.
        #expect(skipped > 1000 && refused > 1000, "\(skipped) skipped, \(refused) refused")
    }

    @Test func whatIsNotCertainlyValidIsRefused() {
        for text in [#"{"a" :1}"#, #"{"a":1,}"#, "[1,]", "[1 ]", "01", "1e5", "1.", "-", "tru", "nul", #"{"a\n":1}"#,
                     #"["é"]"#, "{1:2}", #"{"a"}"#, "[", String(repeating: "1", count: 41), "\"" + String(repeating: "x", count: 5) + "\\\""] {
            #expect(!read(text) { $0.skipValue() }.value, "\(text)")
        }
    }
}

@Suite("Direct wire: dates")
struct DirectDateTests {
    /// `WireDate.write(_:cache:to:)`'s text for each date, in order, through one cache.
    private func cachedTexts(_ dates: [Date], cache: inout WireDateCache) -> [String] {
        dates.map { date in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: WireDate.maxLength) { out in
                let length = WireDate.write(date, cache: &cache, to: out.baseAddress!)
                return String(decoding: UnsafeBufferPointer(rebasing: out[..<length]), as: UTF8.self)
            }
        }
    }

    @Test func theCacheWritesWhatFormatWrites() throws {
        let boundaries = try [
            "2026-11-26T21:59:00.000Z", "2026-11-27T00:00:00.000Z", "2024-02-29T00:00:00.000Z", "2024-03-01T00:00:00.000Z",
            "2100-03-01T00:00:00.000Z", "2000-03-01T00:00:00.000Z", "2027-01-01T00:00:00.000Z", "1970-01-01T00:00:00.000Z",
            "1969-12-31T23:59:00.000Z", "0000-01-01T00:00:00.000Z", "9999-12-31T23:59:00.000Z",
        ].map { try #require(WireDate.parse($0)) } + [Date(timeIntervalSince1970: 253_402_300_800)]  // 10000-01-01
        var cache = WireDateCache()
        var checked = 0
        for boundary in boundaries {
            // Both sides of the boundary, in steps of 7.3 ms (fractions that round either way), forwards then back.
            let dates = (-9000...9000).map { boundary.addingTimeInterval(Double($0) * 0.0073) }
            for date in dates + dates.reversed() {
                let cached = cachedTexts([date], cache: &cache)[0]
                #expect(cached == WireDate.format(date), "\(date.timeIntervalSince1970)")
                checked += 1
            }
        }
        #expect(checked > 300_000)
        #expect(WireDate.format(Date(timeIntervalSince1970: 253_402_300_800)) == "10000-01-01T00:00:00.000Z")
    }

    @Test func theCacheAgreesOnRandomDatesAndRounding() {
        var random = SplitMix64(state: 99)
        var cache = WireDateCache()
        for _ in 0..<20_000 {
            let seconds: Double
            switch random.next() % 4 {
            case 0: seconds = Double(Int64(bitPattern: random.next()) % 400_000_000_000)  // years about -10700…14600
            case 1: seconds = 1_790_000_000 + Double(random.next() % 100_000) / 1000 + 0.0005  // ties round away from zero
            case 2: seconds = -Double(random.next() % 10_000_000) / 1000 - 0.0005
            default: seconds = 1_790_000_000 + Double(random.next() % 600_000) * 0.0001
            }
            let date = Date(timeIntervalSince1970: seconds)
            #expect(cachedTexts([date], cache: &cache)[0] == WireDate.format(date), "\(seconds)")
        }
    }

    @Test func appendDateQuotesTheCachedText() throws {
        let date = try #require(WireDate.parse("2026-11-26T21:58:10.123Z"))
        var cache = WireDateCache()
        let bytes = bufferBytes { buffer in
            buffer.appendDate(date, cache: &cache)
            buffer.appendDate(date.addingTimeInterval(1), cache: &cache)
        }
        #expect(String(decoding: bytes, as: UTF8.self) == #""2026-11-26T21:58:10.123Z""2026-11-26T21:58:11.123Z""#)
        #expect(bytes == writerBytes { $0.date(date); $0.date(date.addingTimeInterval(1)) })
    }

    @Test func parseCanonicalIsParse() {
        var random = SplitMix64(state: 5)
        for _ in 0..<20_000 {
            let date = Date(timeIntervalSince1970: Double(random.next() % 253_402_300_800_000) / 1000)
            let text = Array(WireDate.format(date).utf8)
            #expect(text.count == 24)
            let canonical = text.withUnsafeBufferPointer { WireDate.parseCanonical($0.baseAddress!) }
            let parsed = text.withUnsafeBufferPointer { WireDate.parse(utf8: $0) }
            #expect(canonical != nil)
            #expect(canonical?.timeIntervalSince1970.bitPattern == parsed?.timeIntervalSince1970.bitPattern)
        }
    }

    @Test func parseCanonicalRefusesWhatIsNotCanonical() {
        for text in ["2026-02-29T10:00:00.000Z", "2100-02-29T10:00:00.000Z", "2026-13-01T10:00:00.000Z", "2026-00-01T10:00:00.000Z",
                     "2026-01-00T10:00:00.000Z", "2026-04-31T10:00:00.000Z", "2026-01-01T24:00:00.000Z", "2026-01-01T10:60:00.000Z",
                     "2026-01-01T10:00:60.000Z", "2026-01-01T10:00:00.1+01", "2026-01-01 10:00:00.000Z", "2026-01-01T10:00:00.000z",
                     "2026-01-01T10:00:00,000Z", "2026/01/01T10:00:00.000Z", "2026-01-01T10:00:0a.000Z", "+026-01-01T10:00:00.000Z"] {
            let bytes = Array(text.utf8)
            #expect(bytes.withUnsafeBufferPointer { WireDate.parseCanonical($0.baseAddress!) } == nil, "\(text)")
        }
        #expect(Array("2024-02-29T23:59:59.999Z".utf8).withUnsafeBufferPointer { WireDate.parseCanonical($0.baseAddress!) } != nil)
        #expect(Array("0000-01-01T00:00:00.000Z".utf8).withUnsafeBufferPointer { WireDate.parseCanonical($0.baseAddress!) }
            == WireDate.parse("0000-01-01T00:00:00.000Z"))
    }

    @Test func everyEditOfACanonicalDateIsParsedAsParseDoes() {
        var random = SplitMix64(state: 17)
        let alphabet = Array("0123456789-:.TZ+x".utf8) + [0x00, 0x80, 0xFF, 0x2F, 0x3A]
        for _ in 0..<20_000 {
            var text = Array("2024-02-29T23:59:59.999Z".utf8)
            for _ in 0..<(1 + Int(random.next() % 2)) {
                text[Int(random.next() % 24)] = alphabet[Int(random.next() % UInt64(alphabet.count))]
            }
            let canonical = text.withUnsafeBufferPointer { WireDate.parseCanonical($0.baseAddress!) }
            guard let canonical else { continue }
            let parsed = text.withUnsafeBufferPointer { WireDate.parse(utf8: $0) }
            #expect(canonical == parsed, "\(String(decoding: text, as: UTF8.self))")
        }
    }

    @Test func theCursorReadsQuotedCanonicalDatesOnly() throws {
        let date = try #require(WireDate.parse("2026-11-26T21:58:10.123Z"))
        #expect(read(#""2026-11-26T21:58:10.123Z","#) { $0.date() } == (date, 26))
        for refused in [#""2026-11-26T21:58:10.12Z""#, #""2026-11-26T21:58:10.1234Z""#, #""2026-11-26T21:58:10.123+00:00""#,
                        #""2026-11-26T21:58:10Z""#, #""2026-11-26T21:58:10.123Z"#, "2026-11-26T21:58:10.123Z", #""2026-11-31T21:58:10.123Z""#] {
            #expect(read(refused) { $0.date() } == (nil, 0), "\(refused)")
        }
    }
}

@Suite("Direct wire: WireBuffer")
struct WireBufferTests {
    @Test func stringsAreEscapedAsTheEncoderEscapesThem() {
        for code in 0...255 {
            let scalar = String(UnicodeScalar(UInt8(code)))
            for text in [scalar, "abcdefgh" + scalar + "ijklmnopq", scalar + scalar + "0123456789abcdef" + scalar] {
                #expect(bufferBytes { $0.appendString(text) } == writerBytes { $0.string(text) }, "\(code)")
            }
        }
        var random = SplitMix64(state: 11)
        let pieces = ["a", "Z", "\"", "\\", "/", "\n", "\t", "\u{0}", "\u{1F}", "\u{7F}", "é", "€", "😀", " ", "0123456789"]
        for _ in 0..<5000 {
            let text = (0..<Int(random.next() % 30)).map { _ in pieces[Int(random.next() % UInt64(pieces.count))] }.joined()
            #expect(bufferBytes(capacity: 1) { $0.appendString(text) } == writerBytes { $0.string(text) }, "\(text)")
        }
        // Every byte at every place of a short string (the small strings' path) and just past it.
        for length in 1...16 {
            for at in 0..<length {
                for code in 0...255 {
                    var scalars = Array(repeating: "k", count: length)
                    scalars[at] = String(UnicodeScalar(UInt8(code)))
                    let text = scalars.joined()
                    #expect(bufferBytes(capacity: 1) { $0.appendString(text) } == writerBytes { $0.string(text) }, "\(length) \(at) \(code)")
                }
            }
        }
        #expect(String(decoding: bufferBytes { $0.appendString("a\"\\\u{1}/é") }, as: UTF8.self) == #""a\"\\\u0001/é""#)
    }

    @Test func integersAndMoneyAreWrittenAsTheEncoderWritesThem() throws {
        let unsigned: [UInt64] = [0, 1, 9, 10, 99, 100, 12345, 1 << 32, UInt64(Int64.max), 9_999_999_999_999_999_999, 10_000_000_000_000_000_000, .max]
        for value in unsigned {
            #expect(bufferBytes { $0.appendUInt(value) } == writerBytes { $0.uint64(value) })
        }
        let signed: [Int64] = [0, 1, -1, 10, -10, 999, -1000, .max, .min, .min + 1]
        for value in signed {
            #expect(bufferBytes { $0.appendInt(value) } == writerBytes { $0.integer(value) })
        }
        for text in ["0", "12", "1298.99", "-0.001", "12.50", "123456789012345678901234567890.12345678"] {
            let money = try ExactDecimal(text)
            #expect(bufferBytes { $0.appendText(money) } == Array("\"\(text)\"".utf8))
            #expect(bufferBytes { $0.appendText(money) } == writerBytes { $0.text(money) })
        }
    }

    @Test func theBufferGrowsAndKeepsItsCapacity() {
        var buffer = WireBuffer(capacity: 1)
        var expected: [UInt8] = []
        for index in 0..<1000 {
            buffer.append(#","key":"#)
            buffer.appendUInt(UInt64(index))
            expected += Array(#","key":\#(index)"#.utf8)
        }
        #expect(buffer.withBytes { Array($0) } == expected)
        let capacity = buffer.capacity
        buffer.removeAll()
        #expect(buffer.byteCount == 0 && buffer.capacity == capacity)
        buffer.append("{}")
        #expect(buffer.withBytes { Array($0) } == Array("{}".utf8))
    }

    @Test func aBufferLivesInAMutexWithItsCache() {
        struct State: ~Copyable {
            var buffer = WireBuffer()
            var cache = WireDateCache()
        }
        let state = Mutex(State())
        let text = state.withLock { state in
            state.buffer.removeAll()
            state.buffer.append(#"{"time":"#)
            state.buffer.appendDate(Date(timeIntervalSince1970: 0), cache: &state.cache)
            state.buffer.append("}")
            return state.buffer.withBytes { String(decoding: $0, as: UTF8.self) }
        }
        #expect(text == #"{"time":"1970-01-01T00:00:00.000Z"}"#)
    }
}

@Suite("Direct wire: decodeDirect")
struct DecodeDirectTests {
    static let sample = DirectSample(name: "bitso", count: -42, price: 1298, time: WireDate.parse("2026-11-26T21:58:10.123Z"))

    @Test func directBytesAreTheEncodersAndReadBack() throws {
        for value in [Self.sample, DirectSample(name: "a\"é\n", count: .max, price: try ExactDecimal("-0.001"), time: nil)] {
            var buffer = WireBuffer()
            value.writeWire(to: &buffer)
            let direct = buffer.withBytes { Array($0) }
            #expect(direct == Array(try WireJSONEncoder().encode(value)))
            #expect(try direct.withUnsafeBytes { try WireJSONDecoder().decodeDirect(DirectSample.self, from: $0) } == value)
        }
    }

    @Test func theFastPathReadsCanonicalTextOnly() throws {
        let canonical = Array(try WireJSONEncoder().encode(Self.sample))
        let fast = canonical.withUnsafeBytes { raw -> DirectSample? in
            var cursor = WireCursor(raw)
            return DirectSample.readWire(&cursor)
        }
        #expect(fast == Self.sample)
        let spaced = Array(#"{"name": "bitso", "count": -42, "price": "1298", "time": "2026-11-26T21:58:10.123Z"}"#.utf8)
        #expect(spaced.withUnsafeBytes { raw -> DirectSample? in
            var cursor = WireCursor(raw)
            return DirectSample.readWire(&cursor)
        } == nil)
        #expect(try spaced.withUnsafeBytes { try WireJSONDecoder().decodeDirect(DirectSample.self, from: $0) } == Self.sample)
    }

    @Test func decodeDirectAnswersAsTheTapeOnRandomEdits() throws {
        let canonical = Array(try WireJSONEncoder().encode(Self.sample))
        var random = SplitMix64(state: 2026)
        var accepted = 0
        for _ in 0..<5000 {
            let bytes = mutate(canonical, using: &random)
            let direct = Answer { try bytes.withUnsafeBytes { try WireJSONDecoder().decodeDirect(DirectSample.self, from: $0) } }
            if direct.value != nil { accepted += 1 }
            #expect(direct == tape(DirectSample.self, bytes), "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 100)
    }

    @Test func limitsTheFastPathCannotKeepSendItToTheTape() throws {
        let canonical = Array(try WireJSONEncoder().encode(Self.sample))
        let shallow = WireJSONDecoder(limits: WireJSONLimits(maxDepth: 1, maxNumberLength: 1, maxStringLength: 3))
        #expect(throws: DecodingError.self) { try canonical.withUnsafeBytes { try shallow.decodeDirect(DirectSample.self, from: $0) } }
    }
}
