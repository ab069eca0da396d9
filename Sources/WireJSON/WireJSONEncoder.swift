import Foundation
import Synchronization

/// Encodes `Encodable` values as Tickwire's wire JSON, several times faster than Foundation's
/// `JSONEncoder` (bench/PROFILE.md); Foundation's `JSONDecoder` reads back the same values.
///
/// It writes straight into one byte buffer as the value's `encode(to:)` runs, instead of
/// building a tree of boxes first. Keys come out in the order they are encoded; dates as
/// ``WireDate`` text, ``WireText`` values (money) as plain strings, `Data` as base64, `URL` as its
/// absolute string, `Decimal` as a number, slashes unescaped. Containers must be used in the
/// order they were made (as every synthesized `Codable` does): writing to a container after a
/// later sibling container was made throws rather than producing wrong JSON.
public struct WireJSONEncoder: Sendable {
    /// An encoder.
    public init() {}

    /// Encodes `value` as JSON text. Throws `EncodingError` for a non-finite `Double` or `Float`
    /// (JSON has none) and for containers used out of order.
    ///
    /// Inlinable: specialized where the type is known, a ``WireEncodable`` value is written without
    /// a conformance look-up at run time (bench/PROFILE.md).
    @inlinable
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        var writer = JSONWriter.take()
        defer { JSONWriter.recycle(&writer) }
        try writer.value(value, key: .none)
        try writer.finish()
        return writer.takeData()
    }
}

/// The output buffer and the stack of open containers, shared by every container of one encoding.
///
/// All mutable state sits behind one pointer: containers touch it constantly, and stored
/// `var`s of a class would pay a dynamic exclusivity check on every access.
@usableFromInline
final class JSONWriter: @unchecked Sendable {
    // @unchecked: one encoding uses a writer at a time; ``spare`` hands it to the next under its lock.
    @usableFromInline
    enum FrameKind: UInt8 {
        /// Nothing written yet: closing writes `{}`, as Foundation does for an empty encoding.
        case pending
        case object, array
        /// A single value was written.
        case scalar
    }

    /// One value being encoded.
    @usableFromInline
    struct Frame {
        var kind: FrameKind
        /// Elements written so far (objects and arrays).
        @usableFromInline
        var count: Int
        /// Tells a frame from an earlier one at the same depth.
        @usableFromInline
        var serial: Int
        /// Its key in the parent, for coding paths.
        var key: FrameKey
    }

    /// A frame's key in its parent, for coding paths: a ``WireEncodable`` member's name is kept as it is, since
    /// copying an existential for every nested object cost more than writing the object's brackets.
    @usableFromInline
    enum FrameKey {
        case none
        case name(StaticString)
        case key(any CodingKey)

        var codingKey: (any CodingKey)? {
            switch self {
            case .none: nil
            case .name(let name): StaticKey(name: name)
            case .key(let key): key
            }
        }
    }

    @usableFromInline
    struct State {
        @usableFromInline
        var buffer: UnsafeMutablePointer<UInt8>
        @usableFromInline
        var count = 0
        @usableFromInline
        var capacity: Int
        /// The open frames, innermost last.
        @usableFromInline
        var frames = PointerBuffer<Frame>(capacity: 8)
        var nextSerial = 0
        /// The first misuse found where the protocol gives no way to throw; reported by ``finish()``.
        var failure: EncodingError?
        /// Whether `failure` is set: checking a `Bool` costs nothing, copying or clearing an optional
        /// `EncodingError` costs a call on every encoding (bench/PROFILE.md).
        var failed = false
    }

    @usableFromInline
    let state: UnsafeMutablePointer<State>

    @usableFromInline
    init() {
        state = .allocate(capacity: 1)
        // Room for a typical stream message (an envelope with a quote is about 270 bytes) without growing.
        let capacity = 512
        state.initialize(to: State(buffer: .allocate(capacity: capacity), capacity: capacity))
    }

    deinit {
        state.pointee.buffer.deallocate()
        state.pointee.frames.deallocate()
        state.deinitialize(count: 1)
        state.deallocate()
    }

