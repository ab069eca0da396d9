import Foundation

/// Reads wire JSON in the order the wire writes it, for a direct codec's ``DirectWireDecodable/readWire(_:)``.
///
/// Every method returns nil or false at the first byte it does not expect and leaves the decision to the caller,
/// which falls back to the tape (``WireJSONDecoder``); what it accepts is a strict subset of what the tape accepts,
/// read to the same values. It never throws, and never allocates for ASCII strings up to 15 bytes.
public struct WireCursor {
    /// The next byte to read.
    @usableFromInline
    var position: UnsafePointer<UInt8>
    /// One past the last byte.
    @usableFromInline
    let end: UnsafePointer<UInt8>
    /// The first byte, for ``offset``.
    @usableFromInline
    let start: UnsafePointer<UInt8>

    /// A cursor at the first of `bytes`, which must stay valid while it reads.
    @inlinable
    public init(_ bytes: UnsafeRawBufferPointer) {
        // An empty buffer may have no address; any pointer then serves, as nothing is read.
        let base = bytes.baseAddress.map { $0.assumingMemoryBound(to: UInt8.self) } ?? UnsafePointer(bitPattern: 1)!
        start = base
        position = base
        end = base + bytes.count
    }

    /// Whether every byte is read.
    @inlinable
    public var isAtEnd: Bool { position == end }

    /// How many bytes are read: where the next value starts, counted from the first byte (a range of the text).
    @inlinable
    public var offset: Int { position - start }

    /// How many bytes are left.
    @inlinable
    public var remaining: Int { end - position }

    /// Reads `literal` (a key fragment such as `,"last":`, or a bracket) if the text continues with it; false,
    /// having read nothing, if not.
    @inlinable @inline(__always)
    public mutating func expect(_ literal: StaticString) -> Bool {
        let length = literal.utf8CodeUnitCount
        guard length <= end - position else { return false }
        let expected = UnsafeRawPointer(literal.utf8Start), actual = UnsafeRawPointer(position)
        var index = 0
        while index &+ 8 <= length {
            guard expected.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                == actual.loadUnaligned(fromByteOffset: index, as: UInt64.self) else { return false }
            index &+= 8
        }
        if index &+ 4 <= length {
            guard expected.loadUnaligned(fromByteOffset: index, as: UInt32.self)
                == actual.loadUnaligned(fromByteOffset: index, as: UInt32.self) else { return false }
            index &+= 4
        }
        while index < length {
            guard expected.load(fromByteOffset: index, as: UInt8.self) == actual.load(fromByteOffset: index, as: UInt8.self)
            else { return false }
            index &+= 1
        }
        position += length
        return true
    }

    /// An optional member: reads `literal` (`,"open":`) if it is next, else reads nothing. The same as ``expect(_:)``,
    /// named for what the caller means.
    @inlinable @inline(__always)
    public mutating func peek(_ literal: StaticString) -> Bool { expect(literal) }

    /// Whether the next byte is `byte`, reading nothing.
    @inlinable @inline(__always)
    public func next(is byte: UInt8) -> Bool { position < end && position.pointee == byte }

    /// A quoted string of plain ASCII (0x20…0x7E, without `"` or `\`); nil for anything else, escapes, UTF-8 and
    /// control characters included (the tape reads and checks those).
    @inlinable
    public mutating func string() -> String? {
        guard let length = plainString() else { return nil }
        let text = WireCursor.checkedASCII(position + 1, length)
        position += length &+ 2
        return text
    }

