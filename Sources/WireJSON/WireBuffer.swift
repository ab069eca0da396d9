import Foundation

/// Bytes being written by a direct wire codec (``DirectWireEncodable``), in one buffer kept from message to
/// message: once it has grown to the messages' size, writing one allocates nothing.
///
/// It writes exactly the bytes of ``WireJSONEncoder``: strings escaped as it escapes them, integers in
/// decimal, ``WireText`` values (money) as quoted plain text, dates as ``WireDate`` text.
///
/// Sendable, unchecked: it is not copyable, so its storage has one owner, and only that owner's exclusive access
/// writes to it.
public struct WireBuffer: ~Copyable, @unchecked Sendable {
    @usableFromInline
    var base: UnsafeMutablePointer<UInt8>
    @usableFromInline
    var count: Int
    /// How many bytes fit before the buffer grows again (an owner may drop a buffer that grew large).
    public internal(set) var capacity: Int

    /// An empty buffer with room for `capacity` bytes before it first grows.
    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 64)
        base = .allocate(capacity: self.capacity)
        count = 0
    }

    deinit { base.deallocate() }

    /// How many bytes are written.
    @inlinable
    public var byteCount: Int { count }

    /// Forgets the bytes written, keeping the capacity.
    @inlinable
    public mutating func removeAll() { count = 0 }

    /// Makes room for `extra` more bytes.
    @inlinable @inline(__always)
    public mutating func reserve(_ extra: Int) {
        if _slowPath(extra > capacity &- count) { grow(toHold: extra) }
    }

    /// Doubles the capacity until `extra` more bytes fit.
    @usableFromInline @inline(never)
    mutating func grow(toHold extra: Int) {
        var larger = capacity * 2
        while larger - count < extra { larger *= 2 }
        let storage = UnsafeMutablePointer<UInt8>.allocate(capacity: larger)
        storage.update(from: base, count: count)
        base.deallocate()
        base = storage
        capacity = larger
    }

    /// Appends a literal as it is: a key fragment such as `,"last":` (fragments end with their colon) or a bracket.
    @inlinable @inline(__always)
    public mutating func append(_ literal: StaticString) {
        let length = literal.utf8CodeUnitCount
        reserve(length)
        (base + count).update(from: literal.utf8Start, count: length)
        count &+= length
    }

    /// Appends one byte.
    @inlinable @inline(__always)
    public mutating func append(byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1
    }

    /// Appends `text` as a JSON string, escaped as ``WireJSONEncoder`` escapes it: `"` and `\` with a backslash,
    /// bytes below 0x20 as `\b \f \n \r \t` or `\u00xx` (lowercase hex); everything else, UTF-8 included, as it is.
    @inlinable
    public mutating func appendString(_ text: String) {
        #if (arch(x86_64) || arch(arm64)) && _endian(little)
        if appendSmallASCII(text) { return }
        #endif
        var text = text
        text.withUTF8 { utf8 in
            let length = utf8.count
            // Plain text needs the bytes plus two quotes; an escape grows it, and reserves again.
            reserve(length &+ 2)
            let out = base + count
            out[0] = UInt8(ascii: "\"")
            guard let source = utf8.baseAddress else {
                out[1] = UInt8(ascii: "\"")
                count &+= 2
                return
            }
            let first = WireBuffer.firstToEscape(source, length, from: 0)
            guard first == length else { return appendEscaped(source, length, from: first) }
            (out + 1).update(from: source, count: length)
            out[length &+ 1] = UInt8(ascii: "\"")
            count &+= length &+ 2
        }
    }

    #if (arch(x86_64) || arch(arm64)) && _endian(little)
    /// ``appendString(_:)`` of a small ASCII string that needs no escape, read from the string's own bits (the
    /// layout ``WireCursor`` builds them in: the code units in order, the discriminator 0xE and the count in the
    /// last byte) with two stores; false, having written nothing, for any other string.
    @inlinable @inline(__always)
    mutating func appendSmallASCII(_ text: String) -> Bool {
        let (leading, tagged) = unsafeBitCast(text, to: (UInt64, UInt64).self)
        guard tagged &>> 60 == 0xE else { return false }
        let length = Int(truncatingIfNeeded: (tagged &>> 56) & 0xF)
        let trailing = tagged & 0x00FF_FFFF_FFFF_FFFF
        // Only the string's own bytes are checked: the zero bytes after them would read as controls (a borrow
        // only runs upwards, into bytes that are masked off as well).
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        @inline(__always) func special(_ word: UInt64) -> UInt64 {
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            return (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)) & highs
        }
        let leadingMask: UInt64 = length >= 8 ? ~0 : (1 &<< UInt64(truncatingIfNeeded: length &* 8)) &- 1
        let trailingMask: UInt64 = length <= 8 ? 0 : (1 &<< UInt64(truncatingIfNeeded: (length &- 8) &* 8)) &- 1
        guard special(leading) & leadingMask == 0, special(trailing) & trailingMask == 0 else { return false }
        reserve(18)
        let out = UnsafeMutableRawPointer(base + count)
        out.storeBytes(of: UInt8(ascii: "\""), as: UInt8.self)
        out.storeBytes(of: leading.littleEndian, toByteOffset: 1, as: UInt64.self)
        out.storeBytes(of: trailing.littleEndian, toByteOffset: 9, as: UInt64.self)
        out.storeBytes(of: UInt8(ascii: "\""), toByteOffset: length &+ 1, as: UInt8.self)
        count &+= length &+ 2
        return true
    }
    #endif

    /// The rest of ``appendString(_:)`` from the first byte that needs an escape (the opening quote is written
    /// but not counted yet).
    @usableFromInline
    mutating func appendEscaped(_ source: UnsafePointer<UInt8>, _ length: Int, from first: Int) {
        count &+= 1
        var runStart = 0, index = first
        while index < length {
            appendRaw(source + runStart, index &- runStart)
            appendEscape(source[index])
            runStart = index &+ 1
            index = WireBuffer.firstToEscape(source, length, from: runStart)
        }
        appendRaw(source + runStart, length &- runStart)
        append(byte: UInt8(ascii: "\""))
    }

    @usableFromInline
    mutating func appendRaw(_ source: UnsafePointer<UInt8>, _ length: Int) {
        reserve(length)
        (base + count).update(from: source, count: length)
        count &+= length
    }

    @usableFromInline
    mutating func appendEscape(_ code: UInt8) {
        switch code {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case 0x08: append("\\b")
        case 0x0C: append("\\f")
        case 0x0A: append("\\n")
        case 0x0D: append("\\r")
        case 0x09: append("\\t")
        default:
            let hex: StaticString = "0123456789abcdef"
            append("\\u00")
            append(byte: hex.utf8Start[Int(code >> 4)])
            append(byte: hex.utf8Start[Int(code & 0xF)])
        }
    }

    /// The index of the first byte at or after `start` that JSON requires escaped (a quote, a backslash, a
    /// control character), or `length`: eight bytes at a time with bit tricks, then byte by byte.
    @inlinable @inline(__always)
    static func firstToEscape(_ source: UnsafePointer<UInt8>, _ length: Int, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while index &+ 8 <= length {
            let word = UInt64(littleEndian: UnsafeRawPointer(source + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // Bytes of 0x80 and above pass through unescaped, so `~word` keeps them unflagged.
            let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)) & highs
            if special != 0 { return index &+ special.trailingZeroBitCount >> 3 }
            index &+= 8
        }
        while index < length {
            let code = source[index]
            if code < 0x20 || code == UInt8(ascii: "\"") || code == UInt8(ascii: "\\") { return index }
            index &+= 1
        }
        return index
    }

    /// Appends `value` in decimal.
    @inlinable
    public mutating func appendUInt(_ value: UInt64) {
        reserve(20)
        count &+= WireBuffer.writeDecimal(value, to: base + count)
    }

    /// Appends `value` in decimal, with `-` when negative.
    @inlinable
    public mutating func appendInt(_ value: Int64) {
        reserve(20)
        var out = base + count
        if value < 0 {
            out[0] = UInt8(ascii: "-")
            out += 1
            count &+= 1
        }
        count &+= WireBuffer.writeDecimal(value.magnitude, to: out)
    }

    /// Writes the decimal digits of `value` to `out` (room for 20 bytes); returns how many.
    @inlinable @inline(__always)
    static func writeDecimal(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        var digits = 1, bound: UInt64 = 10
        while digits < 20, value >= bound {
            digits &+= 1
            bound &*= 10
        }
        var value = value, offset = digits
        repeat {
            offset &-= 1
            out[offset] = UInt8(truncatingIfNeeded: value % 10) &+ 48
            value /= 10
        } while offset > 0
        return digits
    }

    /// Appends `value` as a JSON string of its plain text: `"1298.99"` for money.
    @inlinable
    public mutating func appendText<W: WireText>(_ value: W) {
        reserve(W.maxWireTextLength &+ 2)
        let out = base + count
        out[0] = UInt8(ascii: "\"")
        let length = value.writeWireText(to: out + 1)
        out[length &+ 1] = UInt8(ascii: "\"")
        count &+= length &+ 2
    }

    /// Appends `date` as a JSON string of ``WireDate`` text; `cache` keeps the text of the current minute, so
    /// dates of one minute cost their seconds and milliseconds only.
    @inlinable
    public mutating func appendDate(_ date: Date, cache: inout WireDateCache) {
        reserve(WireDate.maxLength &+ 2)
        let out = base + count
        out[0] = UInt8(ascii: "\"")
        let length = WireDate.write(date, cache: &cache, to: out + 1)
        out[length &+ 1] = UInt8(ascii: "\"")
        count &+= length &+ 2
    }

    /// Lends the bytes written; they stay valid only during `body`.
    @inlinable
    public func withBytes<R, E: Error>(_ body: (UnsafeRawBufferPointer) throws(E) -> R) throws(E) -> R {
        try body(UnsafeRawBufferPointer(start: base, count: count))
    }
}
