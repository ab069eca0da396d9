@testable import Money
import Testing

@Suite("ExactDecimal parsing and printing")
struct ParsingTests {
    @Test(arguments: [
        ("1298.99", "1298.99", 129_899, 2),
        ("-2.345", "-2.345", -2345, 3),
        ("+3", "3", 3, 0),
        (".5", "0.5", 5, 1),
        ("-.5", "-0.5", -5, 1),
        ("7.", "7", 7, 0),
        ("1.5e-7", "0.00000015", 15, 8),
        ("1E3", "1000", 1000, 0),
        ("2.5E+1", "25", 25, 0),
        ("12.345e1", "123.45", 12345, 2),
        ("2.50", "2.50", 250, 2),
        ("-0.001", "-0.001", -1, 3),
        ("0", "0", 0, 0),
        ("-0", "0", 0, 0),
        ("-0.00", "0.00", 0, 2),
        ("000123.4500", "123.4500", 1_234_500, 4),
        ("0e-5", "0.00000", 0, 5),
    ] as [(String, String, Int128, Int)])
    func parsesAndPrints(input: String, printed: String, mantissa: Int128, scale: Int) throws {
        let value = try ExactDecimal(input)
        #expect(value.mantissa == mantissa)
        #expect(value.scale == scale)
        #expect(value.description == printed)
        #expect(try ExactDecimal(value.description) == value)
        #expect(try ExactDecimal(value.description).scale == value.scale)
    }

    @Test func roundTripsExtremes() throws {
        let extremes = [
            "99999999999999999999999999999999999999",
            "-99999999999999999999999999999999999999",
            "0.99999999999999999999999999999999999999",
            "-0.00000000000000000000000000000000000001",
            "12345678901234567890.123456789012345678",
            "18446744073709551616",
            "-18446744073709551615",
        ]
        for text in extremes {
            #expect(try ExactDecimal(text).description == text)
        }
    }

    /// The plain fast path (a word at a time from 8 bytes on) against the rule it implements and the full parse:
    /// texts of 0 to 23 bytes of digits, points, signs and other bytes at every place, each either read by `plain`
    /// to the full parse's value and scale, or refused because it is not an optional `-` and 1 to 19 digits with
    /// at most one point in at most 20 bytes after the sign.
    @Test func thePlainPathReadsWhatTheFullParseReads() {
        var generator = SplitMix64(state: 0x9_1A1E)
        let alphabet = Array("0123456789".utf8) + Array("0123456789.".utf8) + Array("-+e/:\u{0}\u{FA}\u{FF} ".utf8)
        var accepted = 0
        for round in 0..<60_000 {
            let length = round % 24
            var bytes = (0..<length).map { _ in UInt8(ascii: "0") + UInt8(generator.next() % 10) }
            // Most texts are plain; the rest get one to three other bytes at random places.
            for _ in 0..<(generator.next() % 3 == 0 ? 0 : Int(generator.next() % 4)) where length > 0 {
                bytes[Int(generator.next() % UInt64(length))] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
            }
            if generator.next() % 3 == 0, length > 0 { bytes[0] = UInt8(ascii: "-") }
            let body = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes[...]
            let digits = body.filter { $0 &- 48 < 10 }.count
            let plainRule = body.count <= 20 && body.allSatisfy { $0 &- 48 < 10 || $0 == UInt8(ascii: ".") }
                && body.filter { $0 == UInt8(ascii: ".") }.count <= 1 && (1...19).contains(digits)
            let plain = bytes.withUnsafeBufferPointer { ExactDecimal.plain(utf8: $0) }
            #expect((plain != nil) == plainRule, "\(String(decoding: bytes, as: UTF8.self))")
            guard let plain else { continue }
            accepted += 1
            guard case .success(let full) = bytes.withUnsafeBufferPointer({ ExactDecimal.parse($0) }) else {
                Issue.record("the full parse refuses \(String(decoding: bytes, as: UTF8.self))")
                continue
            }
            #expect(plain.mantissa == full.mantissa && plain.scale == full.scale, "\(String(decoding: bytes, as: UTF8.self))")
        }
        #expect(accepted > 20_000)
    }

