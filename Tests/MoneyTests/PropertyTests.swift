import Money
import Testing

/// Checks rounded quotients against multiplication only: for `exact / divisor` rounded to `scale`, the truncated
/// result t satisfies |t|·divisor <= |exact| < (|t| + ulp)·divisor, and the half-even and half-up results are t or
/// t ± ulp according to where the remainder falls. Values are kept small enough for every product to be exact.
@Suite("Rounded quotients, verified by multiplication")
struct PropertyTests {
    private func verify(
        exact: ExactDecimal, divisor: ExactDecimal, scale: Int,
        towardZero: ExactDecimal, halfEven: ExactDecimal, halfUp: ExactDecimal,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let ulp = try ExactDecimal(mantissa: 1, scale: scale)
        let magnitude = exact.isNegative ? -exact : exact
        let positiveDivisor = divisor.isNegative ? -divisor : divisor
        let negative = exact.isNegative != divisor.isNegative
        let truncated = towardZero.isNegative ? -towardZero : towardZero
        #expect(towardZero.scale == scale, sourceLocation: sourceLocation)
        #expect(towardZero.isZero || towardZero.isNegative == negative, sourceLocation: sourceLocation)
        #expect(try truncated * positiveDivisor <= magnitude, sourceLocation: sourceLocation)
        #expect(try (truncated + ulp) * positiveDivisor > magnitude, sourceLocation: sourceLocation)
        let twiceRemainder = try (magnitude - truncated * positiveDivisor) * 2
        let step = try ulp * positiveDivisor
        let evenUp = twiceRemainder > step || (twiceRemainder == step && truncated.mantissa % 2 != 0)
        let up = twiceRemainder >= step
        let expectedEven = try evenUp ? truncated + ulp : truncated
        let expectedUp = try up ? truncated + ulp : truncated
        #expect((halfEven.isNegative ? -halfEven : halfEven) == expectedEven, sourceLocation: sourceLocation)
        #expect((halfUp.isNegative ? -halfUp : halfUp) == expectedUp, sourceLocation: sourceLocation)
    }

    private func random(_ generator: inout SplitMix64, digits: Int, maxScale: Int, positive: Bool) throws -> ExactDecimal {
        let bound = Int64(truncatingIfNeeded: (1...digits).reduce(1) { value, _ in value * 10 })
        var mantissa = Int128(Int64.random(in: 1..<bound, using: &generator))
        if !positive && Bool.random(using: &generator) { mantissa = -mantissa }
        return try ExactDecimal(mantissa: mantissa, scale: Int.random(in: 0...maxScale, using: &generator))
    }

    @Test func conversionsOnRandomRates() throws {
        var generator = SplitMix64(state: 4217)
        for _ in 0..<1500 {
            let rateValue = try random(&generator, digits: 8, maxScale: 8, positive: true)
            let graph = try RateGraph([ExchangeRate(from: "AAA", to: "BBB", rate: rateValue)])
            let amount = try random(&generator, digits: 12, maxScale: 6, positive: false)
            let scale = Int.random(in: 0...6, using: &generator)
            for derived in [try graph.rate(from: "AAA", to: "BBB"), try graph.rate(from: "BBB", to: "AAA")] {
                try verify(
                    exact: amount * derived.numerator, divisor: derived.denominator, scale: scale,
                    towardZero: derived.convert(amount, scale: scale, rule: .towardZero),
                    halfEven: derived.convert(amount, scale: scale),
                    halfUp: derived.convert(amount, scale: scale, rule: .halfUp)
                )
            }
        }
    }

    @Test func twoHopConversions() throws {
        var generator = SplitMix64(state: 20_210_807)
        for _ in 0..<500 {
            let first = try random(&generator, digits: 6, maxScale: 6, positive: true)
            let second = try random(&generator, digits: 6, maxScale: 6, positive: true)
            let graph = try RateGraph([ExchangeRate(from: "AAA", to: "BBB", rate: first), ExchangeRate(from: "CCC", to: "BBB", rate: second)])
            let derived = try graph.rate(from: "AAA", to: "CCC")
            #expect(derived.path == ["AAA", "BBB", "CCC"])
            #expect(try derived.numerator * second == derived.denominator * first)
            let amount = try random(&generator, digits: 10, maxScale: 4, positive: false)
            let scale = Int.random(in: 0...8, using: &generator)
            try verify(
                exact: amount * derived.numerator, divisor: derived.denominator, scale: scale,
                towardZero: derived.convert(amount, scale: scale, rule: .towardZero),
                halfEven: derived.convert(amount, scale: scale),
                halfUp: derived.convert(amount, scale: scale, rule: .halfUp)
            )
        }
    }

    @Test func divisionsOfRandomValues() throws {
        var generator = SplitMix64(state: 38)
        for _ in 0..<1500 {
            let dividend = try random(&generator, digits: 15, maxScale: 10, positive: false)
            let divisor = try random(&generator, digits: 9, maxScale: 9, positive: false)
            let scale = Int.random(in: 0...12, using: &generator)
            try verify(
                exact: dividend, divisor: divisor, scale: scale,
                towardZero: dividend.divided(by: divisor, scale: scale, rule: .towardZero),
                halfEven: dividend.divided(by: divisor, scale: scale),
                halfUp: dividend.divided(by: divisor, scale: scale, rule: .halfUp)
            )
        }
    }

    @Test func roundingOfRandomValues() throws {
        var generator = SplitMix64(state: 2)
        for _ in 0..<1500 {
            let value = try random(&generator, digits: 18, maxScale: 18, positive: false)
            let scale = Int.random(in: 0...value.scale, using: &generator)
            try verify(
                exact: value, divisor: 1, scale: scale,
                towardZero: value.rounded(scale: scale, rule: .towardZero),
                halfEven: value.rounded(scale: scale),
                halfUp: value.rounded(scale: scale, rule: .halfUp)
            )
        }
    }
}