    /// The string of `length` bytes at `content`, which ``plainString()`` found plain ASCII and which a readable
    /// byte follows (the closing quote). Up to 15 bytes it is built as the standard library's small ASCII string,
    /// its bits set from the bytes (the layout of 64-bit little-endian platforms: the code units in order, then the
    /// discriminator 0xE and the count in the last byte), without validating the UTF-8 again; longer text, and other
    /// platforms, through `String(decoding:as:)`. DirectPrimitivesTests compares the bits with `String(decoding:as:)`'s.
    @inlinable @inline(__always)
    static func checkedASCII(_ content: UnsafePointer<UInt8>, _ length: Int) -> String {
        #if (arch(x86_64) || arch(arm64)) && _endian(little)
        if length <= 15 {
            let raw = UnsafeRawPointer(content)
            var leading: UInt64 = 0, trailing: UInt64 = 0
            if length >= 8 {
                leading = UInt64(littleEndian: raw.loadUnaligned(as: UInt64.self))
                if length > 8 {
                    // Bytes 8..<length are the top ones of the word ending at `length`.
                    trailing = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self))
                        &>> UInt64(truncatingIfNeeded: (16 &- length) &* 8)
                }
            } else if length >= 4 {
                // Two words of four that overlap where length < 8: the shared bytes are the same.
                let low = UInt64(UInt32(littleEndian: raw.loadUnaligned(as: UInt32.self)))
                let high = UInt64(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: length &- 4, as: UInt32.self)))
                leading = low | high &<< UInt64(truncatingIfNeeded: (length &- 4) &* 8)
            } else {
                var index = 0
                while index < length {
                    leading |= UInt64(content[index]) &<< UInt64(truncatingIfNeeded: index &* 8)
                    index &+= 1
                }
            }
            trailing |= 0xE000_0000_0000_0000 | UInt64(truncatingIfNeeded: length) &<< 56
            return unsafeBitCast((leading, trailing), to: String.self)
        }
        #endif
        return String(decoding: UnsafeBufferPointer(start: content, count: length), as: UTF8.self)
    }

    /// The content length of the plain string at the cursor (see ``string()``), reading nothing; nil when the
    /// next value is not one.
    @inlinable @inline(__always)
    func plainString() -> Int? {
        guard position < end, position.pointee == UInt8(ascii: "\"") else { return nil }
        let content = position + 1
        let available = end - content
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = 0
        while index &+ 8 <= available {
            let word = UInt64(littleEndian: UnsafeRawPointer(content + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // Below 0x20, or 0x7F and above (adding 1 takes 0x7F to 0x80; a carry out of 0xFF comes from a flagged
            // byte and only flags bytes after it). The lowest flag is exact in every term.
            let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)
                | word | (word &+ ones)) & highs
            if special != 0 {
                let at = index &+ special.trailingZeroBitCount >> 3
                return content[at] == UInt8(ascii: "\"") ? at : nil
            }
            index &+= 8
        }
        while index < available {
            let code = content[index]
            if code == UInt8(ascii: "\"") { return index }
            guard code >= 0x20, code < 0x7F, code != UInt8(ascii: "\\") else { return nil }
            index &+= 1
        }
        return nil
    }

    /// A JSON integer that fits `UInt64`: digits without a sign, no leading 0 but in `0` itself, no fraction or
    /// exponent after it; nil for anything else.
    @inlinable
    public mutating func uint64() -> UInt64? {
        guard let (value, length) = magnitude(at: position) else { return nil }
        position += length
        return value
    }

    /// A JSON integer that fits `Int64`, as ``uint64()`` reads it with an optional `-` (not `-0`).
    @inlinable
    public mutating func int64() -> Int64? {
        guard position < end else { return nil }
        if position.pointee == UInt8(ascii: "-") {
            guard let (magnitude, length) = magnitude(at: position + 1), magnitude != 0, magnitude <= UInt64(Int64.max) &+ 1
            else { return nil }
            position += length &+ 1
            return Int64(truncatingIfNeeded: 0 &- magnitude)
        }
        guard let (value, length) = magnitude(at: position), value <= UInt64(Int64.max) else { return nil }
        position += length
        return Int64(truncatingIfNeeded: value)
    }

    /// The unsigned JSON integer at `from` and its length, reading nothing.
    @inlinable @inline(__always)
    func magnitude(at from: UnsafePointer<UInt8>) -> (UInt64, Int)? {
        var at = from
        guard at < end else { return nil }
        let first = at.pointee &- 48
        guard first < 10 else { return nil }
        var value = UInt64(first)
        at += 1
        if first != 0 {
            // 19 digits cannot overflow; a 20th is checked, a 21st always overflows.
            var digits = 1
            while at < end {
                let digit = at.pointee &- 48
                guard digit < 10 else { break }
                if digits >= 19 {
                    guard digits == 19 else { return nil }
                    let (times, overflow) = value.multipliedReportingOverflow(by: 10)
                    let (sum, carry) = times.addingReportingOverflow(UInt64(digit))
                    guard !overflow, !carry else { return nil }
                    value = sum
                } else {
                    value = value &* 10 &+ UInt64(digit)
                }
                digits &+= 1
                at += 1
            }
        }
        // `00`, a fraction or an exponent: not an integer this cursor reads.
        if at < end {
            let next = at.pointee
            guard next &- 48 >= 10, next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else { return nil }
        }
        return (value, at - from)
    }

    /// A ``WireText`` value (money) from a quoted plain string of at most `W.maxWireTextLength` bytes; nil for
    /// anything else, and when `W(wireText:)` refuses the text (the tape then throws its error).
    @inlinable
    public mutating func text<W: WireText>(_ type: W.Type) -> W? {
        guard let length = plainString(), length <= W.maxWireTextLength,
            let value = try? W(wireText: UnsafeBufferPointer(start: position + 1, count: length))
        else { return nil }
        position += length &+ 2
        return value
    }

    /// A quoted date of exactly `YYYY-MM-DDTHH:MM:SS.mmmZ`, as ``WireDate`` writes it; nil for any other text.
    @inlinable
    public mutating func date() -> Date? {
        guard end - position >= WireDate.canonicalLength &+ 2, position.pointee == UInt8(ascii: "\""),
            position[WireDate.canonicalLength &+ 1] == UInt8(ascii: "\""),
            let date = WireDate.parseCanonical(position + 1)
        else { return nil }
        position += WireDate.canonicalLength &+ 2
        return date
    }

    /// Steps over one value that is certainly valid JSON within the default ``WireJSONLimits``: plain ASCII strings
    /// (as ``string()`` reads them), numbers of at most 40 bytes without exponent, `true`, `false`, `null`, and
    /// objects and arrays nested at most `depth` deep, without whitespace. False for anything else, with the
    /// cursor anywhere: the caller then asks the tape, which decides.
    @inlinable
    public mutating func skipValue(depth: Int = 8) -> Bool {
        guard position < end else { return false }
        switch position.pointee {
        case UInt8(ascii: "\""):
            return skipString()
        case UInt8(ascii: "{"):
            guard depth > 0 else { return false }
            position += 1
            if next(is: UInt8(ascii: "}")) {
                position += 1
                return true
            }
            while true {
                guard skipString(), next(is: UInt8(ascii: ":")) else { return false }
                position += 1
                guard skipValue(depth: depth &- 1), position < end else { return false }
                let byte = position.pointee
                position += 1
                if byte == UInt8(ascii: "}") { return true }
                guard byte == UInt8(ascii: ",") else { return false }
            }
        case UInt8(ascii: "["):
            guard depth > 0 else { return false }
            position += 1
            if next(is: UInt8(ascii: "]")) {
                position += 1
                return true
            }
            while true {
                guard skipValue(depth: depth &- 1), position < end else { return false }
                let byte = position.pointee
                position += 1
                if byte == UInt8(ascii: "]") { return true }
                guard byte == UInt8(ascii: ",") else { return false }
            }
        case UInt8(ascii: "t"): return expect("true")
        case UInt8(ascii: "f"): return expect("false")
        case UInt8(ascii: "n"): return expect("null")
        default: return skipNumber()
        }
    }

    /// Steps over a plain string (see ``string()``) within the default string limit of 1 MiB.
    @inlinable @inline(__always)
    mutating func skipString() -> Bool {
        guard let length = plainString(), length <= 1 << 20 else { return false }
        position += length &+ 2
        return true
    }

    /// Steps over `-?(0|[1-9][0-9]*)(\.[0-9]+)?` of at most 40 bytes, not followed by a digit, `.` or an exponent.
    @inlinable
    mutating func skipNumber() -> Bool {
        var at = position
        if at < end, at.pointee == UInt8(ascii: "-") { at += 1 }
        guard at < end else { return false }
        let first = at.pointee
        guard first &- 48 < 10 else { return false }
        at += 1
        if first != UInt8(ascii: "0") {
            while at < end, at.pointee &- 48 < 10 { at += 1 }
        }
        if at < end, at.pointee == UInt8(ascii: ".") {
            at += 1
            guard at < end, at.pointee &- 48 < 10 else { return false }
            while at < end, at.pointee &- 48 < 10 { at += 1 }
        }
        if at < end {
            let next = at.pointee
            guard next &- 48 >= 10, next != UInt8(ascii: "."), next | 0x20 != UInt8(ascii: "e") else { return false }
        }
        guard at - position <= 40 else { return false }
        position = at
        return true
    }
}

extension WireCursor {
    /// Reads the optional integer member `key` (its key fragment, ending with the colon) into `value` if it is next:
    /// true when absent or read, false when its value is not one this cursor reads (the caller then gives up and the tape
    /// decides).
    @inlinable @inline(__always)
    public mutating func integer(_ key: StaticString, _ value: inout Int?) -> Bool {
        guard peek(key) else { return true }
        value = int64().flatMap { Int(exactly: $0) }
        return value != nil
    }

    /// ``integer(_:_:)`` for an optional date member.
    @inlinable @inline(__always)
    public mutating func date(_ key: StaticString, _ value: inout Date?) -> Bool {
        guard peek(key) else { return true }
        value = date()
        return value != nil
    }

    /// ``integer(_:_:)`` for an optional string member.
    @inlinable @inline(__always)
    public mutating func string(_ key: StaticString, _ value: inout String?) -> Bool {
        guard peek(key) else { return true }
        value = string()
        return value != nil
    }
}