    /// Printing and parsing take 64-bit fast paths up to 19 digits: values of every length from 1 to 38 digits,
    /// at every scale, print as their digits with the point placed by hand, and parse back to the same parts.
    @Test func randomValuesOfEveryLengthAndScale() throws {
        var generator = SplitMix64(state: 0x5EED_D161_7500)
        for _ in 0..<4_000 {
            let digits = Int.random(in: 1...38, using: &generator)
            var magnitude: UInt128 = 0
            for position in 0..<digits {
                let digit = UInt128(position == 0 ? UInt8.random(in: 1...9, using: &generator) : UInt8.random(in: 0...9, using: &generator))
                magnitude = magnitude * 10 + digit
            }
            let negative = Bool.random(using: &generator)
            let value = try ExactDecimal(mantissa: negative ? -Int128(magnitude) : Int128(magnitude), scale: Int.random(in: 0...38, using: &generator))
            var text = String(magnitude)
            if value.scale > 0 {
                text = String(repeating: "0", count: max(value.scale + 1 - text.count, 0)) + text
                text.insert(".", at: text.index(text.endIndex, offsetBy: -value.scale))
            }
            if negative { text = "-" + text }
            #expect(value.description == text)
            let parsed = try ExactDecimal(text)
            #expect(parsed.mantissa == value.mantissa && parsed.scale == value.scale, "\(text)")
            // The plain fast path reads every text of up to 19 digits, with the same result, and no other.
            let plain = Array(text.utf8).withUnsafeBufferPointer { ExactDecimal.plain(utf8: $0) }
            #expect((plain != nil) == (text.filter(\.isNumber).count <= 19), "\(text)")
            if let plain { #expect(plain.mantissa == value.mantissa && plain.scale == value.scale, "\(text)") }
        }
    }

    /// Powers of ten and the numbers just below them, where a digit count changes, print and parse back
    /// at every scale (the printer counts digits from a bit length and corrects once).
    @Test func digitCountBoundaries() throws {
        var magnitudes: [UInt128] = [0]
        var power: UInt128 = 1
        for _ in 0...37 {
            magnitudes += [power - 1, power, power + 1]
            power *= 10
        }
        magnitudes += [power - 1, UInt128(UInt64.max), UInt128(UInt64.max) + 1]
        for magnitude in magnitudes where magnitude <= UInt128(ExactDecimal.maxMantissa) {
            for scale in [0, 1, 2, 8, 18, 19, 20, 37, 38] {
                let value = try ExactDecimal(mantissa: -Int128(magnitude), scale: scale)
                var text = String(magnitude)
                if scale > 0 {
                    text = String(repeating: "0", count: max(scale + 1 - text.count, 0)) + text
                    text.insert(".", at: text.index(text.endIndex, offsetBy: -scale))
                }
                if magnitude > 0 { text = "-" + text }
                #expect(value.description == text)
                #expect(try ExactDecimal(text) == value, "\(text)")
            }
        }
    }

    @Test(arguments: ["", "abc", "NaN", "nan", "Infinity", "-Infinity", "inf", "1,5", " 1", "1 ", "+", "-", ".", "-.", "1.2.3",
                      "--1", "+-1", "1e", "1e+", "1e-", "e5", "1e5.0", "0x10", "1_000", "١", "1.5f", "\u{0}1"])
    func rejectsNonNumbers(input: String) {
        #expect(throws: MoneyError.invalidNumber(input)) { try ExactDecimal(input) }
    }

    @Test func invalidNumberMessageNamesInput() {
        #expect(MoneyError.invalidNumber("abc").description == "not a decimal number: \"abc\"")
    }

    @Test func rejectsFortySignificantDigits() throws {
        let forty = "1234567890123456789012345678901234567890"
        #expect(throws: MoneyError.overflow("\"\(forty)\" has more than 38 significant digits")) { try ExactDecimal(forty) }
        let thirtyNine = "123456789012345678901234567890123456789"
        #expect(throws: MoneyError.self) { try ExactDecimal(thirtyNine) }
        #expect(throws: MoneyError.self) { try ExactDecimal("1.23456789012345678901234567890123456789") }
        #expect(throws: MoneyError.self) { try ExactDecimal("1E38") }
        #expect(try ExactDecimal("1E37").description == "10000000000000000000000000000000000000")
        #expect(try ExactDecimal("0000000000000000000000000000000000000000001").description == "1")
    }

    @Test func scaleLimits() throws {
        #expect(try ExactDecimal("1e-38").scale == 38)
        #expect(throws: MoneyError.overflow("\"1e-39\" has more than 38 fractional digits")) { try ExactDecimal("1e-39") }
        #expect(throws: MoneyError.self) { try ExactDecimal("0.000000000000000000000000000000000000001") }
        #expect(throws: MoneyError.self) { try ExactDecimal("1e-99999999999999999999") }
        #expect(throws: MoneyError.self) { try ExactDecimal("1e99999999999999999999") }
        #expect(try ExactDecimal("0e99999999999999999999") == .zero)
        #expect(try ExactDecimal(mantissa: 5, scale: 38).description == "0.00000000000000000000000000000000000005")
        #expect(throws: MoneyError.overflow("scale 39 is outside 0...38")) { try ExactDecimal(mantissa: 5, scale: 39) }
        #expect(throws: MoneyError.self) { try ExactDecimal(mantissa: 5, scale: -1) }
        #expect(throws: MoneyError.self) { try ExactDecimal(mantissa: 100_000_000_000_000_000_000_000_000_000_000_000_000, scale: 0) }
        #expect(throws: MoneyError.self) { try ExactDecimal(mantissa: Int128.min, scale: 0) }
        #expect(try ExactDecimal(mantissa: ExactDecimal.maxMantissa, scale: 0).description == String(repeating: "9", count: 38))
    }

    @Test func integersAndLiterals() {
        #expect(ExactDecimal(42).description == "42")
        #expect(ExactDecimal(-7) == dec("-7.000"))
        let literal: ExactDecimal = 12
        #expect(literal.scale == 0 && literal.mantissa == 12)
        #expect(ExactDecimal(Int.min).description == "-9223372036854775808")
        #expect(ExactDecimal.zero.description == "0")
    }

    @Test func properties() {
        #expect(dec("0.000").isZero)
        #expect(!dec("0.001").isZero)
        #expect(dec("-0.001").isNegative)
        #expect(!dec("-0").isNegative)
        #expect(dec("2.500").normalized.description == "2.5")
        #expect(dec("3.00").normalized.description == "3")
        #expect(dec("-0.0").normalized.description == "0")
        #expect(dec("1200").normalized.description == "1200")
    }
}

@Suite("ExactDecimal equality, hashing, ordering")
struct ComparisonTests {
    @Test func equalityAcrossScales() {
        #expect(dec("2.5") == dec("2.50"))
        #expect(dec("2.5") == dec("2.500000000000000000000000000000000000"))
        #expect(dec("0") == dec("0.000"))
        #expect(dec("-1.10") == dec("-1.1"))
        #expect(dec("2.5") != dec("2.51"))
        #expect(dec("99999999999999999999999999999999999999") != dec("0.99999999999999999999999999999999999999"))
        #expect(dec("1") != dec("-1"))
    }

