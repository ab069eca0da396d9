extension DerivedRate {
    /// A derived rate's exact fraction on its own: two integers, no currency codes or path, so it copies
    /// without reference counting. Take it once with ``DerivedRate/factor`` to convert many amounts.
    public struct Factor: Sendable, Hashable, BitwiseCopyable {
        /// The positive numerator, at most 38 digits, coprime with ``denominator``.
        public let numerator: UInt128
        /// The positive denominator, at most 38 digits, coprime with ``numerator``.
        public let denominator: UInt128

        /// A factor from a rate's parts (positive, at most 38 digits each).
        init(numerator: UInt128, denominator: UInt128) {
            self.numerator = numerator
            self.denominator = denominator
        }

        /// `amount × numerator / denominator` rounded by `rule` to `scale` fractional digits, the same value as
        /// ``DerivedRate/convert(_:scale:rule:)``: exact in integers with ONE rounding at the end. Throws
        /// ``MoneyError/overflow(_:)`` when `scale` is outside 0...38 or the result needs more than 38 digits.
        public func convert(_ amount: ExactDecimal, scale: Int, rule: RoundingRule = .halfEven) throws(MoneyError) -> ExactDecimal {
            try ExactDecimal.checkScale(scale)
            guard let mantissa = convertedMantissa(amount, scale: scale, rule: rule) else {
                throw .overflow("converting \(amount) by \(numerator)/\(denominator) at scale \(scale) needs more than 38 digits")
            }
            return ExactDecimal(unchecked: mantissa, scale: scale)
        }

        /// The mantissa of `amount` converted to `scale` (in 0...38), or nil when it needs more than 38 digits.
        /// When `amount × numerator × 10^k` and `denominator × 10^k` fit in 128 bits, one 128-bit (often 64-bit)
        /// division; otherwise ``wideConvertedMantissa(_:scale:rule:)``. Both give the same result for every input.
        @inline(__always)
        func convertedMantissa(_ amount: ExactDecimal, scale: Int, rule: RoundingRule) -> Int128? {
            let exponent = scale - amount.scale
            let product = amount.mantissa.magnitude.multipliedReportingOverflow(by: numerator)
            guard !product.overflow else { return wideConvertedMantissa(amount, scale: scale, rule: rule) }
            var dividend = product.partialValue
            var divisor = denominator
            if exponent > 0 {
                let raised = dividend.multipliedReportingOverflow(by: powersOfTen[exponent])
                guard !raised.overflow else { return wideConvertedMantissa(amount, scale: scale, rule: rule) }
                dividend = raised.partialValue
            } else if exponent < 0 {
                let raised = divisor.multipliedReportingOverflow(by: powersOfTen[-exponent])
                guard !raised.overflow else { return wideConvertedMantissa(amount, scale: scale, rule: rule) }
                divisor = raised.partialValue
            }
            let magnitude = roundedMagnitude(dividend, divisor, rule: rule)
            guard magnitude <= maxMantissaMagnitude else { return nil }
            return signedMantissa(magnitude, negative: amount.mantissa < 0)
        }

        /// ``convertedMantissa(_:scale:rule:)`` with 256-bit intermediates throughout, for any input.
        @inline(never)
        func wideConvertedMantissa(_ amount: ExactDecimal, scale: Int, rule: RoundingRule) -> Int128? {
            let exponent = scale - amount.scale
            var dividend = UInt256.product(amount.mantissa.magnitude, numerator)
            var divisor = UInt256(denominator)
            if exponent >= 0 {
                guard let raised = dividend.multiplied(byPowerOfTen: exponent) else { return nil }
                dividend = raised
            } else {
                guard let raised = divisor.multiplied(byPowerOfTen: -exponent) else { return nil }
                divisor = raised
            }
            return roundedQuotient(dividend, divisor, negative: amount.isNegative, rule: rule)
        }
    }

    /// The rate's exact fraction alone (``numerator``/``denominator``), for converting many amounts at this rate.
    public var factor: Factor {
        Factor(numerator: numerator.mantissa.magnitude, denominator: denominator.mantissa.magnitude)
    }
}