    /// Writers kept for the next encodings, so a steady stream of encodings allocates no writer (its object,
    /// state, buffer and frame stack: four allocations per message, bench/PROFILE.md). One slot per thread as far
    /// as the slots go, chosen by the thread's identity and taken only when free: threads encoding at once (four
    /// feed plugins' senders in one process) neither wait for one another's lock nor share one spare writer, which
    /// made every encoding but one allocate a writer and every lock a futex call (tickwire-bench 10 under perf).
    private static let spares: [SpareWriter] = (0..<spareSlots).map { _ in SpareWriter() }

    /// One slot of ``spares``.
    private final class SpareWriter: Sendable {
        let writer = Mutex<JSONWriter?>(nil)
    }

    /// How many spare writers are kept (a power of two).
    private static let spareSlots = 16

    /// Buffers larger than this are not kept for the next encoding.
    private static let largestKeptCapacity = 64 * 1024

    /// The calling thread's slot of ``spares``: its identity, mixed so that threads' neighbouring addresses spread.
    private static var spareSlot: Int {
        #if canImport(Darwin)
        let identity = UInt(bitPattern: pthread_self())
        #else
        let identity = UInt(pthread_self())
        #endif
        return Int(truncatingIfNeeded: (UInt64(identity) &* 0x9E37_79B9_7F4A_7C15) >> 60) & (spareSlots - 1)
    }

    /// The calling thread's spare writer, or a new one when its slot is empty or another thread holds it.
    @usableFromInline
    static func take() -> JSONWriter {
        (spares[spareSlot].writer.withLockIfAvailable { $0.take() } ?? nil) ?? JSONWriter()
    }

    /// Empties `writer` and keeps it as the calling thread's spare, unless its buffer grew past
    /// ``largestKeptCapacity`` or something still holds it (an `encode(to:)` that kept its encoder or a container):
    /// reused, the writer would reach that holder's writes. Serial numbers keep counting, so no frame of a later
    /// encoding passes for one of an earlier one.
    @usableFromInline
    static func recycle(_ writer: inout JSONWriter) {
        guard isKnownUniquelyReferenced(&writer), writer.state.pointee.capacity <= largestKeptCapacity else { return }
        writer.state.pointee.count = 0
        writer.state.pointee.frames.removeAll()
        if writer.state.pointee.failed {
            writer.state.pointee.failure = nil
            writer.state.pointee.failed = false
        }
        let kept = writer
        _ = spares[spareSlot].writer.withLockIfAvailable { $0 = kept }
    }

    /// The bytes written, as `Data` that owns a copy.
    @usableFromInline
    func takeData() -> Data {
        Data(bytes: state.pointee.buffer, count: state.pointee.count)
    }

    /// Throws the first misuse recorded by a non-throwing container call.
    @usableFromInline
    func finish() throws {
        if state.pointee.failed, let failure = state.pointee.failure { throw failure }
    }

    // MARK: Bytes

    @inline(__always)
    private func reserve(_ extra: Int) {
        if state.pointee.count + extra > state.pointee.capacity { grow(to: state.pointee.count + extra) }
    }

    private func grow(to needed: Int) {
        var capacity = state.pointee.capacity * 2
        while capacity < needed { capacity *= 2 }
        let larger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        larger.update(from: state.pointee.buffer, count: state.pointee.count)
        state.pointee.buffer.deallocate()
        state.pointee.buffer = larger
        state.pointee.capacity = capacity
    }

    @inline(__always)
    func byte(_ byte: UInt8) {
        reserve(1)
        state.pointee.buffer[state.pointee.count] = byte
        state.pointee.count += 1
    }

    @inline(__always)
    func bytes(_ bytes: UnsafeBufferPointer<UInt8>) {
        reserve(bytes.count)
        if let base = bytes.baseAddress, bytes.count > 0 {
            (state.pointee.buffer + state.pointee.count).update(from: base, count: bytes.count)
        }
        state.pointee.count += bytes.count
    }

