/// Powers of ten 10^0 ... 10^38 as unsigned 128-bit integers.
let powersOfTen: [UInt128] = {
    var table: [UInt128] = [1]
    for _ in 1...38 { table.append(table[table.count - 1] * 10) }
    return table
}()

/// Powers of ten 10^0 ... 10^19, the ones that fit 64 bits: printing money divides by them.
let powersOfTen64: [UInt64] = powersOfTen.prefix(20).map { UInt64(truncatingIfNeeded: $0) }

/// An unsigned 256-bit integer for exact intermediate products (two 128-bit halves).
struct UInt256: Comparable {
    var high: UInt128
    var low: UInt128

    /// The value `low` (high half zero).
    init(_ low: UInt128) {
        self.high = 0
        self.low = low
    }

    /// The value `high × 2^128 + low`.
    init(high: UInt128, low: UInt128) {
        self.high = high
        self.low = low
    }

    /// The exact product of two 128-bit values (a single 128-bit multiplication when it fits).
    static func product(_ a: UInt128, _ b: UInt128) -> UInt256 {
        let narrow = a.multipliedReportingOverflow(by: b)
        if !narrow.overflow { return UInt256(narrow.partialValue) }
        let wide = a.multipliedFullWidth(by: b)
        return UInt256(high: wide.high, low: wide.low)
    }

    /// Ordered by value.
    static func < (lhs: UInt256, rhs: UInt256) -> Bool {
        lhs.high != rhs.high ? lhs.high < rhs.high : lhs.low < rhs.low
    }

    /// `self × factor`, or nil when the product needs more than 256 bits.
    func multiplied(by factor: UInt128) -> UInt256? {
        if high == 0 { return UInt256.product(low, factor) }
        let highPart = high.multipliedReportingOverflow(by: factor)
        if highPart.overflow { return nil }
        let lowPart = low.multipliedFullWidth(by: factor)
        let sum = highPart.partialValue.addingReportingOverflow(lowPart.high)
        if sum.overflow { return nil }
        return UInt256(high: sum.partialValue, low: lowPart.low)
    }

    /// `self × 10^exponent` for `exponent >= 0`, or nil when the product needs more than 256 bits.
    func multiplied(byPowerOfTen exponent: Int) -> UInt256? {
        var result = self
        var remaining = exponent
        while remaining > 0 {
            let step = min(remaining, 38)
            guard let next = result.multiplied(by: powersOfTen[step]) else { return nil }
            result = next
            remaining -= step
        }
        return result
    }

    /// Quotient and remainder of the division by a nonzero 128-bit divisor.
    func quotientAndRemainder(dividingBy divisor: UInt128) -> (quotient: UInt256, remainder: UInt128) {
        if high == 0 {
            let (q, r) = low.quotientAndRemainder(dividingBy: divisor)
            return (UInt256(q), r)
        }
        let (highQuotient, highRemainder) = high.quotientAndRemainder(dividingBy: divisor)
        let (lowQuotient, remainder) = divisor.dividingFullWidth((high: highRemainder, low: low))
        return (UInt256(high: highQuotient, low: lowQuotient), remainder)
    }

    /// Quotient and remainder of the division by a nonzero divisor below 2^255
    /// (binary long division when the divisor needs more than 128 bits).
    func quotientAndRemainder(dividingBy divisor: UInt256) -> (quotient: UInt256, remainder: UInt256) {
        if divisor.high == 0 {
            let (q, r) = quotientAndRemainder(dividingBy: divisor.low)
            return (q, UInt256(r))
        }
        var quotient = UInt256(0)
        var remainder = UInt256(0)
        for bit in stride(from: 255, through: 0, by: -1) {
            remainder = remainder.shiftedLeftByOne(settingLowestBit: self.bit(bit))
            if remainder >= divisor {
                remainder = remainder.subtracting(divisor)
                quotient.setBit(bit)
            }
        }
        return (quotient, remainder)
    }

    /// `self - other` for `other <= self`.
    func subtracting(_ other: UInt256) -> UInt256 {
        let lowPart = low.subtractingReportingOverflow(other.low)
        return UInt256(high: high - other.high - (lowPart.overflow ? 1 : 0), low: lowPart.partialValue)
    }

    private func bit(_ index: Int) -> Bool {
        index >= 128 ? (high >> (index - 128)) & 1 == 1 : (low >> index) & 1 == 1
    }

    private mutating func setBit(_ index: Int) {
        if index >= 128 { high |= 1 << (index - 128) } else { low |= 1 << index }
    }

