extension ExactDecimal {
    /// The exact sum, at the larger of the two scales; throws on more than 38 significant digits.
    public static func + (lhs: ExactDecimal, rhs: ExactDecimal) throws(MoneyError) -> ExactDecimal {
        guard let sum = combine(lhs, rhs, subtracting: false) else {
            throw .overflow("\(lhs) + \(rhs) needs more than 38 significant digits")
        }
        return sum
    }

    /// The exact difference, at the larger of the two scales; throws on more than 38 significant digits.
    public static func - (lhs: ExactDecimal, rhs: ExactDecimal) throws(MoneyError) -> ExactDecimal {
        guard let difference = combine(lhs, rhs, subtracting: true) else {
            throw .overflow("\(lhs) - \(rhs) needs more than 38 significant digits")
        }
        return difference
    }

    /// Adds `rhs` to `lhs` in place; throws (leaving `lhs` unchanged) on more than 38 significant digits.
    public static func += (lhs: inout ExactDecimal, rhs: ExactDecimal) throws(MoneyError) {
        if lhs.scale == rhs.scale {
            let sum = lhs.mantissa.addingReportingOverflow(rhs.mantissa)
            if !sum.overflow && sum.partialValue.magnitude <= maxMantissaMagnitude {
                lhs = ExactDecimal(unchecked: sum.partialValue, scale: lhs.scale)
                return
            }
        }
        lhs = try lhs + rhs
    }

    /// The exact product. Its scale is the sum of the scales, reduced without changing the value
    /// (dropping trailing zeros) only where that sum or the digits would exceed 38; throws if even that does not fit.
    public static func * (lhs: ExactDecimal, rhs: ExactDecimal) throws(MoneyError) -> ExactDecimal {
        let scale = lhs.scale + rhs.scale
        let direct = lhs.mantissa.multipliedReportingOverflow(by: rhs.mantissa)
        if !direct.overflow && direct.partialValue.magnitude <= maxMantissaMagnitude && scale <= maxScale {
            return ExactDecimal(unchecked: direct.partialValue, scale: scale)
        }
        var magnitude = UInt256.product(lhs.mantissa.magnitude, rhs.mantissa.magnitude)
        var reducedScale = scale
        while reducedScale > 0 && (reducedScale > maxScale || magnitude.high != 0 || magnitude.low > maxMantissaMagnitude) {
            let (quotient, remainder) = magnitude.quotientAndRemainder(dividingBy: UInt128(10))
            if remainder != 0 { break }
            magnitude = quotient
            reducedScale -= 1
        }
        guard reducedScale <= maxScale, magnitude.high == 0, magnitude.low <= maxMantissaMagnitude else {
            throw .overflow("\(lhs) * \(rhs) needs more than 38 digits")
        }
        let mantissa = signedMantissa(magnitude.low, negative: (lhs.mantissa < 0) != (rhs.mantissa < 0))
        return ExactDecimal(unchecked: mantissa, scale: reducedScale)
    }

    /// The negated value, at the same scale (never overflows: mantissas stay within ±(10^38 - 1)).
    public static prefix func - (operand: ExactDecimal) -> ExactDecimal {
        ExactDecimal(unchecked: -operand.mantissa, scale: operand.scale)
    }

    /// `self / divisor` rounded by `rule` to `scale` fractional digits, computed exactly before the one rounding.
    /// Throws ``MoneyError/divisionByZero``, or ``MoneyError/overflow(_:)`` when `scale` is outside 0...38
    /// or the quotient needs more than 38 digits.
    public func divided(by divisor: ExactDecimal, scale: Int, rule: RoundingRule = .halfEven) throws(MoneyError) -> ExactDecimal {
        guard !divisor.isZero else { throw .divisionByZero }
        try Self.checkScale(scale)
        let exponent = divisor.scale - self.scale + scale
        var dividend = UInt256(mantissa.magnitude)
        var denominator = UInt256(divisor.mantissa.magnitude)
        if exponent >= 0 {
            guard let raised = dividend.multiplied(byPowerOfTen: exponent) else {
                throw .overflow("\(self) / \(divisor) at scale \(scale) needs more than 38 digits")
            }
            dividend = raised
        } else {
            guard let raised = denominator.multiplied(byPowerOfTen: -exponent) else {
                throw .overflow("\(self) / \(divisor) at scale \(scale) needs more than 256 bits")
            }
            denominator = raised
        }
        let negative = (mantissa < 0) != (divisor.mantissa < 0)
        guard let quotient = roundedQuotient(dividend, denominator, negative: negative, rule: rule) else {
            throw .overflow("\(self) / \(divisor) at scale \(scale) needs more than 38 digits")
        }
        return ExactDecimal(unchecked: quotient, scale: scale)
    }

    /// The value rounded by `rule` to `scale` fractional digits (clamped to 0...38); `self` unchanged when
    /// `scale >= self.scale`. A result of zero is plain zero: -0.5 rounds half-even to 0, printed "0".
    public func rounded(scale: Int, rule: RoundingRule = .halfEven) -> ExactDecimal {
        let target = max(scale, 0)
        guard target < self.scale else { return self }
        let magnitude = roundedMagnitude(mantissa.magnitude, powersOfTen[self.scale - target], rule: rule)
        return ExactDecimal(unchecked: signedMantissa(magnitude, negative: mantissa < 0), scale: target)
    }

    /// The value at exactly `scale` fractional digits: padded with zeros (2.5 → 2.50), or rounded half-even
    /// when reducing. Throws when `scale` is outside 0...38 or padding needs more than 38 digits.
    public func rescaled(to scale: Int) throws(MoneyError) -> ExactDecimal {
        try Self.checkScale(scale)
        guard scale > self.scale else { return rounded(scale: scale) }
        let raised = mantissa.multipliedReportingOverflow(by: signedPowerOfTen(scale - self.scale))
        guard !raised.overflow, raised.partialValue.magnitude <= maxMantissaMagnitude else {
            throw .overflow("\(self) at scale \(scale) needs more than 38 digits")
        }
        return ExactDecimal(unchecked: raised.partialValue, scale: scale)
    }

    /// Throws unless `scale` is within 0...38.
    static func checkScale(_ scale: Int) throws(MoneyError) {
        guard (0...maxScale).contains(scale) else {
            throw .overflow("scale \(scale) is outside 0...\(maxScale)")
        }
    }

    /// `lhs ± rhs` at the larger scale, or nil when it needs more than 38 digits.
    private static func combine(_ lhs: ExactDecimal, _ rhs: ExactDecimal, subtracting: Bool) -> ExactDecimal? {
        var left = lhs.mantissa
        var right = rhs.mantissa
        let scale = max(lhs.scale, rhs.scale)
        if lhs.scale < scale {
            let raised = left.multipliedReportingOverflow(by: signedPowerOfTen(scale - lhs.scale))
            if raised.overflow { return nil }
            left = raised.partialValue
        } else if rhs.scale < scale {
            let raised = right.multipliedReportingOverflow(by: signedPowerOfTen(scale - rhs.scale))
            if raised.overflow { return nil }
            right = raised.partialValue
        }
        let result = subtracting ? left.subtractingReportingOverflow(right) : left.addingReportingOverflow(right)
        guard !result.overflow, result.partialValue.magnitude <= maxMantissaMagnitude else { return nil }
        return ExactDecimal(unchecked: result.partialValue, scale: scale)
    }
}