    @Test func hashingFollowsEquality() {
        #expect(dec("2.5").hashValue == dec("2.50").hashValue)
        #expect(dec("0").hashValue == dec("0.0000").hashValue)
        let set: Set<ExactDecimal> = [dec("2.5"), dec("2.50"), dec("2.500"), dec("3"), dec("3.0")]
        #expect(set.count == 2)
    }

    @Test func orderingIncludingNegatives() {
        #expect(dec("-2.5") < dec("-2.4"))
        #expect(dec("-2.50") < dec("-2.4"))
        #expect(dec("-10") < dec("-9.99"))
        #expect(dec("-0.001") < dec("0"))
        #expect(dec("0") < dec("0.001"))
        #expect(dec("1.999") < dec("2"))
        #expect(!(dec("2.0") < dec("2")))
        #expect(dec("-99999999999999999999999999999999999999") < dec("-0.99999999999999999999999999999999999999"))
        #expect(dec("0.00000000000000000000000000000000000001") < dec("99999999999999999999999999999999999999"))
        let sorted = ["3", "-1.5", "0", "-1.25", "2.50", "-10", "0.001"].map { dec($0) }.sorted()
        #expect(sorted.map(\.description) == ["-10", "-1.5", "-1.25", "0", "0.001", "2.50", "3"])
        #expect(sorted.max() == dec("3"))
    }
}

@Suite("ExactDecimal arithmetic")
struct ArithmeticTests {
    @Test func addSubtract() throws {
        #expect(try (dec("1.10") + dec("2.205")).description == "3.305")
        #expect(try (dec("1.10") - dec("2.205")).description == "-1.105")
        #expect(try (dec("-0.5") + dec("0.5")).description == "0.0")
        #expect(try (dec("0.1") + dec("0.2")) == dec("0.3"))
        var total = ExactDecimal.zero
        for _ in 0..<10 { try total += dec("0.10") }
        #expect(total.description == "1.00")
    }