    func literal(_ text: StaticString) {
        bytes(UnsafeBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    /// A JSON string with the escapes JSON requires (quote, backslash, control characters).
    @usableFromInline
    func string(_ text: String) {
        var text = text
        text.withUTF8 { utf8 in
            reserve(utf8.count + 2)
            byte(UInt8(ascii: "\""))
            var runStart = 0
            var index = firstToEscape(in: utf8, from: 0)
            while index < utf8.count {
                bytes(UnsafeBufferPointer(rebasing: utf8[runStart..<index]))
                escape(utf8[index])
                runStart = index + 1
                index = firstToEscape(in: utf8, from: runStart)
            }
            bytes(UnsafeBufferPointer(rebasing: utf8[runStart...]))
            byte(UInt8(ascii: "\""))
        }
    }

    /// The index of the first byte at or after `start` that JSON requires escaped (a quote, a backslash,
    /// a control character), or the count: eight bytes at a time with bit tricks, then byte by byte.
    @inline(__always)
    private func firstToEscape(in utf8: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        var index = start
        while index + 8 <= utf8.count {
            let word = UInt64(littleEndian: UnsafeRawPointer(utf8.baseAddress! + index).loadUnaligned(as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // Bytes of 0x80 and above pass through unescaped, so `~word` keeps them unflagged.
            let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word)) & highs
            if special != 0 { return index + special.trailingZeroBitCount >> 3 }
            index += 8
        }
        while index < utf8.count {
            let code = utf8[index]
            if code < 0x20 || code == UInt8(ascii: "\"") || code == UInt8(ascii: "\\") { return index }
            index += 1
        }
        return index
    }

    private func escape(_ code: UInt8) {
        switch code {
        case UInt8(ascii: "\""): literal("\\\"")
        case UInt8(ascii: "\\"): literal("\\\\")
        case 0x08: literal("\\b")
        case 0x0C: literal("\\f")
        case 0x0A: literal("\\n")
        case 0x0D: literal("\\r")
        case 0x09: literal("\\t")
        default:
            let hex: StaticString = "0123456789abcdef"
            literal("\\u00")
            byte(hex.utf8Start[Int(code >> 4)])
            byte(hex.utf8Start[Int(code & 0xF)])
        }
    }

    func integer<T: FixedWidthInteger>(_ value: T) {
        var magnitude = value.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 40) { digits in
            var position = digits.count
            repeat {
                position -= 1
                digits[position] = UInt8(truncatingIfNeeded: magnitude % 10) &+ 48
                magnitude /= 10
            } while magnitude > 0
            if value < 0 {
                position -= 1
                digits[position] = UInt8(ascii: "-")
            }
            bytes(UnsafeBufferPointer(rebasing: digits[position...]))
        }
    }

    /// A finite binary floating-point number, shortest round-trip digits; `1.0` is written `1` as Foundation does.
    func float<T: BinaryFloatingPoint & CustomStringConvertible>(_ value: T, path: @autoclosure () -> [any CodingKey]) throws {
        guard value.isFinite else {
            throw EncodingError.invalidValue(value, .init(
                codingPath: path(), debugDescription: "Unable to encode \(T.self).\(value) directly in JSON."))
        }
        var text = value.description
        if text.hasSuffix(".0") { text.removeLast(2) }
        text.withUTF8 { bytes($0) }
    }

    // MARK: Values

    /// Writes `value`: the common scalar types and `[String]` directly, ``WireEncodable`` types member by member,
    /// anything else through its `encode(to:)`.
    ///
    /// Inlinable, so a ``WireEncodable`` member's type is known where it is written and this chain of
    /// type checks folds into one direct call (bench/PROFILE.md).
    @inlinable
    func value<T: Encodable>(_ value: T, key: FrameKey) throws {
        if T.self == String.self { return string(unsafeBitCast(value, to: String.self)) }
        if T.self == Date.self { return date(unsafeBitCast(value, to: Date.self)) }
        if T.self == Int.self { return int(unsafeBitCast(value, to: Int.self)) }
        if T.self == UInt64.self { return uint64(unsafeBitCast(value, to: UInt64.self)) }
        if T.self == Bool.self { return bool(unsafeBitCast(value, to: Bool.self)) }
        // Specialized for a concrete type, the compiler settles these checks and the opening itself.
        if let text = T.self as? any WireText.Type {
            func write<W: WireText>(_ text: W.Type) { self.text(unsafeBitCast(value, to: W.self)) }
            return write(text)
        }
        if let wire = T.self as? any WireEncodable.Type {
            func write<W: WireEncodable>(_ wire: W.Type) throws { try object(unsafeBitCast(value, to: W.self), key: key) }
            return try write(wire)
        }
        try valueOther(value, key: key)
    }

    /// ``value(_:key:)`` for the types it does not check for itself.
    @usableFromInline
    func valueOther<T: Encodable>(_ value: T, key: FrameKey) throws {
        if T.self == Int64.self { return integer(unsafeBitCast(value, to: Int64.self)) }
        if T.self == Double.self { return try float(unsafeBitCast(value, to: Double.self), path: self.path(appending: key)) }
        if T.self == Data.self { return string(unsafeBitCast(value, to: Data.self).base64EncodedString()) }
        if T.self == URL.self { return string(unsafeBitCast(value, to: URL.self).absoluteString) }
        if T.self == Decimal.self {
            var text = unsafeBitCast(value, to: Decimal.self).description
            return text.withUTF8 { bytes($0) }
        }
        if T.self == [String].self {
            byte(UInt8(ascii: "["))
            for (position, text) in unsafeBitCast(value, to: [String].self).enumerated() {
                if position > 0 { byte(UInt8(ascii: ",")) }
                string(text)
            }
            return byte(UInt8(ascii: "]"))
        }
        let (depth, serial) = push(key: key)
        try value.encode(to: FrameEncoder(writer: self, depth: depth, serial: serial))
        close(downTo: depth)
    }

    /// A ``WireText`` value as a JSON string.
    @usableFromInline
    func text<W: WireText>(_ value: W) {
        reserve(W.maxWireTextLength + 2)
        let out = state.pointee.buffer + state.pointee.count
        out[0] = UInt8(ascii: "\"")
        let length = value.writeWireText(to: out + 1)
        out[length + 1] = UInt8(ascii: "\"")
        state.pointee.count += length + 2
    }

    /// A date as ``WireDate`` text.
    @usableFromInline
    func date(_ value: Date) {
        byte(UInt8(ascii: "\""))
        WireDate.write(value) { bytes($0) }
        byte(UInt8(ascii: "\""))
    }

    @usableFromInline
    func int(_ value: Int) { integer(value) }

    @usableFromInline
    func uint64(_ value: UInt64) { integer(value) }

    @usableFromInline
    func bool(_ value: Bool) { value ? literal("true") : literal("false") }

    // MARK: Frames

    /// Opens a frame for one value, writing its opening bracket if it is an object or an array,
    /// and returns its depth and serial.
    @usableFromInline
    func push(key: FrameKey, kind: FrameKind = .pending) -> (Int, Int) {
        let serial = state.pointee.nextSerial
        state.pointee.nextSerial += 1
        state.pointee.frames.append(Frame(kind: kind, count: 0, serial: serial, key: key))
        if kind == .object { byte(UInt8(ascii: "{")) } else if kind == .array { byte(UInt8(ascii: "[")) }
        return (state.pointee.frames.count - 1, serial)
    }

    /// Closes every frame from the top down to `depth`, inclusive.
    @usableFromInline
    func close(downTo depth: Int) {
        while state.pointee.frames.count > depth {
            switch state.pointee.frames.removeLast().kind {
            case .pending: literal("{}")
            case .object: byte(UInt8(ascii: "}"))
            case .array: byte(UInt8(ascii: "]"))
            case .scalar: break
            }
        }
    }

    /// Whether frame `depth` is still the one with `serial` (closing any finished frames above it).
    @inline(__always)
    func isCurrent(depth: Int, serial: Int) -> Bool {
        guard depth < state.pointee.frames.count, state.pointee.frames.base[depth].serial == serial else { return false }
        // Usually `depth` is the innermost frame already (every member of a `WireEncodable` is written so).
        if depth + 1 < state.pointee.frames.count { close(downTo: depth + 1) }
        return true
    }

    /// Makes frame `depth` an object or array (writing its opening bracket) if nothing is written yet.
    func open(_ kind: FrameKind, depth: Int, serial: Int) {
        guard isCurrent(depth: depth, serial: serial) else { return misuse(depth: depth) }
        let current = state.pointee.frames.base[depth].kind
        if current == .pending {
            state.pointee.frames.base[depth].kind = kind
            byte(kind == .object ? UInt8(ascii: "{") : UInt8(ascii: "["))
        } else if current != kind {
            misuse(depth: depth, "a \(kind) container was requested where a \(current) value is already encoded")
        }
    }

    /// Starts the next element of container `depth`: its comma, and its key in an object.
    func element(depth: Int, serial: Int, key: (any CodingKey)?) throws {
        try advance(depth: depth, serial: serial, key: key?.stringValue ?? "")
        if let key {
            string(key.stringValue)
            byte(UInt8(ascii: ":"))
        }
    }

    /// Starts the next member of object `depth` under `key`, a name that needs no escaping.
    ///
    /// Inlined where a ``WireEncodable`` type writes its members: there the key is a constant, so its
    /// quoted form and the colon are a few stores. The usual case (`depth` is the innermost frame, and
    /// the buffer has room) costs no call; anything else goes through ``memberInFull(_:depth:serial:)``.
    @inlinable @inline(__always)
    func member(_ key: StaticString, depth: Int, serial: Int) throws {
        let length = key.utf8CodeUnitCount
        guard depth == state.pointee.frames.count - 1, state.pointee.frames.base[depth].serial == serial,
            state.pointee.count + length + 4 <= state.pointee.capacity
        else { return try memberInFull(key, depth: depth, serial: serial) }
        var out = state.pointee.buffer + state.pointee.count
        if state.pointee.frames.base[depth].count > 0 {
            out[0] = UInt8(ascii: ",")
            out += 1
        }
        state.pointee.frames.base[depth].count += 1
        writeKey(key, at: out)
        state.pointee.count = out + length + 3 - state.pointee.buffer
    }

    /// Writes `key` quoted and its colon at `out`, which has room for them (the key's length and 3 more).
    @inlinable @inline(__always)
    func writeKey(_ key: StaticString, at out: UnsafeMutablePointer<UInt8>) {
        let length = key.utf8CodeUnitCount
        out[0] = UInt8(ascii: "\"")
        (out + 1).update(from: key.utf8Start, count: length)
        out[length + 1] = UInt8(ascii: "\"")
        out[length + 2] = UInt8(ascii: ":")
    }

    /// ``member(_:depth:serial:)`` with every check: closing finished frames above `depth`, growing the
    /// buffer, or throwing when a later container was made since.
    @usableFromInline
    func memberInFull(_ key: StaticString, depth: Int, serial: Int) throws {
        try advance(depth: depth, serial: serial, key: key.description)
        reserve(key.utf8CodeUnitCount + 3)
        writeKey(key, at: state.pointee.buffer + state.pointee.count)
        state.pointee.count += key.utf8CodeUnitCount + 3
    }

    /// Writes the comma before every element but the first of container `depth`; throws if a later
    /// container was made since (`key` names the element in the error).
    @inline(__always)
    private func advance(depth: Int, serial: Int, key: @autoclosure () -> String) throws {
        guard isCurrent(depth: depth, serial: serial) else {
            throw EncodingError.invalidValue(key(), .init(codingPath: path(to: depth), debugDescription: outOfOrder))
        }
        if state.pointee.frames.base[depth].count > 0 { byte(UInt8(ascii: ",")) }
        state.pointee.frames.base[depth].count += 1
    }

    /// Claims frame `depth` for a single value; throws if it already holds one.
    func single(depth: Int, serial: Int) throws {
        guard isCurrent(depth: depth, serial: serial), state.pointee.frames.base[depth].kind == .pending else {
            throw EncodingError.invalidValue("", .init(
                codingPath: path(to: depth), debugDescription: "a single value container can encode one value, once"))
        }
        state.pointee.frames.base[depth].kind = .scalar
    }

    private let outOfOrder = "containers were used out of order: a container was written to after a later one was made"

    /// Keeps the first error of a call that cannot throw, for ``finish()``.
    func record(_ error: any Error) {
        guard !state.pointee.failed, let error = error as? EncodingError else { return }
        state.pointee.failure = error
        state.pointee.failed = true
    }

    private func misuse(depth: Int, _ reason: String? = nil) {
        record(EncodingError.invalidValue("", .init(
            codingPath: path(to: min(depth, state.pointee.frames.count - 1)), debugDescription: reason ?? outOfOrder)))
    }

    /// The coding path of frame `depth`.
    func path(to depth: Int) -> [any CodingKey] {
        guard depth >= 0 else { return [] }
        let frames = state.pointee.frames
        return UnsafeBufferPointer(start: frames.base, count: min(depth, frames.count - 1) + 1).compactMap(\.key.codingKey)
    }

    private func path(appending key: FrameKey) -> [any CodingKey] {
        path(to: state.pointee.frames.count - 1) + (key.codingKey.map { [$0] } ?? [])
    }
}

// MARK: - Encoder and containers

/// The ten integer `encode` requirements that unkeyed and single-value containers share, written once.
private protocol IntegerEncoding {
    mutating func integer<T: FixedWidthInteger>(_ value: T) throws
}

extension IntegerEncoding {
    mutating func encode(_ value: Int) throws { try integer(value) }
    mutating func encode(_ value: Int8) throws { try integer(value) }
    mutating func encode(_ value: Int16) throws { try integer(value) }
    mutating func encode(_ value: Int32) throws { try integer(value) }
    mutating func encode(_ value: Int64) throws { try integer(value) }
    mutating func encode(_ value: UInt) throws { try integer(value) }
    mutating func encode(_ value: UInt8) throws { try integer(value) }
    mutating func encode(_ value: UInt16) throws { try integer(value) }
    mutating func encode(_ value: UInt32) throws { try integer(value) }
    mutating func encode(_ value: UInt64) throws { try integer(value) }
}

/// The `Encoder` for one value: three words, so passing it as `any Encoder` allocates nothing.
private struct FrameEncoder: Encoder {
    let writer: JSONWriter
    let depth: Int
    let serial: Int

