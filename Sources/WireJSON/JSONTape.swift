import Foundation

/// A JSON text parsed in one pass into a flat array of nodes (a "tape"), which the decoder's
/// containers then read by index without allocating.
///
/// Written by hand because Foundation's `JSONDecoder` spends most of its time in generic
/// metadata look-ups and reference counting rather than in scanning (bench/PROFILE.md), and
/// no package of the Swift server ecosystem offers a faster Codable JSON decoder. The parser is
/// strict RFC 8259: it rejects what Foundation's decoder rejects (trailing commas, comments,
/// leading zeros, control characters in strings, invalid UTF-8 or escapes, trailing garbage).
///
/// Layout: a scalar is one node; an object is its node followed by `key, value` pairs; an array
/// its node followed by its elements. Every node's ``Node/next`` is the index just past its subtree.
@usableFromInline
final class JSONTape {
    /// What a node is.
    @usableFromInline
    enum Kind: UInt8 {
        case object, array, string, number, `true`, `false`, null
    }

    /// One value of the text.
    @usableFromInline
    struct Node {
        /// Strings: first content byte (after the quote). Objects: their keys' signature, one
        /// ``keyBit(_:)`` per key (all bits when a key has escapes), so most look-ups of an absent key
        /// end at once. Others: first byte of the value.
        @usableFromInline
        var start: UInt32
        /// Strings and numbers: one past the last content byte. Objects: the member to try first
        /// on the next key look-up. Arrays: the element count.
        @usableFromInline
        var end: UInt32
        /// The index just past this node's subtree.
        @usableFromInline
        var next: UInt32
        @usableFromInline
        var kind: Kind
        /// Strings: contains a backslash escape. Numbers: has a fraction or an exponent.
        /// Objects: repeats a key.
        @usableFromInline
        var flag: Bool
        /// Objects: their keys' lengths, one ``lengthBit(_:)`` per key (all bits when a key has escapes): a
        /// second filter for absent keys, in two bytes the layout leaves free. Others: zero.
        @usableFromInline
        var lengths: UInt16 = 0
    }

    /// The text: the caller's while the decode runs (inside `withUnsafeBytes`), the tape's own copy after
    /// ``lend(_:to:)`` when something kept the tape. Changed only there, so unchecked: a class's `var`
    /// would pay an exclusivity check on every read.
    @usableFromInline @exclusivity(unchecked)
    private(set) var bytes: UnsafeRawBufferPointer
    /// The nodes, in text order. A plain pointer rather than an array: containers read it constantly,
    /// and a class's array property would pay an exclusivity check and a bounds check on every read.
    @usableFromInline @exclusivity(unchecked)
    private(set) var nodes: UnsafeMutablePointer<Node>
    /// How many nodes there are.
    let count: Int
    /// What `Decoder.userInfo` answers.
    let userInfo: [CodingUserInfoKey: Any]
    /// Who owns `nodes` when the tape only borrows them; nil when the tape owns them.
    private var owner: NodeStorage?
    /// Whether `bytes` is the tape's own copy.
    private var ownsText = false

    /// Parses the whole text or throws ``JSONSyntaxError``.
    convenience init(bytes: UnsafeRawBufferPointer, limits: WireJSONLimits, userInfo: [CodingUserInfoKey: Any]) throws(JSONSyntaxError) {
        let buffer = try Self.parse(bytes, limits: limits)
        self.init(bytes: bytes, nodes: buffer.base, count: buffer.count, userInfo: userInfo)
    }

    /// A tape over `bytes` and `nodes`, the result of ``parse(_:)`` on those bytes: it takes ownership of
    /// the nodes, or borrows them from `owner` and keeps it alive.
    init(bytes: UnsafeRawBufferPointer, nodes: UnsafeMutablePointer<Node>, count: Int, userInfo: [CodingUserInfoKey: Any], owner: NodeStorage? = nil) {
        self.bytes = bytes
        self.nodes = nodes
        self.count = count
        self.userInfo = userInfo
        self.owner = owner
    }

