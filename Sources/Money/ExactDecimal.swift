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
    @usableFromInline
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

    /// The longest text ``write(to:)`` writes: a sign, "0." and 38 fractional digits.
    public static let maxTextLength = 41

    /// Calls `body` with ``description``'s UTF-8 bytes, built on the stack without allocating.
    /// Inlinable so that callers in other modules get it specialized: unspecialized, each call asks
    /// the runtime for generic metadata.
    @inlinable
    public func withDigits<R>(_ body: (UnsafeBufferPointer<UInt8>) throws -> R) rethrows -> R {
        try withUnsafeTemporaryAllocation(of: UInt8.self, capacity: Self.maxTextLength) { buffer in
            try body(UnsafeBufferPointer(start: buffer.baseAddress!, count: write(to: buffer.baseAddress!)))
        }
    }

    /// Writes ``description``'s UTF-8 bytes to `out`, which has room for ``maxTextLength`` bytes, and
    /// returns how many it wrote: the wire encoder writes money straight into its buffer this way. Bytes of that
    /// room after the text may be overwritten.
    ///
    /// The integer and fractional parts are split with one division and each written in place, eight digits
    /// a word by multiplications below 2^64 (two digits per division above); a mantissa below 2^64 at a scale below 20 (what prices and
    /// amounts hold) splits with a 64-bit division rather than a 128-bit one (bench/PROFILE.md).
    public func write(to out: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 0
        if mantissa < 0 {
            out[0] = UInt8(ascii: "-")
            length = 1
        }
        let magnitude = mantissa.magnitude
        if magnitude <= UInt128(UInt64.max), scale < 20 {
            let value = UInt64(truncatingIfNeeded: magnitude)
            return length + writeParts(value.quotientAndRemainder(dividingBy: powersOfTen64[scale]), scale: scale, to: out + length)
        }
        return length + writeParts(magnitude.quotientAndRemainder(dividingBy: powersOfTen[scale]), scale: scale, to: out + length)
    }
}

/// An unsigned integer whose decimal digits ``ExactDecimal/write(to:)`` prints: 64 bits for what money holds,
/// 128 bits for the rest.
private protocol PrintedDigits {
    /// How many decimal digits the value has (1 for zero).
    var decimalDigitCount: Int { get }
    /// Writes the value as exactly `count` digits, zero-padded on the left, in the bytes just before `end`.
    func writeDigits(count: Int, endingAt end: UnsafeMutablePointer<UInt8>)
}

/// Writes a value's integer part, then its point and `scale` fractional digits when it has a fraction;
/// returns the length. Specialized for each width where it is inlined.
@inline(__always)
private func writeParts<Digits: PrintedDigits>(_ parts: (quotient: Digits, remainder: Digits), scale: Int, to out: UnsafeMutablePointer<UInt8>) -> Int {
    var length = parts.quotient.decimalDigitCount
    parts.quotient.writeDigits(count: length, endingAt: out + length)
    if scale > 0 {
        out[length] = UInt8(ascii: ".")
        length += 1 + scale
        parts.remainder.writeDigits(count: scale, endingAt: out + length)
    }
    return length
}

extension UInt64: PrintedDigits {
    /// Estimated from the bit length, then corrected once.
    @inline(__always)
    fileprivate var decimalDigitCount: Int {
        let estimate = ((64 - leadingZeroBitCount) &* 1233) >> 12
        return estimate < 20 && self >= powersOfTen64[estimate] ? estimate + 1 : Swift.max(estimate, 1)
    }

    /// Eight digits a word (``eightDigitsText``), the leftmost group first: each group is stored as a whole word
    /// from its first byte, so a short group's spare bytes land on the next group's place, and the last group's
    /// past `end`, which the text ``ExactDecimal/write(to:)`` writes here (at most 22 bytes) leaves within the
    /// ``ExactDecimal/maxTextLength`` bytes of room: the point and the fraction are written after.
    @inline(__always)
    fileprivate func writeDigits(count: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
        let start = UnsafeMutableRawPointer(end - count)
        @inline(__always) func store(_ value: UInt64, digits: Int, at offset: Int) {
            let text = eightDigitsText(value) &>> UInt64(truncatingIfNeeded: (8 &- digits) &* 8)
            start.storeBytes(of: text.littleEndian, toByteOffset: offset, as: UInt64.self)
        }
        if count <= 8 {
            store(self, digits: count, at: 0)
        } else if count <= 16 {
            let (high, low) = quotientAndRemainder(dividingBy: 100_000_000)
            store(high, digits: count &- 8, at: 0)
            store(low, digits: 8, at: count &- 8)
        } else {
            let (high, low) = quotientAndRemainder(dividingBy: 100_000_000)
            let (top, middle) = high.quotientAndRemainder(dividingBy: 100_000_000)
            store(top, digits: count &- 16, at: 0)
            store(middle, digits: 8, at: count &- 16)
            store(low, digits: 8, at: count &- 8)
        }
    }

    /// Two digits per division, from a table of pairs, written from `end` backwards and nothing outside the
    /// `count` bytes: the 128-bit path writes its groups right to left.
    @inline(__always)
    fileprivate func writeDigitPairs(count: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
        let pairs: StaticString = "00010203040506070809101112131415161718192021222324252627282930313233343536373839404142434445464748495051525354555657585960616263646566676869707172737475767778798081828384858687888990919293949596979899"
        var value = self, position = end, remaining = count
        while remaining >= 2 {
            let pair = Int(truncatingIfNeeded: value % 100) &* 2
            value /= 100
            position -= 2
            position[0] = pairs.utf8Start[pair]
            position[1] = pairs.utf8Start[pair + 1]
            remaining -= 2
        }
        if remaining == 1 { position[-1] = UInt8(truncatingIfNeeded: value % 10) &+ UInt8(ascii: "0") }
    }
}

/// The eight low decimal digits of `value` (below 10^8) as ASCII, the first digit in the lowest byte: split in
/// halves, quarters and single digits in the word's lanes by multiplications (no division instruction).
@inline(__always)
private func eightDigitsText(_ value: UInt64) -> UInt64 {
    let halves = (value / 10_000) | (value % 10_000) &<< 32
    let hundreds = ((halves &* 10_486) &>> 20) & 0x0000_007F_0000_007F
    let quarters = hundreds | (halves &- hundreds &* 100) &<< 16
    let tens = ((quarters &* 103) &>> 10) & 0x000F_000F_000F_000F
    return (tens | (quarters &- tens &* 10) &<< 8) | 0x3030_3030_3030_3030
}

extension UInt128: PrintedDigits {
    fileprivate var decimalDigitCount: Int {
        if self <= UInt128(UInt64.max) { return UInt64(truncatingIfNeeded: self).decimalDigitCount }
        var count = 20
        while count < powersOfTen.count, self >= powersOfTen[count] { count += 1 }
        return count
    }

    /// Nineteen digits at a time until the rest fits 64 bits.
    fileprivate func writeDigits(count: Int, endingAt end: UnsafeMutablePointer<UInt8>) {
        var value = self, count = count, end = end
        while value > UInt128(UInt64.max) {
            let (high, low) = value.quotientAndRemainder(dividingBy: 10_000_000_000_000_000_000)
            UInt64(truncatingIfNeeded: low).writeDigitPairs(count: 19, endingAt: end)
            (value, count, end) = (high, count - 19, end - 19)
        }
        UInt64(truncatingIfNeeded: value).writeDigitPairs(count: count, endingAt: end)
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