    var codingPath: [any CodingKey] { writer.path(to: depth) }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    func container<Key: CodingKey>(keyedBy type: Key.Type) -> KeyedEncodingContainer<Key> {
        writer.open(.object, depth: depth, serial: serial)
        return KeyedEncodingContainer(KeyedContainer<Key>(writer: writer, depth: depth, serial: serial))
    }

    func unkeyedContainer() -> any UnkeyedEncodingContainer {
        writer.open(.array, depth: depth, serial: serial)
        return UnkeyedContainer(writer: writer, depth: depth, serial: serial)
    }

    func singleValueContainer() -> any SingleValueEncodingContainer {
        SingleValueContainer(writer: writer, depth: depth, serial: serial)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedEncodingContainerProtocol {
    let writer: JSONWriter
    let depth: Int
    let serial: Int

    var codingPath: [any CodingKey] { writer.path(to: depth) }

    mutating func encodeNil(forKey key: Key) throws {
        try writer.element(depth: depth, serial: serial, key: key)
        writer.literal("null")
    }

    mutating func encode(_ value: String, forKey key: Key) throws {
        try writer.element(depth: depth, serial: serial, key: key)
        writer.string(value)
    }

    mutating func encode(_ value: Bool, forKey key: Key) throws {
        try writer.element(depth: depth, serial: serial, key: key)
        value ? writer.literal("true") : writer.literal("false")
    }

    mutating func encode(_ value: Int, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: Int64, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt8, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt16, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt32, forKey key: Key) throws { try integer(value, key) }
    mutating func encode(_ value: UInt64, forKey key: Key) throws { try integer(value, key) }

    private func integer<T: FixedWidthInteger>(_ value: T, _ key: Key) throws {
        try writer.element(depth: depth, serial: serial, key: key)
        writer.integer(value)
    }

    mutating func encode(_ value: Double, forKey key: Key) throws {
        try writer.element(depth: depth, serial: serial, key: key)
        try writer.float(value, path: codingPath + [key])
    }

    mutating func encode(_ value: Float, forKey key: Key) throws {
        try writer.element(depth: depth, serial: serial, key: key)
        try writer.float(value, path: codingPath + [key])
    }

    mutating func encode<T: Encodable>(_ value: T, forKey key: Key) throws {
        try writer.element(depth: depth, serial: serial, key: key)
        try writer.value(value, key: .key(key))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type, forKey key: Key) -> KeyedEncodingContainer<NestedKey> {
        let (depth, serial) = nested(key, kind: .object)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, depth: depth, serial: serial))
    }

