extension ExactDecimal {
    /// Parses decimal text: an optional sign, digits with at most one point (".5" and "7." are fine)
    /// and an optional exponent ("1.5e-7", "1E3"). The scale is the number of fractional digits
    /// written, less the exponent ("2.50" has scale 2; "1E3" is 1000 at scale 0).
    ///
    /// Throws ``MoneyError/invalidNumber(_:)`` for anything else ("", "abc", "NaN", "Infinity", "1,5", " 1"),
    /// and ``MoneyError/overflow(_:)`` for more than 38 significant digits or more than 38 fractional digits.
    public init(_ string: String) throws(MoneyError) {
        var text = string
        self = try text.withUTF8 { bytes in Result { () throws(MoneyError) in try ExactDecimal(utf8: bytes) } }.get()
    }

    /// Parses decimal text from its UTF-8 bytes, exactly as ``init(_:)`` does, without making a `String`.
    /// Inlinable with the ``plain(utf8:)`` fast path, so a decoder reads a price or an amount without a call;
    /// anything else goes to the full parse.
    @inlinable
    public init(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(MoneyError) {
        if let value = Self.plain(utf8: bytes) {
            self = value
        } else {
            self = try Self.parsedInFull(utf8: bytes)
        }
    }

    /// ``init(utf8:)`` for what ``plain(utf8:)`` does not read: signs, exponents, more than 19 digits, errors.
    @usableFromInline
    static func parsedInFull(utf8 bytes: UnsafeBufferPointer<UInt8>) throws(MoneyError) -> ExactDecimal {
        try value(of: parse(bytes), text: String(decoding: bytes, as: UTF8.self))
    }

    /// The parsed value, or the error naming `text`.
    private static func value(of outcome: ParseOutcome, text: @autoclosure () -> String) throws(MoneyError) -> ExactDecimal {
        switch outcome {
        case .success(let value):
            return value
        case .invalid:
            throw .invalidNumber(text())
        case .tooManyDigits:
            throw .overflow("\"\(text())\" has more than 38 significant digits")
        case .tooManyFractionalDigits:
            throw .overflow("\"\(text())\" has more than 38 fractional digits")
        }
    }

    /// What parsing a byte string produced.
    enum ParseOutcome {
        case success(ExactDecimal)
        case invalid
        case tooManyDigits
        case tooManyFractionalDigits
    }

    /// Parses ASCII decimal text from UTF-8 bytes without allocating.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> ParseOutcome {
        let count = bytes.count
        var index = 0
        var negative = false
        if index < count && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) {
            negative = bytes[index] == UInt8(ascii: "-")
            index += 1
        }
        var magnitude: UInt128 = 0
        var significantDigits = 0
        var fractionalDigits = 0
        var sawDigit = false
        var sawPoint = false
        while index < count {
            let byte = bytes[index]
            let digit = byte &- UInt8(ascii: "0")
            if digit < 10 {
                sawDigit = true
                if sawPoint { fractionalDigits += 1 }
                if significantDigits > 0 || digit != 0 {
                    significantDigits += 1
                    if significantDigits > 38 { return .tooManyDigits }
                    magnitude = magnitude &* 10 &+ UInt128(digit)
                }
            } else if byte == UInt8(ascii: ".") && !sawPoint {
                sawPoint = true
            } else {
                break
            }
            index += 1
        }
        guard sawDigit else { return .invalid }
        var exponent = 0
        if index < count {
            guard bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") else { return .invalid }
            index += 1
            var exponentNegative = false
            if index < count && (bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+")) {
                exponentNegative = bytes[index] == UInt8(ascii: "-")
                index += 1
            }
            guard index < count else { return .invalid }
            while index < count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return .invalid }
                exponent = min(exponent * 10 + Int(digit), 1_000_000)
                index += 1
            }
            if exponentNegative { exponent = -exponent }
        }
        let scale = fractionalDigits - exponent
        if scale < 0 {
            if magnitude == 0 { return .success(.zero) }
            guard -scale <= 38 else { return .tooManyDigits }
            let raised = magnitude.multipliedReportingOverflow(by: powersOfTen[-scale])
            guard !raised.overflow, raised.partialValue <= maxMantissaMagnitude else { return .tooManyDigits }
            return .success(ExactDecimal(unchecked: signedMantissa(raised.partialValue, negative: negative), scale: 0))
        }
        guard scale <= maxScale else { return .tooManyFractionalDigits }
        return .success(ExactDecimal(unchecked: signedMantissa(magnitude, negative: negative), scale: scale))
    }

    /// Parses plain decimal text (an optional `-`, then at most 19 digits with at most one point: every
    /// price and amount on the wire) exactly as ``init(utf8:)`` does, in one tight loop; nil for anything
    /// else, which ``init(utf8:)`` then reads in full or refuses. Nineteen digits, leading zeros included,
    /// always fit 64 bits.
    @inlinable @inline(__always)
    static func plain(utf8 bytes: UnsafeBufferPointer<UInt8>) -> ExactDecimal? {
        let negative = bytes.first == UInt8(ascii: "-")
        let start = negative ? 1 : 0
        guard bytes.count - start <= 20, let base = bytes.baseAddress else { return nil }
        // The digits before the point, then those after it: one pointer and one comparison a byte, the count of
        // digits taken from the length at the end.
        let first = base + start, end = base + bytes.count
        var value: UInt64 = 0, position = first, point: UnsafePointer<UInt8>? = nil
        while position < end {
            let digit = position.pointee &- UInt8(ascii: "0")
            guard digit < 10 else { break }
            value = value &* 10 &+ UInt64(digit)
            position += 1
        }
        if position < end {
            guard position.pointee == UInt8(ascii: ".") else { return nil }
            point = position
            position += 1
            while position < end {
                let digit = position.pointee &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ UInt64(digit)
                position += 1
            }
        }
        let digits = end - first - (point == nil ? 0 : 1)
        guard digits > 0, digits <= 19 else { return nil }
        let mantissa = Int128(value)
        return ExactDecimal(unchecked: negative ? -mantissa : mantissa, scale: point.map { end - $0 - 1 } ?? 0)
    }
}