    /// `+=` adds equal scales directly; it must give what `+` gives, and throw without changing `lhs` where `+` throws.
    @Test func addInPlaceMatchesPlus() throws {
        let max = ExactDecimal.maxMantissa
        var generator = SplitMix64(state: 314)
        var pairs: [(ExactDecimal, ExactDecimal)] = [
            (try ExactDecimal(mantissa: max, scale: 2), try ExactDecimal(mantissa: max, scale: 2)),
            (try ExactDecimal(mantissa: -max, scale: 38), try ExactDecimal(mantissa: -max, scale: 38)),
            (try ExactDecimal(mantissa: max, scale: 0), try ExactDecimal(mantissa: 1, scale: 0)),
            (try ExactDecimal(mantissa: max, scale: 0), try ExactDecimal(mantissa: -1, scale: 0)),
            (try ExactDecimal(mantissa: -max, scale: 5), try ExactDecimal(mantissa: max, scale: 5)),
            (try ExactDecimal(mantissa: max / 10, scale: 1), try ExactDecimal(mantissa: 9, scale: 2)),
        ]
        for _ in 0..<5_000 {
            let scales = (Int.random(in: 0...38, using: &generator), Int.random(in: 0...38, using: &generator))
            let sameScale = Bool.random(using: &generator)
            let lhs = try ExactDecimal(mantissa: Int128.random(in: -max...max, using: &generator), scale: scales.0)
            let rhs = try ExactDecimal(mantissa: Int128.random(in: -max...max, using: &generator), scale: sameScale ? scales.0 : scales.1)
            pairs.append((lhs, rhs))
        }
        for (lhs, rhs) in pairs {
            var total = lhs
            do {
                try total += rhs
                let sum = try lhs + rhs
                #expect(total.mantissa == sum.mantissa && total.scale == sum.scale, "\(lhs) + \(rhs)")
            } catch {
                #expect(throws: MoneyError.self, "\(lhs) + \(rhs)") { try lhs + rhs }
                #expect(total.mantissa == lhs.mantissa && total.scale == lhs.scale)
            }
        }
    }

    @Test func multiply() throws {
        #expect(try (dec("10.00") * dec("0.736")).description == "7.36000")
        #expect(try (dec("-1.5") * dec("2")).description == "-3.0")
        #expect(try (dec("-1.5") * dec("-1.5")).description == "2.25")
        #expect(try (dec("0") * dec("-3.2")).description == "0.0")
        let tiny = dec("0.00000000000000000001")
        #expect(throws: MoneyError.self) { try tiny * tiny }
        #expect(try (tiny * dec("0.000000000000000001")).description == "0.00000000000000000000000000000000000001")
        #expect(throws: MoneyError.self) { try dec("0.0000000000000000000003") * dec("0.00000000000000000007") }
        let exact = try dec("1.00000000000000000000") * dec("1.00000000000000000000")
        #expect(exact == 1)
        #expect(exact.scale <= 38)
    }

    @Test func overflowIsAnErrorNotATrap() {
        let big = dec("99999999999999999999999999999999999999")
        #expect(throws: MoneyError.overflow("99999999999999999999999999999999999999 + 1 needs more than 38 significant digits")) {
            try big + 1
        }
        #expect(throws: MoneyError.self) { try -big - 1 }
        #expect(throws: MoneyError.self) { try big * 10 }
        #expect(throws: MoneyError.self) { try big * big }
        #expect(throws: MoneyError.self) { try dec("10000000000000000000000000000000000000") + dec("0.1") }
        #expect((-big).description == "-99999999999999999999999999999999999999")
        #expect((-dec("0")).description == "0")
    }