    mutating func nestedUnkeyedContainer(forKey key: Key) -> any UnkeyedEncodingContainer {
        let (depth, serial) = nested(key, kind: .array)
        return UnkeyedContainer(writer: writer, depth: depth, serial: serial)
    }

    mutating func superEncoder() -> any Encoder { superEncoder(key: WireCodingKey.superKey) }

    mutating func superEncoder(forKey key: Key) -> any Encoder { superEncoder(key: key) }

    private func superEncoder(key: any CodingKey) -> any Encoder {
        let (depth, serial) = nested(key, kind: .pending)
        return FrameEncoder(writer: writer, depth: depth, serial: serial)
    }

    private func nested(_ key: any CodingKey, kind: JSONWriter.FrameKind) -> (Int, Int) {
        do {
            try writer.element(depth: depth, serial: serial, key: key)
        } catch {
            writer.record(error)
        }
        return writer.push(key: .key(key), kind: kind)
    }
}

private struct UnkeyedContainer: UnkeyedEncodingContainer, IntegerEncoding {
    let writer: JSONWriter
    let depth: Int
    let serial: Int
    private(set) var count = 0

    init(writer: JSONWriter, depth: Int, serial: Int) {
        self.writer = writer
        self.depth = depth
        self.serial = serial
    }

    var codingPath: [any CodingKey] { writer.path(to: depth) }

