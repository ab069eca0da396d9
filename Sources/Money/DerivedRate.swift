/// A rate from `from` to `to` derived along `path`, kept exact as numerator/denominator
/// (an inverse edge 1/r is exact as a fraction even though 1/r has no finite decimal).
///
/// The fraction is in lowest terms with integer parts: 1 USD = 0.736 EUR is 92/125, and its inverse is 125/92.
public struct DerivedRate: Sendable, Hashable, CustomStringConvertible {
    /// The source currency code.
    public let from: String
    /// The target currency code.
    public let to: String
    /// The currencies in order, `[from, ..., to]`; `[X]` for X → X.
    public let path: [String]
    /// The positive integer numerator, at scale 0, coprime with ``denominator``.
    public let numerator: ExactDecimal
    /// The positive integer denominator, at scale 0, coprime with ``numerator``.
    public let denominator: ExactDecimal
    /// Whether some step of ``path`` is the inverse of a given rate (the source gave no rate in that direction).
    public let usesInverse: Bool

    /// A rate from an already reduced fraction.
    init(from: String, to: String, path: [String], fraction: Fraction, usesInverse: Bool) {
        self.from = from
        self.to = to
        self.path = path
        self.numerator = ExactDecimal(unchecked: signedMantissa(fraction.numerator, negative: false), scale: 0)
        self.denominator = ExactDecimal(unchecked: signedMantissa(fraction.denominator, negative: false), scale: 0)
        self.usesInverse = usesInverse
    }

    /// The identity rate X → X: path `[X]`, rate 1.
    static func identity(_ code: String) -> DerivedRate {
        DerivedRate(from: code, to: code, path: [code], fraction: .one, usesInverse: false)
    }

    /// The number of rates multiplied along ``path`` (0 for the identity).
    public var hops: Int { path.count - 1 }

    /// The rate as a decimal: exact if it terminates within `scale` fractional digits (clamped to 0...38),
    /// otherwise rounded half-even to `scale` digits; normalized either way (1.359, not 1.359000).
    /// Where the integer part leaves fewer than `scale` of the 38 digits, it keeps as many as fit.
    public func decimal(scale: Int = 18) -> ExactDecimal {
        let n = numerator.mantissa.magnitude
        let d = denominator.mantissa.magnitude
        var integerDigits = 0
        var integerPart = n / d
        while integerPart > 0 {
            integerDigits += 1
            integerPart /= 10
        }
        let start = min(max(scale, 0), ExactDecimal.maxScale - integerDigits)
        for digits in stride(from: start, to: 0, by: -1) {
            let dividend = UInt256.product(n, powersOfTen[digits])
            if let mantissa = roundedQuotient(dividend, UInt256(d), negative: false, rule: .halfEven) {
                return ExactDecimal(unchecked: mantissa, scale: digits).normalized
            }
        }
        return ExactDecimal(unchecked: signedMantissa(roundedMagnitude(n, d, rule: .halfEven), negative: false), scale: 0)
    }

    /// `amount × numerator / denominator` rounded by `rule` to `scale` fractional digits: computed exactly in
    /// integers, with ONE rounding at the end. Throws ``MoneyError/overflow(_:)`` when `scale` is outside 0...38
    /// or the result needs more than 38 digits. For many amounts at one rate, take ``factor`` once and convert with it.
    public func convert(_ amount: ExactDecimal, scale: Int, rule: RoundingRule = .halfEven) throws(MoneyError) -> ExactDecimal {
        try ExactDecimal.checkScale(scale)
        guard let mantissa = factor.convertedMantissa(amount, scale: scale, rule: rule) else {
            throw overflow(amount, scale: scale)
        }
        return ExactDecimal(unchecked: mantissa, scale: scale)
    }

    /// "1 USD = 92/125 EUR via USD→EUR".
    public var description: String {
        "1 \(from) = \(numerator)/\(denominator) \(to) via \(path.joined(separator: "→"))"
    }

    private func overflow(_ amount: ExactDecimal, scale: Int) -> MoneyError {
        .overflow("converting \(amount) \(from) to \(to) at scale \(scale) needs more than 38 digits")
    }
}

/// A positive fraction in lowest terms whose parts have at most 38 digits.
struct Fraction: Hashable {
    let numerator: UInt128
    let denominator: UInt128

    /// 1/1.
    static let one = Fraction(reduced: 1, 1)

    private init(reduced numerator: UInt128, _ denominator: UInt128) {
        self.numerator = numerator
        self.denominator = denominator
    }

    /// The positive `rate` as mantissa / 10^scale in lowest terms, or nil when a part needs more than 38 digits.
    init?(rate: ExactDecimal) {
        let n = rate.mantissa.magnitude
        let d = powersOfTen[rate.scale]
        let divisor = greatestCommonDivisor(n, d)
        guard d / divisor <= maxMantissaMagnitude else { return nil }
        self.init(reduced: n / divisor, d / divisor)
    }

    /// The reciprocal, exact.
    var inverse: Fraction { Fraction(reduced: denominator, numerator) }

    /// The product in lowest terms (cross-cancelling first), or nil when a part needs more than 38 digits.
    func multiplied(by other: Fraction) -> Fraction? {
        let g1 = greatestCommonDivisor(numerator, other.denominator)
        let g2 = greatestCommonDivisor(other.numerator, denominator)
        let n = (numerator / g1).multipliedReportingOverflow(by: other.numerator / g2)
        let d = (denominator / g2).multipliedReportingOverflow(by: other.denominator / g1)
        guard !n.overflow, !d.overflow, n.partialValue <= maxMantissaMagnitude, d.partialValue <= maxMantissaMagnitude else {
            return nil
        }
        return Fraction(reduced: n.partialValue, d.partialValue)
    }
}
