import Foundation

/// The wire's dates: ISO 8601 in UTC with milliseconds, `2026-11-23T10:15:30.123Z`.
///
/// Formatted and parsed by hand with the proleptic Gregorian calendar arithmetic of Howard
/// Hinnant's `days_from_civil`: Foundation's `ISO8601FormatStyle` costs microseconds per date
/// and truncates the fraction instead of rounding it (a date parsed from `.455`, held as
/// .45499…, would print as `.454`), so parse-then-format would not give back the same text.
public enum WireDate {
    /// The length of ``format(_:)``'s text for the years 0000 to 9999.
    @inlinable
    static var canonicalLength: Int { 24 }

    /// The most bytes ``format(_:)``'s text takes (a sign, 19 year digits and the rest).
    @inlinable
    static var maxLength: Int { 40 }

    /// `date` as the wire writes it, rounded to the nearest millisecond.
    public static func format(_ date: Date) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(canonicalLength)
        write(date) { bytes.append(contentsOf: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Hands ``format(_:)``'s UTF-8 bytes to `body`, without allocating.
    static func write(_ date: Date, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        let scaled = (date.timeIntervalSince1970 * 1000).rounded()
        // Out of Int64's range only for absurd dates; those are clamped rather than trapping.
        let milliseconds = scaled.isNaN ? 0 : Int64(max(min(scaled, 9.2e18), -9.2e18))
        let (days, dayMilliseconds) = floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = civil(fromDays: days)
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { out in
            var position = 0
            // Every value put is non-negative: unsigned, each digit is a multiplication, not a division.
            func put(_ value: Int64, digits: Int) {
                var value = UInt64(truncatingIfNeeded: value), offset = digits
                while offset > 0 {
                    offset &-= 1
                    out[position &+ offset] = UInt8(truncatingIfNeeded: value % 10) &+ 48
                    value /= 10
                }
                position &+= digits
            }
            func put(_ byte: Unicode.Scalar) {
                out[position] = UInt8(ascii: byte)
                position += 1
            }
            if year < 0 { put("-") }
            var yearDigits = 4, bound: UInt64 = 10_000
            while yearDigits < 19, year.magnitude >= bound {
                yearDigits += 1
                bound &*= 10
            }
            put(Int64(year.magnitude), digits: yearDigits)
            put("-"); put(month, digits: 2); put("-"); put(day, digits: 2); put("T")
            put(dayMilliseconds / 3_600_000, digits: 2); put(":")
            put(dayMilliseconds / 60_000 % 60, digits: 2); put(":")
            put(dayMilliseconds / 1000 % 60, digits: 2); put(".")
            put(dayMilliseconds % 1000, digits: 3); put("Z")
            body(UnsafeBufferPointer(rebasing: out[0..<position]))
        }
    }

    /// Parses `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any length, and `Z` or an offset
    /// (`+01:00`, `+0100`, `+01`); nil for anything else, including impossible dates.
    public static func parse(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    /// ``parse(_:)`` from UTF-8 bytes.
    public static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Date? {
        guard bytes.count >= 20 else { return nil }
        // At most four digits at a time, so the arithmetic cannot overflow and needs no checks.
        func number(_ from: Int, _ count: Int) -> Int64? {
            var value: Int64 = 0, index = from
            while index < from &+ count {
                let digit = bytes[index] &- UInt8(ascii: "0")
                guard digit < 10 else { return nil }
                value = value &* 10 &+ Int64(digit)
                index &+= 1
            }
            return value
        }
        func byte(_ index: Int, is scalar: Unicode.Scalar) -> Bool { bytes[index] == UInt8(ascii: scalar) }
        guard let year = number(0, 4), byte(4, is: "-"), let month = number(5, 2), byte(7, is: "-"),
            let day = number(8, 2), byte(10, is: "T"), let hour = number(11, 2), byte(13, is: ":"),
            let minute = number(14, 2), byte(16, is: ":"), let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
            hour < 24, minute < 60, second < 60
        else { return nil }
        var index = 19
        var fraction: Int64 = 0, fractionDigits = 0
        if byte(index, is: ".") {
            index += 1
            while index < bytes.count, bytes[index] &- UInt8(ascii: "0") < 10 {
                if fractionDigits < 9 {
                    fraction = fraction * 10 + Int64(bytes[index] &- UInt8(ascii: "0"))
                    fractionDigits += 1
                }
                index += 1
            }
            guard fractionDigits > 0 else { return nil }
        }
        guard index < bytes.count else { return nil }
        var offsetSeconds: Int64 = 0
        if byte(index, is: "Z") {
            index += 1
        } else if byte(index, is: "+") || byte(index, is: "-") {
            let sign: Int64 = byte(index, is: "-") ? -1 : 1
            let rest = bytes.count - index - 1
            guard rest == 2 || rest == 4 || rest == 5, let hours = number(index + 1, 2), hours < 24 else { return nil }
            var minutes: Int64 = 0
            if rest > 2 {
                let at = rest == 5 ? index + 4 : index + 3
                guard rest == 4 || byte(index + 3, is: ":"), let value = number(at, 2), value < 60 else { return nil }
                minutes = value
            }
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
            index = bytes.count
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let seconds = days(fromYear: year, month: month, day: day) * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        if fractionDigits <= 3 {
            var milliseconds = fraction
            for _ in fractionDigits..<3 { milliseconds *= 10 }
            return Date(timeIntervalSince1970: Double(seconds * 1000 + milliseconds) / 1000)
        }
        var scale = 1.0
        for _ in 0..<fractionDigits { scale *= 10 }
        return Date(timeIntervalSince1970: Double(seconds) + Double(fraction) / scale)
    }

    /// ``write(_:_:)``'s bytes at `out` (room for ``maxLength`` bytes); returns their count. `cache` holds the
    /// text of the last minute written, so a date in that minute costs its seconds and milliseconds only.
    @inlinable
    static func write(_ date: Date, cache: inout WireDateCache, to out: UnsafeMutablePointer<UInt8>) -> Int {
        let scaled = (date.timeIntervalSince1970 * 1000).rounded()
        let milliseconds = scaled.isNaN ? 0 : Int64(max(min(scaled, 9.2e18), -9.2e18))
        var intoMinute = UInt64(bitPattern: milliseconds &- cache.minuteStart)
        if _slowPath(intoMinute >= 60_000) {
            guard cache.refill(milliseconds: milliseconds) else { return writeUncached(date, to: out) }
            intoMinute = UInt64(bitPattern: milliseconds &- cache.minuteStart)
        }
        let raw = UnsafeMutableRawPointer(out)
        raw.storeBytes(of: cache.prefix.0, as: UInt64.self)
        raw.storeBytes(of: cache.prefix.1, toByteOffset: 8, as: UInt64.self)
        out[16] = cache.prefix.2
        let second = intoMinute / 1000, millisecond = intoMinute % 1000
        out[17] = UInt8(truncatingIfNeeded: second / 10) &+ 48
        out[18] = UInt8(truncatingIfNeeded: second % 10) &+ 48
        out[19] = UInt8(ascii: ".")
        out[20] = UInt8(truncatingIfNeeded: millisecond / 100) &+ 48
        out[21] = UInt8(truncatingIfNeeded: millisecond / 10 % 10) &+ 48
        out[22] = UInt8(truncatingIfNeeded: millisecond % 10) &+ 48
        out[23] = UInt8(ascii: "Z")
        return canonicalLength
    }

    /// ``write(_:_:)``'s bytes at `out`, for a year that the cache does not hold (before 0 or after 9999).
    @usableFromInline
    static func writeUncached(_ date: Date, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var length = 0
        write(date) { bytes in
            out.update(from: bytes.baseAddress!, count: bytes.count)
            length = bytes.count
        }
        return length
    }

    /// The date of exactly `YYYY-MM-DDTHH:MM:SS.mmmZ` (24 bytes) at `p`, the same `Date` as ``parse(utf8:)``
    /// gives; nil for any other text, impossible dates included.
    @inlinable
    static func parseCanonical(_ p: UnsafePointer<UInt8>) -> Date? {
        let raw = UnsafeRawPointer(p)
        let first = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
        let second = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 8, as: UInt64.self))
        let third = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: 16, as: UInt64.self))
        // Separators where they belong (little-endian: byte 0 is the lowest), digits everywhere else.
        // `YYYY-MM-`, `DDTHH:MM`, `:SS.mmmZ`.
        let firstDigits: UInt64 = 0x00FF_FF00_FFFF_FFFF, secondDigits: UInt64 = 0xFFFF_00FF_FF00_FFFF
        let thirdDigits: UInt64 = 0x00FF_FFFF_00FF_FF00
        guard first & ~firstDigits == 0x2D00_002D_0000_0000, second & ~secondDigits == 0x0000_3A00_0054_0000,
            third & ~thirdDigits == 0x5A00_0000_2E00_003A,
            isDigits(first, firstDigits), isDigits(second, secondDigits), isDigits(third, thirdDigits)
        else { return nil }
        @inline(__always) func digit(_ index: Int) -> Int64 { Int64(p[index] &- 48) }
        let year = digit(0) &* 1000 &+ digit(1) &* 100 &+ digit(2) &* 10 &+ digit(3)
        let month = digit(5) &* 10 &+ digit(6), day = digit(8) &* 10 &+ digit(9)
        let hour = digit(11) &* 10 &+ digit(12), minute = digit(14) &* 10 &+ digit(15)
        let seconds = digit(17) &* 10 &+ digit(18)
        let milliseconds = digit(20) &* 100 &+ digit(21) &* 10 &+ digit(22)
        guard month >= 1, month <= 12, day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60, seconds < 60
        else { return nil }
        let total = days(fromYear: year, month: month, day: day) &* 86_400 &+ hour &* 3600 &+ minute &* 60 &+ seconds
        return Date(timeIntervalSince1970: Double(total &* 1000 &+ milliseconds) / 1000)
    }