    /// The nodes of the whole text, or ``JSONSyntaxError`` (also for a text over `limits`).
    static func parse(_ bytes: UnsafeRawBufferPointer, limits: WireJSONLimits) throws(JSONSyntaxError) -> NodeBuffer {
        var buffer = NodeBuffer(capacity: bytes.count / 8 + 4)
        var parser = Parser(bytes: bytes, limits: limits)
        do throws(JSONSyntaxError) {
            parser.skipWhitespace()
            try parser.value(into: &buffer, depth: 0)
            parser.skipWhitespace()
            if parser.index < bytes.count { throw parser.error("unexpected text after the JSON value") }
        } catch {
            buffer.deallocate()
            throw error
        }
        return buffer
    }

    deinit {
        if owner == nil { nodes.deallocate() }
        if ownsText { bytes.deallocate() }
    }

    /// Runs `body` with `tape`, made over the caller's text for this decode alone, then ends the borrowing:
    /// when a `Decoder` or container outlived the value's `init(from:)` (the protocol allows it), the tape
    /// copies the text, which the caller is about to free, and nodes it borrowed from a document that is about
    /// to be shared, since look-ups write hints. The usual decode kept nothing, and only checks the tape's
    /// reference count.
    @inline(__always)
    static func lend<R>(_ tape: consuming JSONTape, to body: (JSONTape) throws -> R) rethrows -> R {
        defer { if !isKnownUniquelyReferenced(&tape) { tape.copyWhatItBorrows() } }
        return try body(tape)
    }

    private func copyWhatItBorrows() {
        let text = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        text.copyMemory(from: bytes)
        bytes = UnsafeRawBufferPointer(text)
        ownsText = true
        guard owner != nil else { return }
        nodes = copy(of: nodes, count: count)
        owner = nil
    }

    /// The content bytes of a string or number node.
    @inline(__always)
    func slice(_ node: Node) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(rebasing: bytes[Int(node.start)..<Int(node.end)])
    }

    /// A string node's value, unescaped.
    func string(_ node: Node) -> String {
        unescapedString(slice(node), escaped: node.flag)
    }

    /// The raw text of a node, for error messages.
    func text(_ index: Int) -> String {
        let node = nodes[index]
        switch node.kind {
        case .string: return "\"\(string(node))\""
        case .number: return String(decoding: slice(node), as: UTF8.self)
        case .object: return "an object"
        case .array: return "an array"
        case .true: return "true"
        case .false: return "false"
        case .null: return "null"
        }
    }

}

/// A string's content as a `String`, with its escapes resolved when it has any.
func unescapedString(_ content: UnsafeRawBufferPointer, escaped: Bool) -> String {
    guard escaped else { return String(decoding: content, as: UTF8.self) }
    return String(unsafeUninitializedCapacity: content.count) { out in
        unescape(content, into: out)
    }
}

/// Writes the unescaped content (already validated by the parser); returns the byte count.
func unescape(_ content: UnsafeRawBufferPointer, into out: UnsafeMutableBufferPointer<UInt8>) -> Int {
    var read = 0, written = 0
    func put(_ scalar: UInt32) {
        // Encodes one Unicode scalar as UTF-8; never longer than its escape (\uXXXX is 6 bytes).
        switch scalar {
        case ..<0x80:
            out[written] = UInt8(scalar); written += 1
        case ..<0x800:
            out[written] = UInt8(0xC0 | (scalar >> 6)); out[written + 1] = UInt8(0x80 | (scalar & 0x3F)); written += 2
        case ..<0x10000:
            out[written] = UInt8(0xE0 | (scalar >> 12)); out[written + 1] = UInt8(0x80 | ((scalar >> 6) & 0x3F))
            out[written + 2] = UInt8(0x80 | (scalar & 0x3F)); written += 3
        default:
            out[written] = UInt8(0xF0 | (scalar >> 18)); out[written + 1] = UInt8(0x80 | ((scalar >> 12) & 0x3F))
            out[written + 2] = UInt8(0x80 | ((scalar >> 6) & 0x3F)); out[written + 3] = UInt8(0x80 | (scalar & 0x3F))
            written += 4
        }
    }
    func hex4(_ at: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | UInt32(hexValue(content[at + offset])) }
        return value
    }
    while read < content.count {
        let byte = content[read]
        guard byte == UInt8(ascii: "\\") else {
            out[written] = byte
            written += 1
            read += 1
            continue
        }
        let escape = content[read + 1]
        read += 2
        switch escape {
        case UInt8(ascii: "b"): put(0x08)
        case UInt8(ascii: "f"): put(0x0C)
        case UInt8(ascii: "n"): put(0x0A)
        case UInt8(ascii: "r"): put(0x0D)
        case UInt8(ascii: "t"): put(0x09)
        case UInt8(ascii: "u"):
            let unit = hex4(read)
            read += 4
            if unit & 0xFC00 == 0xD800 {
                let low = hex4(read + 2)
                read += 6
                put(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))
            } else {
                put(unit)
            }
        default: put(UInt32(escape))  // " \ /
        }
    }
    return written
}

