import Foundation
import Testing
import WireJSON
import WireJSONTesting

@Suite("WireJSON's limits on hostile input")
struct WireJSONLimitsTests {
    /// The limit and offset a refusal names, or nil when the text was not refused for a limit.
    private func refusal<T: Decodable>(_ text: String, as type: T.Type, limits: WireJSONLimits = .default) -> (limit: WireJSONLimits.Limit, offset: Int)? {
        do {
            _ = try WireJSONDecoder(limits: limits).decode(type, from: Data(text.utf8))
            return nil
        } catch {
            guard case .dataCorrupted(let context)? = error as? DecodingError,
                let syntax = context.underlyingError as? JSONSyntaxError, let limit = syntax.limit
            else { return nil }
            return (limit, syntax.offset)
        }
    }

    @Test func defaultsAreSensible() {
        let limits = WireJSONDecoder().limits
        #expect(limits == .default)
        #expect(limits.maxDepth == 64 && limits.maxNumberLength == 100 && limits.maxStringLength == 1 << 20)
    }

    @Test func depthUpToTheLimitIsRead() throws {
        let text = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try WireJSONDecoder().decode(JSONValue.self, from: Data(text.utf8)) != .null)
    }

    @Test func deeperNestingIsRefusedWhereItCrossesTheLimit() throws {
        let arrays = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let found = try #require(refusal(arrays, as: JSONValue.self))
        #expect(found.limit == .depth(64))
        #expect(found.offset == 64)
        let objects = String(repeating: #"{"a":"#, count: 10) + "1" + String(repeating: "}", count: 10)
        let small = try #require(refusal(objects, as: JSONValue.self, limits: WireJSONLimits(maxDepth: 9)))
        #expect(small.limit == .depth(9))
        #expect(small.offset == 9 * 5)
        // Far deeper than the stack could take if the parser recursed without a bound.
        let hostile = String(repeating: "[", count: 1_000_000)
        #expect(refusal(hostile, as: JSONValue.self)?.limit == .depth(64))
    }

    @Test func longNumbersAreRefused() throws {
        let atLimit = "1" + String(repeating: "0", count: 99)
        #expect(try WireJSONDecoder().decode(Double.self, from: Data(atLimit.utf8)) == 1e99)
        let over = #"{"a": -"# + String(repeating: "9", count: 100) + "}"
        let found = try #require(refusal(over, as: JSONValue.self))
        #expect(found.limit == .numberLength(100))
        #expect(found.offset == 6)
        let exponent = "1.5e" + String(repeating: "0", count: 10)
        #expect(refusal(exponent, as: Double.self, limits: WireJSONLimits(maxNumberLength: 8))?.limit == .numberLength(8))
    }

    @Test func longStringsAndKeysAreRefused() throws {
        let atLimit = "\"" + String(repeating: "x", count: 1 << 20) + "\""
        #expect(try WireJSONDecoder().decode(String.self, from: Data(atLimit.utf8)).utf8.count == 1 << 20)
        let over = "[1, \"" + String(repeating: "x", count: (1 << 20) + 1) + "\"]"
        let found = try #require(refusal(over, as: JSONValue.self))
        #expect(found.limit == .stringLength(1 << 20))
        #expect(found.offset == 4)
        let key = #"{"abcdefghijk": 1}"#
        let small = try #require(refusal(key, as: JSONValue.self, limits: WireJSONLimits(maxStringLength: 10)))
        #expect(small.limit == .stringLength(10))
        #expect(small.offset == 1)
        // Escapes count as written: six bytes for \u00e9.
        #expect(refusal(#""\u00e9\u00e9""#, as: String.self, limits: WireJSONLimits(maxStringLength: 11))?.limit == .stringLength(11))
    }

    @Test func aRefusalSaysWhichLimitAndWhere() throws {
        do {
            _ = try WireJSONDecoder(limits: WireJSONLimits(maxDepth: 2)).decode(JSONValue.self, from: Data("[[[1]]]".utf8))
            Issue.record("a text over the depth limit was read")
        } catch let DecodingError.dataCorrupted(context) {
            let syntax = try #require(context.underlyingError as? JSONSyntaxError)
            #expect(syntax.description == "nested deeper than the depth limit of 2 at byte 2")
        }
    }

    @Test func parseAppliesTheLimitsToo() {
        #expect(throws: DecodingError.self) {
            try WireJSONDecoder(limits: WireJSONLimits(maxStringLength: 3)).parse(Data(#"{"data": "abcd"}"#.utf8))
        }
    }
}

@Suite("Regressions the fuzzer found (Fuzz/regressions/WireJSONFuzzer)")
struct WireJSONFuzzRegressionTests {
    /// "5\0": Foundation's decoder reads 5 and ignores the NUL and anything after it; the wire refuses text
    /// after the value, a NUL included, and says where.
    @Test func aNulAfterTheValueIsRefused() throws {
        for text in [[0x35, 0x00], [0x35, 0x00, 0x7B], [0x5B, 0x31, 0x5D, 0x00]] as [[UInt8]] {
            do {
                _ = try WireJSONDecoder().decode(JSONValue.self, from: Data(text))
                Issue.record("\(text) was read")
            } catch let DecodingError.dataCorrupted(context) {
                let syntax = try #require(context.underlyingError as? JSONSyntaxError)
                #expect(syntax.reason == "unexpected text after the JSON value")
                #expect(syntax.offset == text.firstIndex(of: 0))
            }
        }
        #expect(disagreement([0x35, 0x00], as: JSONValue.self) { try WireJSONDecoder().decode(JSONValue.self, from: $0) } == nil)
    }
}

extension WireJSONFuzzRegressionTests {
    /// "-0.0e-1" is a valid number (negative zero); Foundation's decoder on Linux does not read it as a Double.
    @Test func negativeZeroWithAnExponentIsRead() throws {
        let value = try WireJSONDecoder().decode(Double.self, from: Data("-0.0e-1".utf8))
        #expect(value == 0 && value.sign == .minus)
        #expect(try WireJSONDecoder().decode(JSONValue.self, from: Data("[-0.0e-1]".utf8)) == .array([.number(-0.0)]))
    }
}

extension WireJSONFuzzRegressionTests {
    /// An invalid escape in a value no one reads (a repeated key's second value) is still invalid JSON: the wire
    /// refuses it, where Foundation, which checks only what it reads, takes the quote.
    @Test func anInvalidEscapeInAnUnreadValueIsRefused() throws {
        let text = Data(#"{"a": "x", "a": "2\."}"#.utf8)
        #expect(throws: DecodingError.self) { try WireJSONDecoder().decode([String: String].self, from: text) }
        #expect(throws: (any Error).self) { try JSONSerialization.jsonObject(with: text) }
    }
}

extension WireJSONFuzzRegressionTests {
    /// `[ "o",0e1,20]` (found by `make fuzz`): `0e1` is a valid number (zero) that Foundation's decoder on Linux does
    /// not read as a Double. Inside an array, the element's error is the array's, so the differential check names it
    /// Foundation's number bug rather than a disagreement.
    @Test func zeroWithAnExponentInAnArrayIsRead() throws {
        let text = Array(#"[ "o",0e1,20]"#.utf8)
        #expect(try WireJSONDecoder().decode(JSONValue.self, from: Data(text)) == .array([.string("o"), .number(0), .number(20)]))
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(JSONValue.self, from: Data(text)) }
        #expect(disagreement(text, as: JSONValue.self) { try WireJSONDecoder().decode(JSONValue.self, from: $0) } == nil)
    }
}
