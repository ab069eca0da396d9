import Foundation
import Money
import Testing
@testable import WireJSON
import WireJSONTesting

/// A value with every kind of field the wire carries.
struct Sample: Codable, Equatable {
    struct Inner: Codable, Equatable {
        var name: String
        var amounts: [ExactDecimal]
        var flag: Bool?
    }

    var text: String
    var int: Int
    var int8: Int8
    var uint64: UInt64
    var int64: Int64
    var uint32: UInt32
    var double: Double
    var float: Float
    var bool: Bool
    var date: Date
    var money: ExactDecimal
    var optionalMoney: ExactDecimal?
    var missing: String?
    var explicitNull: Int?
    var data: Data
    var url: URL
    var decimal: Decimal
    var list: [Int]
    var nested: [[String]]
    var inner: Inner
    var inners: [Inner]
    var map: [String: ExactDecimal]
    var intKeys: [Int: String]

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(text, forKey: .text)
        try container.encode(int, forKey: .int)
        try container.encode(int8, forKey: .int8)
        try container.encode(uint64, forKey: .uint64)
        try container.encode(int64, forKey: .int64)
        try container.encode(uint32, forKey: .uint32)
        try container.encode(double, forKey: .double)
        try container.encode(float, forKey: .float)
        try container.encode(bool, forKey: .bool)
        try container.encode(date, forKey: .date)
        try container.encode(money, forKey: .money)
        try container.encodeIfPresent(optionalMoney, forKey: .optionalMoney)
        try container.encodeIfPresent(missing, forKey: .missing)
        try container.encodeNil(forKey: .explicitNull)
        try container.encode(data, forKey: .data)
        try container.encode(url, forKey: .url)
        try container.encode(decimal, forKey: .decimal)
        try container.encode(list, forKey: .list)
        try container.encode(nested, forKey: .nested)
        try container.encode(inner, forKey: .inner)
        try container.encode(inners, forKey: .inners)
        try container.encode(map, forKey: .map)
        try container.encode(intKeys, forKey: .intKeys)
    }

    static func make(_ seed: Int) throws -> Sample {
        Sample(
            text: "quote \"\(seed)\" \\ / \n\t\u{01} é € 𝄞", int: -seed * 1_000_003, int8: -128, uint64: UInt64.max - UInt64(seed),
            int64: Int64.min + Int64(seed), uint32: 4_000_000_000, double: 0.1 * Double(seed) + 1e-300, float: 1.5, bool: seed % 2 == 0,
            date: Date(timeIntervalSince1970: 1_763_900_000.123 + Double(seed)), money: try ExactDecimal("-1298.990"),
            optionalMoney: seed % 2 == 0 ? try ExactDecimal("0.00000001") : nil, missing: nil, explicitNull: nil,
            data: Data([0, 1, 2, 255, UInt8(seed & 0xFF)]), url: URL(string: "https://example.com/a/b?c=d&e=\(seed)")!,
            decimal: Decimal(string: "12345.678")!, list: [1, -2, 3], nested: [[], ["a"], ["b", "c"]],
            inner: Inner(name: "n\(seed)", amounts: [try ExactDecimal("1.50"), try ExactDecimal("99999999999999999999.999999999999999999")], flag: nil),
            inners: (0..<3).map { Inner(name: "i\($0)", amounts: [], flag: $0 == 1) },
            map: ["USD": try ExactDecimal("1.08"), "SEK": try ExactDecimal("11.5"), "a\"b": 0], intKeys: [1: "one", -2: "minus two"])
    }
}


/// Where ``Leaky`` keeps the encoder it was given.
final class EncoderStash: @unchecked Sendable {
    var encoder: (any Encoder)?
}

/// A value whose `encode(to:)` keeps its encoder past the call, as no value should.
struct Leaky: Encodable {
    let stash: EncoderStash

    func encode(to encoder: any Encoder) throws {
        stash.encoder = encoder
        var container = encoder.singleValueContainer()
        try container.encode(1)
    }
}