/// A new allocation holding a copy of `count` nodes from `nodes`.
private func copy(of nodes: UnsafeMutablePointer<JSONTape.Node>, count: Int) -> UnsafeMutablePointer<JSONTape.Node> {
    let copy = UnsafeMutablePointer<JSONTape.Node>.allocate(capacity: count)
    copy.initialize(from: nodes, count: count)
    return copy
}

/// The parser's growable node array, which it hands to the tape's storage.
typealias NodeBuffer = PointerBuffer<JSONTape.Node>

/// Which of an object signature's 32 bits a key's (unescaped) bytes set: a cheap mix of its length
/// and three of its bytes, enough to tell apart the few keys of a message.
@inlinable @inline(__always)
func keyBit(_ key: UnsafeRawBufferPointer) -> UInt32 {
    guard !key.isEmpty else { return 0 }
    let mixed = UInt32(key.count) ^ UInt32(key[0]) << 1 ^ UInt32(key[key.count - 1]) << 2 ^ UInt32(key[key.count / 2])
    return mixed & 31
}

/// Which of an object's 16 length bits a key of `count` (unescaped) bytes sets.
@inlinable @inline(__always)
func lengthBit(_ count: Int) -> UInt16 { 1 << UInt16(count & 15) }

/// Where and why a text is not valid JSON.
public struct JSONSyntaxError: Error, CustomStringConvertible, Sendable {
    /// The byte offset of the problem.
    public var offset: Int
    /// What is wrong.
    public var reason: String
    /// The limit the text crossed, when that is what is wrong.
    public var limit: WireJSONLimits.Limit?

    public init(offset: Int, reason: String, limit: WireJSONLimits.Limit? = nil) {
        self.offset = offset
        self.reason = reason
        self.limit = limit
    }

    public var description: String { "\(reason) at byte \(offset)" }
}

@inline(__always)
private func hexValue(_ byte: UInt8) -> UInt8 {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): byte &- UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): byte &- UInt8(ascii: "a") &+ 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): byte &- UInt8(ascii: "A") &+ 10
    default: 0xFF
    }
}

/// The recursive-descent scanner behind ``JSONTape``.
private struct Parser {
    let bytes: UnsafeRawBufferPointer
    var index = 0
    /// Nesting deeper than `limits.maxDepth` is refused rather than risking the stack.
    let limits: WireJSONLimits

