@testable import Money
import Testing

/// `DerivedRate.Factor.convert` takes a 128-bit path when the intermediates fit and the 256-bit path otherwise;
/// both must agree with the 256-bit path (`wideConvertedMantissa`) on every input, including overflow.
@Suite("Conversion factors: the 128-bit path against the 256-bit path")
struct FactorTests {
    private static let rules: [RoundingRule] = [.halfEven, .halfUp, .towardZero]

    /// A value of exactly `digits` digits (1...38), or for about a fifth of the calls one within 2 of a power of two
    /// below 10^digits (64-bit and 128-bit boundaries included).
    private func magnitude(_ generator: inout SplitMix64, digits: Int) -> UInt128 {
        if Int.random(in: 0..<5, using: &generator) == 0 {
            let bits = Int.random(in: 1...min(126, digits * 10 / 3), using: &generator)
            let nearby = (UInt128(1) << bits) &+ UInt128(truncatingIfNeeded: Int.random(in: -2...2, using: &generator))
            return min(max(nearby, 1), maxMantissaMagnitude)
        }
        let low = digits == 1 ? 1 : powersOfTen[digits - 1]
        return UInt128.random(in: low...(powersOfTen[digits] - 1), using: &generator)
    }

    private func amount(_ generator: inout SplitMix64, digits: Int, scale: Int) -> ExactDecimal {
        let mantissa = Int128(magnitude(&generator, digits: digits))
        return ExactDecimal(unchecked: Bool.random(using: &generator) ? -mantissa : mantissa, scale: scale)
    }

    /// Records an issue unless both paths give the same mantissa (or both overflow) for every rule;
    /// returns whether the inputs fit the 128-bit path.
    @discardableResult
    private func compare(_ factor: DerivedRate.Factor, _ amount: ExactDecimal, scale: Int,
                         sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        for rule in Self.rules {
            let fast = factor.convertedMantissa(amount, scale: scale, rule: rule)
            let wide = factor.wideConvertedMantissa(amount, scale: scale, rule: rule)
            if fast != wide {
                let inputs = "\(amount) × \(factor.numerator)/\(factor.denominator) at scale \(scale), \(rule)"
                Issue.record("\(inputs): \(String(describing: fast)) != \(String(describing: wide))", sourceLocation: sourceLocation)
            }
        }
        let exponent = scale - amount.scale
        let product = amount.mantissa.magnitude.multipliedReportingOverflow(by: factor.numerator)
        if product.overflow { return false }
        if exponent > 0 { return !product.partialValue.multipliedReportingOverflow(by: powersOfTen[exponent]).overflow }
        return !factor.denominator.multipliedReportingOverflow(by: powersOfTen[-exponent]).overflow
    }

    @Test func randomInputsOfEverySize() async {
        var generator = SplitMix64(state: 6_003)
        var narrow = 0
        var wide = 0
        for round in 0..<40_000 {
            if round % 500 == 0 { await Task.yield() }  // long CPU work leaves the pool to timing-sensitive tests
            let factor = DerivedRate.Factor(
                numerator: magnitude(&generator, digits: Int.random(in: 1...38, using: &generator)),
                denominator: magnitude(&generator, digits: Int.random(in: 1...38, using: &generator))
            )
            let value = amount(&generator, digits: Int.random(in: 1...38, using: &generator),
                               scale: Int.random(in: 0...38, using: &generator))
            if compare(factor, value, scale: Int.random(in: 0...38, using: &generator)) { narrow += 1 } else { wide += 1 }
        }
        #expect(narrow > 5_000)
        #expect(wide > 5_000)
    }

    @Test func randomMoneySizedInputs() async {
        var generator = SplitMix64(state: 20_261_123)
        var narrow = 0
        for round in 0..<40_000 {
            if round % 500 == 0 { await Task.yield() }  // long CPU work leaves the pool to timing-sensitive tests
            let factor = DerivedRate.Factor(
                numerator: magnitude(&generator, digits: Int.random(in: 1...16, using: &generator)),
                denominator: magnitude(&generator, digits: Int.random(in: 1...16, using: &generator))
            )
            let value = amount(&generator, digits: Int.random(in: 1...12, using: &generator),
                               scale: Int.random(in: 0...4, using: &generator))
            if compare(factor, value, scale: Int.random(in: 0...6, using: &generator)) { narrow += 1 }
        }
        #expect(narrow > 35_000)
    }

    /// `amount × n / d` lands exactly on a half of the last place: d = 2m, amount = m × odd at scale s, n odd, target scale s.
    @Test func exactHalves() async throws {
        var generator = SplitMix64(state: 77)
        var checked = 0
        for round in 0..<20_000 {
            if round % 500 == 0 { await Task.yield() }
            let m = magnitude(&generator, digits: Int.random(in: 1...18, using: &generator))
            let oddDigits = Int.random(in: 1...18, using: &generator)
            let odd = magnitude(&generator, digits: oddDigits) | 1
            let n = magnitude(&generator, digits: Int.random(in: 1...(37 - oddDigits), using: &generator)) | 1
            let product = m.multipliedReportingOverflow(by: odd)
            guard !product.overflow, product.partialValue <= maxMantissaMagnitude else { continue }
            let factor = DerivedRate.Factor(numerator: n, denominator: 2 * m)
            let scale = Int.random(in: 0...38, using: &generator)
            let mantissa = Int128(product.partialValue)
            let value = ExactDecimal(unchecked: Bool.random(using: &generator) ? -mantissa : mantissa, scale: scale)
            compare(factor, value, scale: scale)
            guard let even = factor.convertedMantissa(value, scale: scale, rule: .halfEven),
                  let up = factor.convertedMantissa(value, scale: scale, rule: .halfUp),
                  let down = factor.convertedMantissa(value, scale: scale, rule: .towardZero) else { continue }
            checked += 1
            #expect(even.magnitude % 2 == 0)
            #expect(up.magnitude == down.magnitude + 1)
            #expect(even == up || even == down)
        }
        #expect(checked > 10_000)
    }