@Suite("WireJSON against Foundation's coders")
struct WireJSONTests {
    let encoder = WireJSONEncoder()
    let decoder = WireJSONDecoder(userInfo: [ExactDecimal.stringsOnly: true])

    @Test func everyFieldRoundTripsBothWays() throws {
        for seed in 0..<20 {
            let sample = try Sample.make(seed)
            let ours = try encoder.encode(sample)
            // Foundation reads what we write, and we read what Foundation writes, to the same values.
            #expect(try sameOnWire(Reference.decoder.decode(Sample.self, from: ours), sample))
            #expect(try decoder.decode(Sample.self, from: ours) == sample)
            #expect(try decoder.decode(Sample.self, from: Reference.encoder.encode(sample)) == sample)
            #expect(try decoder.decode(Sample.self, from: Reference.sortedEncoder.encode(sample)) == sample)
        }
    }

    @Test func writesTheWireConventions() throws {
        let json = String(decoding: try encoder.encode(Sample.make(1)), as: UTF8.self)
        #expect(json.hasPrefix(#"{"text":"quote \"1\" \\ / \n\t\u0001 é € 𝄞","int":-1000003,"int8":-128,"#))
        #expect(json.contains(#""date":"2025-11-23T12:13:21.123Z""#))
        #expect(json.contains(#""money":"-1298.990""#))
        #expect(json.contains(#""explicitNull":null"#))
        #expect(!json.contains("missing"))
        #expect(json.contains(#""float":1.5,"#))
        #expect(json.contains(#""data":"AAEC\/wE=""#) || json.contains(#""data":"AAEC/wE=""#))
        #expect(json.contains(#""decimal":12345.678"#))
        #expect(try encoder.encode([1.0, 2.5]) == Data("[1,2.5]".utf8))
    }

    @Test func emptyAndScalarValues() throws {
        struct Empty: Codable, Equatable {}
        #expect(try encoder.encode(Empty()) == Data("{}".utf8))
        #expect(try encoder.encode([String]()) == Data("[]".utf8))
        #expect(try encoder.encode("x") == Data(#""x""#.utf8))
        #expect(try decoder.decode(Empty.self, from: Data(#" { "extra" : [1, {"a": null}] } "#.utf8)) == Empty())
        #expect(try decoder.decode(Int.self, from: Data(" 42 ".utf8)) == 42)
        #expect(try decoder.decode(String?.self, from: Data("null".utf8)) == nil)
    }

    @Test func nonFiniteNumbersAreRefused() {
        #expect(throws: EncodingError.self) { try encoder.encode([Double.nan]) }
        #expect(throws: EncodingError.self) { try encoder.encode(Double.infinity) }
        #expect(throws: EncodingError.self) { try encoder.encode(["a": [Float.nan]]) }
    }