    init(bytes: UnsafeRawBufferPointer, limits: WireJSONLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    func error(_ reason: String, at offset: Int? = nil) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset ?? index, reason: reason)
    }

    func error(exceeding limit: WireJSONLimits.Limit, at offset: Int) -> JSONSyntaxError {
        JSONSyntaxError(offset: offset, reason: limit.description, limit: limit)
    }

    @inline(__always)
    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x0A, 0x0D, 0x09: index += 1
            default: return
            }
        }
    }

    /// Inlined where objects and arrays read their members, so a scalar costs no call; only a nested
    /// object or array is a call (and the recursion).
    @inline(__always)
    mutating func value(into nodes: inout NodeBuffer, depth: Int) throws(JSONSyntaxError) {
        guard index < bytes.count else { throw error("unexpected end of text") }
        switch bytes[index] {
        case UInt8(ascii: "{"): try object(into: &nodes, depth: depth + 1)
        case UInt8(ascii: "["): try array(into: &nodes, depth: depth + 1)
        case UInt8(ascii: "\""): try string(into: &nodes)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number(into: &nodes)
        case UInt8(ascii: "t"): try literal("true", .true, into: &nodes)
        case UInt8(ascii: "f"): try literal("false", .false, into: &nodes)
        case UInt8(ascii: "n"): try literal("null", .null, into: &nodes)
        default: throw error("unexpected character '\(printable(bytes[index]))'")
        }
    }

    private func printable(_ byte: UInt8) -> String {
        byte >= 0x20 && byte < 0x7F ? String(UnicodeScalar(byte)) : "\\u{\(String(byte, radix: 16))}"
    }

    @inline(never)
    private mutating func object(into nodes: inout NodeBuffer, depth: Int) throws(JSONSyntaxError) {
        guard depth <= limits.maxDepth else { throw error(exceeding: .depth(limits.maxDepth), at: index) }
        let at = nodes.count
        nodes.append(.init(start: 0, end: UInt32(at + 1), next: 0, kind: .object, flag: false))
        var signature: UInt32 = 0, lengths: UInt16 = 0, members = 0
        /// Whether a key repeats; `nil` while that is left to ``hasDuplicateKeysBySet(object:in:)``.
        var repeated: Bool? = false
        index += 1
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
            index += 1
        } else {
            while true {
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else {
                    throw error(index < bytes.count ? "expected a quoted key" : "unexpected end of text")
                }
                try string(into: &nodes)
                let keyIndex = nodes.count - 1
                let key = nodes.base[keyIndex]
                members += 1
                if key.flag || members > 32 {
                    // Escaped keys compare unescaped, and many members would make comparing pairs slow.
                    signature = key.flag ? ~0 : signature | 1 << keyBit(content(of: key))
                    lengths = key.flag ? ~0 : lengths | lengthBit(Int(key.end &- key.start))
                    repeated = nil
                } else {
                    let bit: UInt32 = 1 << keyBit(content(of: key))
                    // A key whose bit is new cannot repeat an earlier one: only a shared bit calls for comparisons.
                    if signature & bit != 0, repeated == false { repeated = repeats(keyIndex, inObject: at, in: nodes) }
                    signature |= bit
                    lengths |= lengthBit(Int(key.end &- key.start))
                }
                skipWhitespace()
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
                index += 1
                skipWhitespace()
                try value(into: &nodes, depth: depth)
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of text") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    // One trailing comma is accepted, as Foundation's decoder accepts it.
                    if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
                        index += 1
                        break
                    }
                } else if bytes[index] == UInt8(ascii: "}") {
                    index += 1
                    break
                } else {
                    throw error("expected ',' or '}' in an object")
                }
            }
        }
        nodes.base[at].next = UInt32(nodes.count)
        nodes.base[at].start = signature
        nodes.base[at].lengths = lengths
        // An object that repeats a key is read first-wins, as Foundation reads it, by a slower look-up;
        // checked here so every other object keeps the fast one.
        nodes.base[at].flag = repeated ?? hasDuplicateKeysBySet(object: at, in: nodes)
    }

    /// The content bytes of an unescaped string node.
    @inline(__always)
    private func content(of node: JSONTape.Node) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: bytes.baseAddress! + Int(node.start), count: Int(node.end &- node.start))
    }

    /// Whether the unescaped key at `keyIndex` equals a key before it in the object at `object`.
    private func repeats(_ keyIndex: Int, inObject object: Int, in nodes: NodeBuffer) -> Bool {
        let key = content(of: nodes.base[keyIndex])
        var earlier = object + 1
        while earlier < keyIndex {
            let other = content(of: nodes.base[earlier])
            if other.count == key.count, key.isEmpty || memcmp(other.baseAddress!, key.baseAddress!, key.count) == 0 {
                return true
            }
            earlier = Int(nodes.base[earlier + 1].next)
        }
        return false
    }

    /// Whether the object at `object` repeats a key, through a set of the unescaped keys: for objects with escaped keys or many members.
    private func hasDuplicateKeysBySet(object: Int, in nodes: NodeBuffer) -> Bool {
        var seen = Set<String>()
        var member = object + 1
        while member < Int(nodes.base[object].next) {
            let key = nodes.base[member]
            let content = UnsafeRawBufferPointer(rebasing: bytes[Int(key.start)..<Int(key.end)])
            if !seen.insert(unescapedString(content, escaped: key.flag)).inserted { return true }
            member = Int(nodes.base[member + 1].next)
        }
        return false
    }

    @inline(never)
    private mutating func array(into nodes: inout NodeBuffer, depth: Int) throws(JSONSyntaxError) {
        guard depth <= limits.maxDepth else { throw error(exceeding: .depth(limits.maxDepth), at: index) }
        let at = nodes.count
        nodes.append(.init(start: UInt32(index), end: 0, next: 0, kind: .array, flag: false))
        index += 1
        skipWhitespace()
        var count: UInt32 = 0
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
            index += 1
        } else {
            while true {
                try value(into: &nodes, depth: depth)
                count += 1
                skipWhitespace()
                guard index < bytes.count else { throw error("unexpected end of text") }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    skipWhitespace()
                    if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
                        index += 1
                        break
                    }
                } else if bytes[index] == UInt8(ascii: "]") {
                    index += 1
                    break
                } else {
                    throw error("expected ',' or ']' in an array")
                }
            }
        }
        nodes.base[at].end = count
        nodes.base[at].next = UInt32(nodes.count)
    }

    @inline(__always)
    private mutating func string(into nodes: inout NodeBuffer) throws(JSONSyntaxError) {
        index += 1
        let start = index
        var escaped = false
        while true {
            skipPlainASCII()
            guard index < bytes.count else { throw error("unterminated string", at: start - 1) }
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                guard index - start <= limits.maxStringLength else { throw error(exceeding: .stringLength(limits.maxStringLength), at: start - 1) }
                break
            }
            if byte == UInt8(ascii: "\\") {
                escaped = true
                try escape()
            } else if byte < 0x20 {
                throw error("unescaped control character in a string")
            } else if byte < 0x80 {
                index += 1
            } else {
                try multibyte()
            }
        }
        nodes.append(.init(start: UInt32(start), end: UInt32(index), next: UInt32(nodes.count + 1), kind: .string, flag: escaped))
        index += 1
    }

    /// Steps over string bytes that need no attention (printable ASCII other than `"` and `\`)
    /// eight at a time, testing a whole word with bit tricks instead of each byte, and stops at
    /// the first byte that does need attention.
    @inline(__always)
    private mutating func skipPlainASCII() {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highs: UInt64 = 0x8080_8080_8080_8080
        while index + 8 <= bytes.count {
            let word = UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self))
            let quote = word ^ (ones &* 0x22)
            let backslash = word ^ (ones &* 0x5C)
            // A byte's high bit is set when it is zero after the XOR (a quote or backslash), below 0x20,
            // or at least 0x80. Borrows only run upwards from a flagged byte, so the lowest flag is exact.
            let special = (((quote &- ones) & ~quote) | ((backslash &- ones) & ~backslash) | ((word &- ones &* 0x20) & ~word) | word) & highs
            guard special == 0 else {
                index += special.trailingZeroBitCount >> 3
                return
            }
            index += 8
        }
    }

    /// Validates one backslash escape, including surrogate pairs.
    private mutating func escape() throws(JSONSyntaxError) {
        guard index + 1 < bytes.count else { throw error("unterminated string") }
        switch bytes[index + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"),
            UInt8(ascii: "f"), UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: index + 2)
            index += 6
            switch unit {
            case 0xD800...0xDBFF:
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u"),
                    (0xDC00...0xDFFF).contains(try hex4(at: index + 2))
                else { throw error("a high surrogate escape without its low surrogate") }
                index += 6
            case 0xDC00...0xDFFF:
                throw error("a low surrogate escape without its high surrogate")
            default:
                break
            }
        default:
            throw error("invalid escape '\\\(printable(bytes[index + 1]))'")
        }
    }

    private func hex4(at offset: Int) throws(JSONSyntaxError) -> UInt32 {
        guard offset + 4 <= bytes.count else { throw error("unterminated \\u escape") }
        var value: UInt32 = 0
        for position in offset..<offset + 4 {
            let digit = hexValue(bytes[position])
            guard digit != 0xFF else { throw error("invalid \\u escape", at: position) }
            value = value << 4 | UInt32(digit)
        }
        return value
    }

    /// Validates one multi-byte UTF-8 sequence (RFC 3629: no overlongs, no surrogates, at most U+10FFFF).
    private mutating func multibyte() throws(JSONSyntaxError) {
        let lead = bytes[index]
        let length: Int
        var lower: UInt8 = 0x80, upper: UInt8 = 0xBF
        switch lead {
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; lower = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; upper = 0x9F
        case 0xF0: length = 4; lower = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; upper = 0x8F
        default: throw error("invalid UTF-8")
        }
        guard index + length <= bytes.count else { throw error("invalid UTF-8") }
        let second = bytes[index + 1]
        guard second >= lower, second <= upper else { throw error("invalid UTF-8") }
        for offset in 2..<max(length, 2) where bytes[index + offset] & 0xC0 != 0x80 {
            throw error("invalid UTF-8")
        }
        index += length
    }

    private mutating func number(into nodes: inout NodeBuffer) throws(JSONSyntaxError) {
        let start = index
        var fractional = false
        if bytes[index] == UInt8(ascii: "-") { index += 1 }
        guard index < bytes.count, isDigit(bytes[index]) else { throw error("a number needs digits", at: start) }
        if bytes[index] == UInt8(ascii: "0") {
            index += 1
            if index < bytes.count, isDigit(bytes[index]) { throw error("a number must not start with 0", at: start) }
        } else {
            digits()
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            fractional = true
            index += 1
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("a decimal point needs digits after it") }
            digits()
        }
        if index < bytes.count, bytes[index] | 0x20 == UInt8(ascii: "e") {
            fractional = true
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            guard index < bytes.count, isDigit(bytes[index]) else { throw error("an exponent needs digits") }
            digits()
        }
        guard index - start <= limits.maxNumberLength else { throw error(exceeding: .numberLength(limits.maxNumberLength), at: start) }
        nodes.append(.init(start: UInt32(start), end: UInt32(index), next: UInt32(nodes.count + 1), kind: .number, flag: fractional))
    }

    @inline(__always)
    private func isDigit(_ byte: UInt8) -> Bool { byte &- UInt8(ascii: "0") < 10 }

    @inline(__always)
    private mutating func digits() {
        while index < bytes.count, isDigit(bytes[index]) { index += 1 }
    }

    private mutating func literal(_ word: StaticString, _ kind: JSONTape.Kind, into nodes: inout NodeBuffer) throws(JSONSyntaxError) {
        let length = word.utf8CodeUnitCount
        guard index + length <= bytes.count,
            memcmp(bytes.baseAddress! + index, word.utf8Start, length) == 0
        else { throw error("unexpected character '\(printable(bytes[index]))'") }
        nodes.append(.init(start: UInt32(index), end: UInt32(index + length), next: UInt32(nodes.count + 1), kind: kind, flag: false))
        index += length
    }
}