    private mutating func next() throws {
        try writer.element(depth: depth, serial: serial, key: nil)
        count += 1
    }

    mutating func encodeNil() throws {
        try next()
        writer.literal("null")
    }

    mutating func encode(_ value: String) throws {
        try next()
        writer.string(value)
    }

    mutating func encode(_ value: Bool) throws {
        try next()
        value ? writer.literal("true") : writer.literal("false")
    }

    mutating func encode(_ value: Double) throws {
        let index = count
        try next()
        try writer.float(value, path: codingPath + [WireCodingKey(intValue: index)])
    }

    mutating func encode(_ value: Float) throws {
        let index = count
        try next()
        try writer.float(value, path: codingPath + [WireCodingKey(intValue: index)])
    }

    mutating func integer<T: FixedWidthInteger>(_ value: T) throws {
        try next()
        writer.integer(value)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        let index = count
        try next()
        try writer.value(value, key: .key(WireCodingKey(intValue: index)))
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy keyType: NestedKey.Type) -> KeyedEncodingContainer<NestedKey> {
        let (depth, serial) = nested(kind: .object)
        return KeyedEncodingContainer(KeyedContainer<NestedKey>(writer: writer, depth: depth, serial: serial))
    }

    mutating func nestedUnkeyedContainer() -> any UnkeyedEncodingContainer {
        let (depth, serial) = nested(kind: .array)
        return UnkeyedContainer(writer: writer, depth: depth, serial: serial)
    }