    /// Whether every byte of `word` that `mask` selects is an ASCII digit (the others must be 0 in `mask`).
    @inlinable @inline(__always)
    static func isDigits(_ word: UInt64, _ mask: UInt64) -> Bool {
        let highs: UInt64 = 0xF0F0_F0F0_F0F0_F0F0 & mask
        let digits = word & mask
        // A digit is 0x30…0x39: its high nibble is 3, and adding 6 keeps it 3. A carry out of a byte comes only
        // from a byte that fails on its own.
        return (digits & highs) | (((digits &+ (0x0606_0606_0606_0606 & mask)) & highs) >> 4) == 0x3333_3333_3333_3333 & mask
    }

    @usableFromInline
    static func floorDivision(_ value: Int64, _ divisor: Int64) -> (Int64, Int64) {
        let (quotient, remainder) = value.quotientAndRemainder(dividingBy: divisor)
        return remainder < 0 ? (quotient - 1, remainder + divisor) : (quotient, remainder)
    }

    @inlinable
    static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date.
    @inlinable
    static func days(fromYear year: Int64, month: Int64, day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

/// The text of the current minute (`YYYY-MM-DDTHH:MM:`) for ``WireBuffer/appendDate(_:cache:)``: a date of that
/// minute costs its seconds and milliseconds only. Keep one per writer (a publisher's state, a benchmark's loop).
public struct WireDateCache: Sendable {
    /// The first millisecond since 1970 of the minute held; `.min` while none is.
    @usableFromInline
    var minuteStart: Int64 = .min
    /// The 17 bytes of the minute's text.
    @usableFromInline
    var prefix: (UInt64, UInt64, UInt8) = (0, 0, 0)

    /// An empty cache: the first date fills it.
    public init() {}

    /// Holds the minute of `milliseconds`; false, leaving the cache as it was, for a year outside 0…9999.
    @usableFromInline
    mutating func refill(milliseconds: Int64) -> Bool {
        let (days, dayMilliseconds) = WireDate.floorDivision(milliseconds, 86_400_000)
        let (year, month, day) = WireDate.civil(fromDays: days)
        guard year >= 0, year <= 9999 else { return false }
        let hour = dayMilliseconds / 3_600_000, minute = dayMilliseconds / 60_000 % 60
        var bytes: (UInt64, UInt64, UInt8) = (0, 0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            func put(_ value: Int64, _ digits: Int, at offset: Int) {
                var value = value
                for index in (offset..<offset + digits).reversed() {
                    raw[index] = UInt8(value % 10) + 48
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            raw[4] = UInt8(ascii: "-")
            put(month, 2, at: 5)
            raw[7] = UInt8(ascii: "-")
            put(day, 2, at: 8)
            raw[10] = UInt8(ascii: "T")
            put(hour, 2, at: 11)
            raw[13] = UInt8(ascii: ":")
            put(minute, 2, at: 14)
            raw[16] = UInt8(ascii: ":")
        }
        prefix = bytes
        minuteStart = milliseconds - dayMilliseconds % 60_000
        return true
    }
}