    /// `(self << 1) | lowest`, dropping the top bit (callers keep `self` below 2^255).
    private func shiftedLeftByOne(settingLowestBit lowest: Bool) -> UInt256 {
        UInt256(high: (high << 1) | (low >> 127), low: (low << 1) | (lowest ? 1 : 0))
    }
}

/// The largest mantissa magnitude: 38 nines.
let maxMantissaMagnitude: UInt128 = 99_999_999_999_999_999_999_999_999_999_999_999_999

/// `dividend / divisor` rounded by `rule` for a result of sign `negative`, as a mantissa;
/// nil when the rounded magnitude exceeds 38 digits. `divisor` must be nonzero and below 2^255.
func roundedQuotient(_ dividend: UInt256, _ divisor: UInt256, negative: Bool, rule: RoundingRule) -> Int128? {
    let magnitude: UInt128
    if dividend.high == 0 && divisor.high == 0 {
        magnitude = roundedMagnitude(dividend.low, divisor.low, rule: rule)
    } else {
        let (q, r) = dividend.quotientAndRemainder(dividingBy: divisor)
        guard q.high == 0, q.low <= maxMantissaMagnitude else { return nil }
        let up = shouldRoundUp(remainderVersusHalf: compareToHalf(r, divisor), quotientIsOdd: q.low & 1 == 1, rule: rule)
        magnitude = up ? q.low + 1 : q.low
    }
    guard magnitude <= maxMantissaMagnitude else { return nil }
    return signedMantissa(magnitude, negative: negative)
}

/// The magnitude of `dividend / divisor` rounded by `rule`; `divisor` must be nonzero.
/// Never overflows: rounding up happens only with a nonzero remainder, so `divisor >= 2`.
/// Uses a 64-bit division when both operands fit in 64 bits.
@inline(__always)
func roundedMagnitude(_ dividend: UInt128, _ divisor: UInt128, rule: RoundingRule) -> UInt128 {
    if dividend <= UInt128(truncatingIfNeeded: UInt64.max) && divisor <= UInt128(truncatingIfNeeded: UInt64.max) {
        let narrowDivisor = UInt64(truncatingIfNeeded: divisor)
        let (q, r) = UInt64(truncatingIfNeeded: dividend).quotientAndRemainder(dividingBy: narrowDivisor)
        let half = r == 0 ? -2 : (r == narrowDivisor - r ? 0 : (r < narrowDivisor - r ? -1 : 1))
        let up = shouldRoundUp(remainderVersusHalf: half, quotientIsOdd: q & 1 == 1, rule: rule)
        return UInt128(truncatingIfNeeded: up ? q + 1 : q)
    }
    let (q, r) = dividend.quotientAndRemainder(dividingBy: divisor)
    return shouldRoundUp(remainderVersusHalf: compareToHalf(r, divisor), quotientIsOdd: q & 1 == 1, rule: rule) ? q + 1 : q
}

/// `±magnitude` for a magnitude already known to have at most 38 digits.
func signedMantissa(_ magnitude: UInt128, negative: Bool) -> Int128 {
    let value = Int128(truncatingIfNeeded: magnitude)
    return negative ? -value : value
}

/// 10^exponent as a signed value, for `exponent` in 0...38.
func signedPowerOfTen(_ exponent: Int) -> Int128 {
    Int128(truncatingIfNeeded: powersOfTen[exponent])
}

/// Compares a remainder `r < divisor` with `divisor / 2`: -2 when r is zero, -1 below half, 0 exactly half, 1 above.
private func compareToHalf(_ remainder: UInt128, _ divisor: UInt128) -> Int {
    if remainder == 0 { return -2 }
    let rest = divisor - remainder
    return remainder == rest ? 0 : (remainder < rest ? -1 : 1)
}

/// `compareToHalf` for 256-bit values.
private func compareToHalf(_ remainder: UInt256, _ divisor: UInt256) -> Int {
    if remainder == UInt256(0) { return -2 }
    let rest = divisor.subtracting(remainder)
    return remainder == rest ? 0 : (remainder < rest ? -1 : 1)
}

/// Whether the truncated quotient's magnitude goes up by one under `rule`.
private func shouldRoundUp(remainderVersusHalf: Int, quotientIsOdd: Bool, rule: RoundingRule) -> Bool {
    switch rule {
    case .towardZero: false
    case .halfUp: remainderVersusHalf >= 0
    case .halfEven: remainderVersusHalf > 0 || (remainderVersusHalf == 0 && quotientIsOdd)
    }
}

/// Greatest common divisor of two unsigned values (Euclid); gcd(0, b) = b.
func greatestCommonDivisor(_ a: UInt128, _ b: UInt128) -> UInt128 {
    var x = a
    var y = b
    while y != 0 { (x, y) = (y, x % y) }
    return x
}