    mutating func superEncoder() -> any Encoder {
        let (depth, serial) = nested(kind: .pending)
        return FrameEncoder(writer: writer, depth: depth, serial: serial)
    }

    private mutating func nested(kind: JSONWriter.FrameKind) -> (Int, Int) {
        let index = count
        do {
            try next()
        } catch {
            writer.record(error)
        }
        return writer.push(key: .key(WireCodingKey(intValue: index)), kind: kind)
    }
}

private struct SingleValueContainer: SingleValueEncodingContainer, IntegerEncoding {
    let writer: JSONWriter
    let depth: Int
    let serial: Int

    var codingPath: [any CodingKey] { writer.path(to: depth) }

    mutating func encodeNil() throws {
        try writer.single(depth: depth, serial: serial)
        writer.literal("null")
    }

    mutating func encode(_ value: String) throws {
        try writer.single(depth: depth, serial: serial)
        writer.string(value)
    }

    mutating func encode(_ value: Bool) throws {
        try writer.single(depth: depth, serial: serial)
        value ? writer.literal("true") : writer.literal("false")
    }

    func integer<T: FixedWidthInteger>(_ value: T) throws {
        try writer.single(depth: depth, serial: serial)
        writer.integer(value)
    }

    mutating func encode(_ value: Double) throws {
        try writer.single(depth: depth, serial: serial)
        try writer.float(value, path: codingPath)
    }

    mutating func encode(_ value: Float) throws {
        try writer.single(depth: depth, serial: serial)
        try writer.float(value, path: codingPath)
    }

    mutating func encode<T: Encodable>(_ value: T) throws {
        try writer.single(depth: depth, serial: serial)
        try writer.value(value, key: .none)
    }
}