/// A JSON text and its nodes, parsed once: ``WireJSONDecoder/parse(_:)``.
public struct WireDocument: Sendable {
    /// The JSON text.
    public let data: Data
    @usableFromInline
    let storage: NodeStorage

    /// Runs `body` with a tape over the text and a private copy of the nodes (look-ups keep hints
    /// in them, and a document may be decoded from several threads at once).
    @usableFromInline
    func withTape<R>(userInfo: [CodingUserInfoKey: Any], _ body: (JSONTape) throws -> R) throws -> R {
        try data.withUnsafeBytes { bytes in
            let nodes = copy(of: storage.nodes, count: storage.count)
            return try JSONTape.lend(JSONTape(bytes: bytes, nodes: nodes, count: storage.count, userInfo: userInfo), to: body)
        }
    }
}

/// A parse's nodes, never changed once the document is shared: safe to share.
@usableFromInline
final class NodeStorage: @unchecked Sendable {
    // @unchecked: written by the parse and by ``WireJSONDecoder/parse(_:readingObject:)``'s read
    // before the document is shared, only read afterwards.
    let nodes: UnsafeMutablePointer<JSONTape.Node>
    let count: Int

    /// Takes over the parse's buffer, copied to size only when more than half of it is spare (the parse
    /// sizes it from the text's length, which long strings make much larger than the nodes need).
    init(_ buffer: NodeBuffer) {
        count = buffer.count
        if buffer.capacity > 2 * buffer.count + 16 {
            nodes = .allocate(capacity: buffer.count)
            nodes.moveInitialize(from: buffer.base, count: buffer.count)
            buffer.base.deallocate()
        } else {
            nodes = buffer.base
        }
    }

    deinit { nodes.deallocate() }
}
