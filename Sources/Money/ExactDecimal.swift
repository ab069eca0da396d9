/// An exact decimal: mantissa × 10^-scale, mantissa an Int128 of at most 38 digits, scale 0...38.
///
/// Values keep the scale they were made with ("2.50" prints as "2.50"), but equality, hashing and
/// ordering are by value: 2.5 == 2.50. Arithmetic is exact; anything that would need more than
/// 38 significant digits throws ``MoneyError/overflow(_:)`` instead of trapping or rounding.
public struct ExactDecimal: Sendable {
    /// The largest scale (fractional digits) a value may have.
    public static let maxScale = 38

    /// The largest mantissa magnitude, 10^38 - 1 (38 nines).
    public static let maxMantissa = Int128(maxMantissaMagnitude)

    /// Zero at scale 0.
    public static let zero = ExactDecimal(unchecked: 0, scale: 0)

    /// The integer digits: the value is `mantissa × 10^-scale`.
    public let mantissa: Int128

    /// The number of fractional digits, 0...38.
    public let scale: Int

    /// A value from parts the caller has already checked.
    init(unchecked mantissa: Int128, scale: Int) {
        self.mantissa = mantissa
        self.scale = scale
    }

    /// The value `mantissa × 10^-scale`; throws when `scale` is outside 0...38 or `mantissa` has more than 38 digits.
    public init(mantissa: Int128, scale: Int) throws(MoneyError) {
        guard (0...Self.maxScale).contains(scale) else {
            throw .overflow("scale \(scale) is outside 0...\(Self.maxScale)")
        }
        guard mantissa.magnitude <= maxMantissaMagnitude else {
            throw .overflow("mantissa \(mantissa) has more than 38 digits")
        }
        self.init(unchecked: mantissa, scale: scale)
    }

    /// The integer `value` at scale 0.
    public init(_ value: Int) {
        self.init(unchecked: Int128(value), scale: 0)
    }

    /// Whether the value is zero (at any scale).
    public var isZero: Bool { mantissa == 0 }

    /// Whether the value is below zero.
    public var isNegative: Bool { mantissa < 0 }

    /// The same value with trailing fractional zeros stripped: 2.500 → 2.5, 3.00 → 3.
    public var normalized: ExactDecimal {
        if mantissa == 0 { return .zero }
        var m = mantissa
        var s = scale
        while s > 0 && m % 10 == 0 {
            m /= 10
            s -= 1
        }
        return ExactDecimal(unchecked: m, scale: s)
    }
}

extension ExactDecimal: ExpressibleByIntegerLiteral {
    /// An integer literal at scale 0.
    public init(integerLiteral value: Int) {
        self.init(value)
    }
}

extension ExactDecimal: CustomStringConvertible {
    /// Plain digits, never an exponent, keeping the scale: "2.50", "-0.001", "12".
    public var description: String {
        withDigits { String(decoding: $0, as: UTF8.self) }
    }

    /// Calls `body` with ``description``'s UTF-8 bytes, built on the stack without allocating
    /// (the wire encoder writes them straight into its buffer). Inlinable so that callers in other
    /// modules get it specialized: unspecialized, each call asks the runtime for generic metadata.
    @inlinable
    public func withDigits<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        // At most 41 bytes: a sign, "0." and 38 fractional digits, or a sign and 39 integer digits.
        // Written from the end backwards, two digits per 64-bit division (a 128-bit division by 10
        // per digit made this the encoder's largest cost: bench/PROFILE.md), the point put in after.
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 48) { buffer in
            let out = buffer.baseAddress!
            var position = 48
            func put(_ value: UInt64) {
                let pairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
                var value = value
                while value >= 100 {
                    let pair = Int(value % 100) &* 2
                    value /= 100
                    position -= 2
                    out[position] = pairs.utf8Start[pair]
                    out[position + 1] = pairs.utf8Start[pair + 1]
                }
                if value >= 10 {
                    let pair = Int(value) &* 2
                    position -= 2
                    out[position] = pairs.utf8Start[pair]
                    out[position + 1] = pairs.utf8Start[pair + 1]
                } else {
                    position -= 1
                    out[position] = UInt8(truncatingIfNeeded: value) &+ 48
                }
            }
            let magnitude = mantissa.magnitude
            if magnitude > UInt128(UInt64.max) {
                // Below 10^38, so the part above the low 19 digits fits in 64 bits.
                let (high, low) = magnitude.quotientAndRemainder(dividingBy: 10_000_000_000_000_000_000)
                put(UInt64(truncatingIfNeeded: low))
                while position > 48 - 19 {
                    position -= 1
                    out[position] = UInt8(ascii: "0")
                }
                put(UInt64(truncatingIfNeeded: high))
            } else {
                put(UInt64(truncatingIfNeeded: magnitude))
            }
            while 48 - position <= scale {
                position -= 1
                out[position] = UInt8(ascii: "0")
            }
            if scale > 0 {
                // The integer digits (at least one) move one place left to make room for the point.
                for index in position..<(48 - scale) { out[index - 1] = out[index] }
                position -= 1
                out[47 - scale] = UInt8(ascii: ".")
            }
            if mantissa < 0 {
                position -= 1
                out[position] = UInt8(ascii: "-")
            }
            return try body(UnsafeBufferPointer(start: out + position, count: 48 - position))
        }
    }
}

extension ExactDecimal: Hashable, Comparable {
    /// Equal by value: 2.5 == 2.50.
    public static func == (lhs: ExactDecimal, rhs: ExactDecimal) -> Bool {
        lhs.scale == rhs.scale ? lhs.mantissa == rhs.mantissa : compare(lhs, rhs) == 0
    }

    /// Ordered by value: -2.5 < -2.4 < 0.
    public static func < (lhs: ExactDecimal, rhs: ExactDecimal) -> Bool {
        lhs.scale == rhs.scale ? lhs.mantissa < rhs.mantissa : compare(lhs, rhs) < 0
    }

    /// Hashes the normalized value, so equal values at different scales hash alike.
    public func hash(into hasher: inout Hasher) {
        let value = normalized
        hasher.combine(value.mantissa)
        hasher.combine(value.scale)
    }

    /// -1, 0 or 1 as `lhs` is below, equal to or above `rhs`.
    static func compare(_ lhs: ExactDecimal, _ rhs: ExactDecimal) -> Int {
        if lhs.scale < rhs.scale { return compareScaled(lhs, rhs) }
        return -compareScaled(rhs, lhs)
    }

    /// Compares `fewer` (the smaller scale) with `more` by raising `fewer` to `more`'s scale;
    /// a raised mantissa beyond Int128 is larger in magnitude than any mantissa.
    private static func compareScaled(_ fewer: ExactDecimal, _ more: ExactDecimal) -> Int {
        let raised = fewer.mantissa.multipliedReportingOverflow(by: signedPowerOfTen(more.scale - fewer.scale))
        if raised.overflow { return fewer.mantissa < 0 ? -1 : 1 }
        return raised.partialValue == more.mantissa ? 0 : (raised.partialValue < more.mantissa ? -1 : 1)
    }
}