    @Test func errorsNameTheFieldAsFoundationDoes() throws {
        let good = String(decoding: try encoder.encode(Sample.make(2)), as: UTF8.self)
        // Where Foundation differs, the wire decoder says more: it names the field of a number out of
        // range, where Foundation calls the whole text invalid.
        let cases: [(text: String, ours: String, foundation: String)] = [
            (good.replacingOccurrences(of: #""int":-2000006,"#, with: ""), "keyNotFound int", "keyNotFound int"),
            (good.replacingOccurrences(of: #""int":-2000006"#, with: #""int":"x""#), "typeMismatch int", "typeMismatch int"),
            (good.replacingOccurrences(of: #""int":-2000006"#, with: #""int":null"#), "valueNotFound int", "valueNotFound int"),
            (good.replacingOccurrences(of: #""name":"n2""#, with: #""name":7"#), "typeMismatch inner.name", "typeMismatch inner.name"),
            (good.replacingOccurrences(of: #""money":"-1298.990""#, with: #""money":-1298.99"#), "dataCorrupted money", "dataCorrupted money"),
            (good.replacingOccurrences(of: #""int8":-128"#, with: #""int8":-129"#), "dataCorrupted int8", "dataCorrupted "),
            (good.replacingOccurrences(of: #""date":"2025-11-23T12:13:22.123Z""#, with: #""date":"2025-02-30T12:13:22Z""#), "dataCorrupted date", "dataCorrupted date"),
        ]
        for (text, ours, foundation) in cases {
            #expect(text != good)
            #expect(describe(failure(text)) == ours, "\(ours)")
            #expect(describe(failure(text, reference: true)) == foundation, "Foundation: \(foundation)")
        }
        let inArray = good.replacingOccurrences(of: #""name":"i1""#, with: #""name":false"#)
        #expect(describe(failure(inArray)) == "typeMismatch inners.Index 1.name")
    }

    @Test func integersFollowFoundation() throws {
        #expect(try decoder.decode([Int].self, from: Data("[1e2, -0, 1.0, 9223372036854775807]".utf8)) == [100, 0, 1, Int.max])
        for text in ["[1.5]", "[9223372036854775808]", "[1e400]"] {
            #expect(throws: DecodingError.self) { try decoder.decode([Int].self, from: Data(text.utf8)) }
        }
        #expect(throws: DecodingError.self) { try decoder.decode([UInt8].self, from: Data("[-1]".utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode([Double].self, from: Data("[1e400]".utf8)) }
    }

    @Test func nestingIsBounded() throws {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: DecodingError.self) { try decoder.decode(JSONValue.self, from: Data(deep.utf8)) }
        // Up to WireJSONLimits' default depth (deeper is refused: WireJSONLimitsTests).
        let fine = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try decoder.decode(JSONValue.self, from: Data(fine.utf8)) == Reference.decoder.decode(JSONValue.self, from: Data(fine.utf8)))
    }

    /// Containers used in order work anywhere; a container written after a later sibling was made is refused.
    @Test func manualContainers() throws {
        struct Manual: Encodable {
            enum Key: String, CodingKey { case a, b, c, d }
            func encode(to encoder: any Encoder) throws {
                var top = encoder.container(keyedBy: Key.self)
                var a = top.nestedContainer(keyedBy: Key.self, forKey: .a)
                try a.encode(1, forKey: .b)
                var list = top.nestedUnkeyedContainer(forKey: .b)
                try list.encode("x")
                var inner = list.nestedContainer(keyedBy: Key.self)
                try inner.encodeNil(forKey: .c)
                try top.encode(true, forKey: .c)
                let base = top.superEncoder(forKey: .d)
                var single = base.singleValueContainer()
                try single.encode(3)
            }
        }
        let json = try encoder.encode(Manual())
        #expect(String(decoding: json, as: UTF8.self) == #"{"a":{"b":1},"b":["x",{"c":null}],"c":true,"d":3}"#)
        #expect(try decoder.decode(JSONValue.self, from: json) == Reference.decoder.decode(JSONValue.self, from: json))

        struct Interleaved: Encodable {
            enum Key: String, CodingKey { case a, b }
            func encode(to encoder: any Encoder) throws {
                var top = encoder.container(keyedBy: Key.self)
                var first = top.nestedContainer(keyedBy: Key.self, forKey: .a)
                _ = top.nestedContainer(keyedBy: Key.self, forKey: .b)
                try first.encode(1, forKey: .a)
            }
        }
        #expect(throws: EncodingError.self) { try encoder.encode(Interleaved()) }
    }

    /// A document parsed once decodes as its text does, as often as wanted and from several tasks at once;
    /// invalid JSON fails at the parse, and a member's errors carry the member's path.
    @Test func parsedDocumentsDecodeLikeTheirText() async throws {
        struct Header: Decodable, Equatable { var type: String; var seq: Int }
        let text = Data(#"{"data":{"a":"}]\"[{","b":[[{}]]},"type":"quote","list":[1,"]"],"seq":7}"#.utf8)
        let document = try decoder.parse(text)
        #expect(document.data == text)
        #expect(try decoder.decode(Header.self, from: document) == Header(type: "quote", seq: 7))
        #expect(try decoder.decode(JSONValue.self, from: document) == (try decoder.decode(JSONValue.self, from: text)))
        #expect(try decoder.decode(JSONValue.self, forKey: "data", from: document)
            == .object(["a": .string(#"}]"[{"#), "b": .array([.array([.object([:])])])]))
        for broken in [#"{"data":{"a":[1,2},"type":"x","seq":1}"#, #"{"type":"x","seq":1,"data":{"a":"}"#, "[1] 2"] {
            #expect(throws: DecodingError.self) { try decoder.parse(Data(broken.utf8)) }
        }
        let error = #expect(throws: DecodingError.self) { try decoder.decode([Int].self, forKey: "list", from: document) }
        guard case .typeMismatch(_, let context)? = error else { Issue.record("expected a type mismatch"); return }
        #expect(context.codingPath.map(\.stringValue) == ["list", "Index 1"])
        #expect(throws: DecodingError.self) { try decoder.decode(Int.self, forKey: "missing", from: document) }
        let sample = try decoder.parse(encoder.encode(Sample.make(4)))
        let decoded = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (try? decoder.decode(Sample.self, from: sample)) == (try? Sample.make(4)) } }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(decoded == 8)
    }

    /// A repeated key is found however the object is laid out: among few or many members, written plainly
    /// or with an escape, after a key that shares its look-up bit or not. Read after a later member (which
    /// leaves the look-up's hint on the repeat), the first value still wins, as Foundation decides.
    @Test func repeatedKeysWinFirstInEveryLayout() throws {
        struct LaterThenRepeated: Decodable, Equatable { let z: Int; let k: Int }
        for fillers in [0, 1, 5, 30, 31, 32, 40] {
            for spelling in [#""k""#, #""\u006b""#] {
                let filler = (0..<fillers).map { #""f\#($0)":\#($0)"# }
                let text = "{" + ([#""k":1"#] + filler + [#""z":0"#, spelling + ":2"]).joined(separator: ",") + "}"
                let expected = try Reference.decoder.decode(LaterThenRepeated.self, from: Data(text.utf8))
                #expect(try decoder.decode(LaterThenRepeated.self, from: Data(text.utf8)) == expected, "\(text)")
                #expect(expected.k == 1)
            }
        }
    }

    /// `parse(_:readingObject:)` reads the top-level object from the parse itself; the document it returns
    /// decodes as one from `parse(_:)` does, and a top level that is not an object throws Foundation's error.
    @Test func parseThenReadTheTopLevelObject() throws {
        struct Header: Decodable, Equatable { var type: String; var seq: Int }
        let text = Data(#"{"type":"quote","seq":7,"data":{"a":[1,2]},"type":"again"}"#.utf8)
        let (document, read) = try decoder.parse(text) { object in
            (try object.decode(String.self, forKey: "type"), try object.decode(Int.self, forKey: "seq"))
        }
        #expect(read.0 == "quote" && read.1 == 7, "the first of a repeated key wins, as in Foundation")
        #expect(try decoder.decode(Header.self, from: document) == Header(type: "quote", seq: 7))
        #expect(try decoder.decode(JSONValue.self, forKey: "data", from: document) == .object(["a": .array([.number(1), .number(2)])]))
        let error = #expect(throws: DecodingError.self) { try decoder.parse(Data("[1,2]".utf8)) { _ in 0 } }
        guard case .typeMismatch? = error else { Issue.record("expected a type mismatch, got \(String(describing: error))"); return }
        #expect(throws: DecodingError.self) { try decoder.parse(Data(#"{"type":"#.utf8)) { _ in 0 } }
    }

    /// A decoder, container or wire reader kept past the decode that made it (the protocols allow it) still
    /// reads its own text and nodes after the caller has freed them and their memory holds other bytes.
    @Test func keptDecodersReadTheirText() throws {
        struct Member: Decodable, Equatable { var name: String; var count: Int }
        final class Keeper: Decodable {
            let decoder: any Decoder
            init(from decoder: any Decoder) { self.decoder = decoder }
        }
        let name = "a name long enough that the text lives on the heap"
        func text() -> Data { Data(#"{"name":"\#(name)","count":12}"#.utf8) }
        let fromText = try decoder.decode(Keeper.self, from: text())
        let fromDocument = try decoder.decode(Keeper.self, from: decoder.parse(text()))
        var reader: WireObjectReader?
        _ = try decoder.parse(text()) { reader = $0 }
        let scribbles = (0..<256).map { _ in Data(repeating: UInt8(ascii: "}"), count: text().count) }
        #expect(try Member(from: fromText.decoder) == Member(name: name, count: 12))
        #expect(try Member(from: fromDocument.decoder) == Member(name: name, count: 12))
        #expect(try reader?.decode(String.self, forKey: "name") == name)
        #expect(try reader?.decode(Int.self, forKey: "count") == 12)
        #expect(scribbles.allSatisfy { $0.first == UInt8(ascii: "}") })
    }

    /// Encodings reuse spare writers (a slot per thread): one that failed half-way (inside nested containers) leaves nothing
    /// behind for the next, a large one is not kept, and encodings from many tasks at once each get their own bytes.
    @Test func writersAreReusedCleanly() async throws {
        let sample = try Sample.make(3)
        // Without its dictionaries (whose order differs from one instance to the next), the bytes are fixed.
        let expected = try encoder.encode(sample.inners)
        #expect(throws: EncodingError.self) { try encoder.encode(["a": [["b": [1.0, .nan]]]]) }
        #expect(try encoder.encode(sample.inners) == expected)
        #expect(try decoder.decode(Sample.self, from: encoder.encode(sample)) == sample)
        // A value that keeps its encoder: its writer is never reused, so using the encoder later touches no other encoding.
        let stash = EncoderStash()
        #expect(try encoder.encode(Leaky(stash: stash)) == Data("1".utf8))
        #expect(try encoder.encode(sample.inners) == expected)
        var late = try #require(stash.encoder).unkeyedContainer()
        try? late.encode("written after its encoding returned")
        #expect(try encoder.encode(sample.inners) == expected)
        let large = [String](repeating: String(repeating: "x", count: 1000), count: 100)
        #expect(try encoder.encode(large).count == 100 * 1002 + 101)
        #expect(try encoder.encode(sample.inners) == expected)
        let matches = await withTaskGroup(of: Bool.self) { group in
            for seed in 0..<64 {
                group.addTask {
                    let sample = try? Sample.make(seed % 8)
                    guard let sample, let decoded = try? Reference.decoder.decode(Sample.self, from: encoder.encode(sample)) else { return false }
                    return (try? sameOnWire(decoded, sample)) == true
                }
            }
            return await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
        }
        #expect(matches == 64)
    }

    /// Random edits of valid documents: both decoders accept the same texts, with the same values.
    @Test func syntaxFuzzAgainstFoundation() async throws {
        let corpus: [String] = [
            String(decoding: try encoder.encode(Sample.make(3)), as: UTF8.self),
            #"{"a":[1,2.5e-3,-0.0,true,false,null],"b":{"c":"\u00e9\ud834\udd1e\n","d":[]},"e":{}}"#,
            #"[{"k":"v"},[[]],"s\"q",12345678901234567890,1E+2]"#,
            #"{"quote":{"bid":"1.5","ask":"1.6"},"seq":7,"time":"2026-11-23T10:15:30.123Z"}"#,
        ]
        var disagreements: [String] = []
        var accepted = 0
        for (index, text) in corpus.enumerated() {
            let found = await disagreementsWithFoundation(Data(text.utf8), as: JSONValue.self, rounds: 1500, seed: UInt64(index)) {
                try decoder.decode(JSONValue.self, from: $0)
            }
            disagreements += found.disagreements
            accepted += found.accepted
        }
        #expect(disagreements.isEmpty, "\(disagreements.prefix(5).joined(separator: "\n"))")
        #expect(accepted > 300, "the edits should leave a fair share valid")
    }

    private func failure(_ text: String, reference: Bool = false) -> (any Error)? {
        do {
            _ = reference
                ? try Reference.decoder.decode(Sample.self, from: Data(text.utf8))
                : try decoder.decode(Sample.self, from: Data(text.utf8))
            return nil
        } catch {
            return error
        }
    }

    private func describe(_ error: (any Error)?) -> String {
        guard let error else { return "accepted" }
        func path(_ keys: [any CodingKey]) -> String { keys.map(\.stringValue).joined(separator: ".") }
        switch error as? DecodingError {
        case .keyNotFound(let key, let context)?: return "keyNotFound \(path(context.codingPath + [key]))"
        case .typeMismatch(_, let context)?: return "typeMismatch \(path(context.codingPath))"
        case .valueNotFound(_, let context)?: return "valueNotFound \(path(context.codingPath))"
        case .dataCorrupted(let context)?: return "dataCorrupted \(path(context.codingPath))"
        default: return "\(error)"
        }
    }
}

@Suite("Wire dates")
struct WireDateTests {
    @Test func formatMatchesFoundationAndRoundTrips() throws {
        var random = SplitMix64(state: 7)
        let style = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
        for _ in 0..<5000 {
            // Whole milliseconds between 1900 and 2200.
            let milliseconds = Int64(random.next() % 9_467_280_000_000) - 2_208_988_800_000
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = WireDate.format(date)
            // Foundation's formatter truncates the fraction, so only the whole seconds are compared with it.
            let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
            let whole = fraction < 0 ? seconds - 1 : seconds
            let wholeText = Date(timeIntervalSince1970: Double(whole)).formatted(Date.ISO8601FormatStyle())
            let millisecondText = String(1000 + (fraction + 1000) % 1000).dropFirst()
            #expect(text == "\(wholeText.dropLast()).\(millisecondText)Z", "\(milliseconds)")
            #expect(WireDate.parse(wholeText) == Date(timeIntervalSince1970: Double(whole)))
            let parsed = try #require(WireDate.parse(text))
            #expect(WireDate.format(parsed) == text)
            #expect(abs(parsed.timeIntervalSince(try style.parse(text))) < 1e-6)
        }
    }

    @Test func roundsToTheNearestMillisecond() throws {
        #expect(WireDate.format(Date(timeIntervalSince1970: 0.4555)) == "1970-01-01T00:00:00.456Z")
        #expect(WireDate.format(Date(timeIntervalSince1970: -0.0004)) == "1970-01-01T00:00:00.000Z")
        #expect(WireDate.format(Date(timeIntervalSince1970: -0.0006)) == "1969-12-31T23:59:59.999Z")
        #expect(WireDate.format(try #require(WireDate.parse("2026-11-23T10:15:30.455Z"))) == "2026-11-23T10:15:30.455Z")
    }

    @Test func parsesOffsetsAndFractions() throws {
        let reference = try #require(WireDate.parse("2026-11-23T10:15:30Z"))
        for text in ["2026-11-23T11:15:30+01:00", "2026-11-23T11:15:30+0100", "2026-11-23T11:15:30+01", "2026-11-23T05:45:30-04:30"] {
            #expect(WireDate.parse(text) == reference, "\(text)")
        }
        #expect(WireDate.format(try #require(WireDate.parse("2026-11-23T10:15:30.1Z"))) == "2026-11-23T10:15:30.100Z")
        #expect(WireDate.format(try #require(WireDate.parse("2026-11-23T10:15:30.123456789Z"))) == "2026-11-23T10:15:30.123Z")
        #expect(WireDate.parse("2024-02-29T00:00:00Z") != nil)
        // Foundation's ISO8601FormatStyle takes several of these (one-digit fields, February 29 of 2026).
        for bad in ["2026-02-29T00:00:00Z", "2026-1-18T11:06:40Z", "2026-11-18T11:6:40Z", "2026-11-18T11:06:40123Z", "2026-13-01T00:00:00Z", "2026-11-23T24:00:00Z", "2026-11-23T10:60:00Z",
                    "2026-11-23T10:15:30", "2026-11-23 10:15:30Z", "2026-11-23T10:15:30.Z", "2026-11-23T10:15:30+1:00",
                    "2026-11-23T10:15:30Zjunk", "", "tomorrow"] {
            #expect(WireDate.parse(bad) == nil, "\(bad)")
        }
    }
}