    @Test func divide() throws {
        #expect(try dec("1").divided(by: 3, scale: 5).description == "0.33333")
        #expect(try dec("2").divided(by: 3, scale: 5).description == "0.66667")
        #expect(try dec("-2").divided(by: 3, scale: 2).description == "-0.67")
        #expect(try dec("10").divided(by: dec("4"), scale: 0).description == "2")
        #expect(try dec("10").divided(by: dec("4"), scale: 0, rule: .halfUp).description == "3")
        #expect(try dec("10").divided(by: dec("-4"), scale: 1).description == "-2.5")
        #expect(try dec("1.359").divided(by: dec("0.001"), scale: 2).description == "1359.00")
        #expect(try dec("1").divided(by: dec("1.359"), scale: 38).description == "0.73583517292126563649742457689477557027")
        #expect(try dec("0.00000000000000000000000000000000000001").divided(by: dec("99999999999999999999999999999999999999"), scale: 38) == .zero)
        #expect(throws: MoneyError.divisionByZero) { try dec("1").divided(by: dec("0.00"), scale: 2) }
        #expect(throws: MoneyError.self) { try dec("99999999999999999999999999999999999999").divided(by: dec("0.1"), scale: 0) }
        #expect(throws: MoneyError.self) { try dec("1").divided(by: 3, scale: 39) }
        #expect(MoneyError.divisionByZero.description == "division by zero")
    }

    @Test func rescale() throws {
        #expect(try dec("2.5").rescaled(to: 2).description == "2.50")
        #expect(try dec("2.345").rescaled(to: 2).description == "2.34")
        #expect(try dec("2.355").rescaled(to: 2).description == "2.36")
        #expect(try dec("7").rescaled(to: 0).description == "7")
        #expect(throws: MoneyError.self) { try dec("99999999999999999999999999999999999999").rescaled(to: 1) }
        #expect(throws: MoneyError.self) { try dec("1").rescaled(to: 39) }
        #expect(throws: MoneyError.self) { try dec("1").rescaled(to: -1) }
    }
}

@Suite("Rounding")
struct RoundingTests {
    @Test(arguments: [
        ("2.345", 2, "2.34"), ("2.355", 2, "2.36"), ("2.3451", 2, "2.35"), ("-2.345", 2, "-2.34"), ("-2.355", 2, "-2.36"),
        ("0.5", 0, "0"), ("1.5", 0, "2"), ("2.5", 0, "2"), ("-0.5", 0, "0"), ("-1.5", 0, "-2"), ("-2.5", 0, "-2"),
        ("2.344999", 2, "2.34"), ("0.005", 2, "0.00"), ("0.015", 2, "0.02"), ("9.995", 2, "10.00"), ("-9.995", 2, "-10.00"),
        ("99999999999999999999999999999999999.995", 2, "100000000000000000000000000000000000.00"),
    ])
    func halfEven(input: String, scale: Int, expected: String) {
        #expect(dec(input).rounded(scale: scale).description == expected)
        #expect(dec(input).rounded(scale: scale, rule: .halfEven).description == expected)
    }

    @Test(arguments: [
        ("2.345", 2, "2.35"), ("2.355", 2, "2.36"), ("2.3449", 2, "2.34"), ("-2.345", 2, "-2.35"), ("0.5", 0, "1"),
        ("2.5", 0, "3"), ("-0.5", 0, "-1"), ("-0.49", 0, "0"), ("0.005", 2, "0.01"),
    ])
    func halfUp(input: String, scale: Int, expected: String) {
        #expect(dec(input).rounded(scale: scale, rule: .halfUp).description == expected)
    }

    @Test(arguments: [
        ("2.349", 2, "2.34"), ("-2.349", 2, "-2.34"), ("0.9", 0, "0"), ("-0.9", 0, "0"), ("1.999", 1, "1.9"), ("5", 0, "5"),
    ])
    func towardZero(input: String, scale: Int, expected: String) {
        #expect(dec(input).rounded(scale: scale, rule: .towardZero).description == expected)
    }

    @Test func negativeZeroPrintsAsZero() {
        let rounded = dec("-0.5").rounded(scale: 0)
        #expect(rounded.description == "0")
        #expect(!rounded.isNegative)
        #expect(dec("-0.004").rounded(scale: 2).description == "0.00")
        #expect(dec("-0.004").rounded(scale: 2, rule: .towardZero).description == "0.00")
    }

    @Test func roundingToMoreDigitsKeepsTheValue() {
        #expect(dec("2.5").rounded(scale: 4).description == "2.5")
        #expect(dec("2.5").rounded(scale: 1).description == "2.5")
        #expect(dec("123.456").rounded(scale: -3).description == "123")
    }
}