    @Test func halvesAtCents() throws {
        let half = DerivedRate.Factor(numerator: 1, denominator: 2)
        let cases: [(String, String, String)] = [
            ("0.05", "0.02", "0.03"), ("0.07", "0.04", "0.04"), ("-0.05", "-0.02", "-0.03"), ("-0.07", "-0.04", "-0.04"),
            ("0.01", "0.00", "0.01"), ("-0.01", "0.00", "-0.01"), ("0.1", "0.05", "0.05"), ("25", "12.50", "12.50"),
        ]
        for (input, even, up) in cases {
            #expect(try half.convert(dec(input), scale: 2).description == even)
            #expect(try half.convert(dec(input), scale: 2, rule: .halfUp).description == up)
            compare(half, dec(input), scale: 2)
        }
    }

    @Test func extremes() throws {
        let max = ExactDecimal.maxMantissa
        let mantissas: [Int128] = [0, 1, -1, 2, 5, -5, max, -max, max - 1, -(max - 1), Int128(UInt64.max), -Int128(UInt64.max),
                                   Int128(UInt64.max) + 1, Int128(1) << 126, -(Int128(1) << 126)]
        let parts: [UInt128] = [1, 2, 3, 7, 10, 125, 8571, UInt128(UInt64.max), UInt128(UInt64.max) + 1,
                                powersOfTen[19], powersOfTen[37], maxMantissaMagnitude, maxMantissaMagnitude - 1]
        for numerator in parts {
            for denominator in parts {
                let factor = DerivedRate.Factor(numerator: numerator, denominator: denominator)
                for mantissa in mantissas {
                    for amountScale in [0, 2, 19, 38] {
                        for scale in [0, 2, 19, 38] {
                            compare(factor, ExactDecimal(unchecked: mantissa, scale: amountScale), scale: scale)
                        }
                    }
                }
            }
        }
    }

    @Test func overflowThrowsInsteadOfTrapping() throws {
        let ten = DerivedRate.Factor(numerator: 10, denominator: 1)
        let largest = try ExactDecimal(mantissa: ExactDecimal.maxMantissa, scale: 0)
        #expect(ten.convertedMantissa(largest, scale: 0, rule: .halfEven) == nil)
        #expect(throws: MoneyError.self) { try ten.convert(largest, scale: 0) }
        #expect(throws: MoneyError.self) { try ten.convert(-largest, scale: 0) }
        #expect(throws: MoneyError.self) { try ten.convert(1, scale: 38) }
        #expect(try ten.convert(dec("0.1"), scale: 37).description == "1." + String(repeating: "0", count: 37))
        let huge = DerivedRate.Factor(numerator: maxMantissaMagnitude, denominator: 1)
        #expect(throws: MoneyError.self) { try huge.convert(largest, scale: 38) }
        #expect(throws: MoneyError.overflow("scale 39 is outside 0...38")) { try huge.convert(1, scale: 39) }
        #expect(throws: MoneyError.self) { try huge.convert(1, scale: -1) }
        let tiny = DerivedRate.Factor(numerator: 1, denominator: maxMantissaMagnitude)
        #expect(try tiny.convert(largest, scale: 37).description == "1." + String(repeating: "0", count: 37))
        #expect(throws: MoneyError.self) { try tiny.convert(largest, scale: 38) }
        #expect(try tiny.convert(-largest, scale: 0).description == "-1")
    }

    @Test func factorMatchesItsRate() async throws {
        let graph = try RateGraph([
            ExchangeRate(from: "USD", to: "EUR", rate: dec("0.7361")),
            ExchangeRate(from: "CAD", to: "USD", rate: dec("0.7312")),
            ExchangeRate(from: "AUD", to: "CAD", rate: dec("0.9234")),
            ExchangeRate(from: "EUR", to: "GBP", rate: dec("0.8571")),
        ])
        var generator = SplitMix64(state: 9)
        for (from, to) in [("AUD", "EUR"), ("GBP", "AUD"), ("EUR", "EUR"), ("GBP", "EUR")] {
            let rate = try graph.rate(from: from, to: to)
            let factor = rate.factor
            #expect(ExactDecimal(unchecked: Int128(factor.numerator), scale: 0) == rate.numerator)
            #expect(ExactDecimal(unchecked: Int128(factor.denominator), scale: 0) == rate.denominator)
            for round in 0..<2_000 {
                if round % 500 == 0 { await Task.yield() }
                let value = amount(&generator, digits: Int.random(in: 1...38, using: &generator),
                                   scale: Int.random(in: 0...38, using: &generator))
                let scale = Int.random(in: 0...38, using: &generator)
                for rule in Self.rules {
                    let viaRate = Result { () throws(MoneyError) in try rate.convert(value, scale: scale, rule: rule) }
                    let viaFactor = Result { () throws(MoneyError) in try factor.convert(value, scale: scale, rule: rule) }
                    switch (viaRate, viaFactor) {
                    case (.success(let a), .success(let b)): #expect(a.mantissa == b.mantissa && a.scale == b.scale)
                    case (.failure, .failure): break
                    default: Issue.record("\(value) \(from)→\(to) at scale \(scale): \(viaRate) vs \(viaFactor)")
                    }
                }
            }
        }
    }
}
