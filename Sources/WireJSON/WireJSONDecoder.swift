import Foundation

/// Decodes Tickwire's wire JSON into `Decodable` values, several times faster than Foundation's
/// `JSONDecoder` (bench/PROFILE.md) and with the same results for every message type.
///
/// The wire's conventions are built in: dates are ISO 8601 strings (``WireDate``), money
/// (``WireText`` values) only JSON strings, `Data` base64, `URL` its absolute string and
/// `Decimal` a JSON number, as Foundation's coders do. Errors are the `DecodingError`s that
/// Foundation throws, with the same coding paths.
public struct WireJSONDecoder: Sendable {
    @usableFromInline
    let info: UserInfo
    /// What a text may hold before it is refused.
    public let limits: WireJSONLimits

    /// A decoder whose values' `init(from:)` see `userInfo`, refusing texts over `limits` with the
    /// `DecodingError` of invalid JSON, whose underlying ``JSONSyntaxError`` names the limit.
    public init(userInfo: [CodingUserInfoKey: any Sendable] = [:], limits: WireJSONLimits = .default) {
        info = UserInfo(values: userInfo)
        self.limits = limits
    }

    /// Decodes `type` from the JSON text `data`.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try data.withUnsafeBytes { try decode(type, from: $0) }
    }

    /// Decodes `type` from the JSON text `bytes`, which the caller owns (no `Data` copy): as ``decode(_:from:)-(_,Data)``.
    public func decode<T: Decodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        let tape: JSONTape
        do {
            tape = try JSONTape(bytes: bytes, limits: limits, userInfo: info.values)
        } catch {
            throw Self.invalid(error)
        }
        return try JSONTape.lend(consume tape) { try $0.decode(T.self, at: 0) }
    }

    /// Parses the JSON text `data` once, for any number of decodes from it (an envelope's header,
    /// then its payload); throws the `DecodingError` that ``decode(_:from:)`` throws for invalid JSON.
    public func parse(_ data: Data) throws -> WireDocument {
        WireDocument(data: data, storage: try data.withUnsafeBytes { try nodes(of: $0) })
    }

    /// Parses `data` as ``parse(_:)`` does and, before the document is shared, reads its top-level
    /// object with `body` straight from the parse (an envelope's header: no copy of the nodes, as a
    /// later decode from the document makes). Throws the `DecodingError` Foundation throws when the
    /// top level is not an object.
    ///
    /// Inlinable, so that where `R` is known no tuple metadata is looked up per call; the work is in
    /// ``parse(_:readingObjectWith:)``.
    @inlinable
    public func parse<R>(_ data: Data, readingObject body: (WireObjectReader) throws -> R) throws -> (document: WireDocument, read: R) {
        var read: R?
        let document = try parse(data, readingObjectWith: { read = try body($0) })
        guard let read else { preconditionFailure("parse(_:readingObjectWith:) returned without reading the object") }
        return (document, read)
    }

    /// ``parse(_:readingObject:)`` without a result type: `body` runs once, before the document is returned.
    @usableFromInline
    func parse(_ data: Data, readingObjectWith body: (WireObjectReader) throws -> Void) throws -> WireDocument {
        try data.withUnsafeBytes { bytes in
            let storage = try nodes(of: bytes)
            let tape = JSONTape(bytes: bytes, nodes: storage.nodes, count: storage.count, userInfo: info.values, owner: storage)
            try JSONTape.lend(consume tape) { try body($0.objectReader(at: 0)) }
            return WireDocument(data: data, storage: storage)
        }
    }

    /// The nodes of the JSON text `bytes`, or the `DecodingError` for invalid JSON.
    private func nodes(of bytes: UnsafeRawBufferPointer) throws -> NodeStorage {
        do {
            return NodeStorage(try JSONTape.parse(bytes, limits: limits))
        } catch {
            throw Self.invalid(error)
        }
    }

    /// Decodes `type` from a parsed document.
    ///
    /// Inlinable, as is ``decode(_:forKey:from:)``: specialized where the type is known, the chain of type
    /// checks folds into a direct call, with no conformance look-up at run time (bench/PROFILE.md).
    @inlinable
    public func decode<T: Decodable>(_ type: T.Type, from document: WireDocument) throws -> T {
        try document.withTape(userInfo: info.values) { try $0.decode(T.self, at: 0) }
    }

    /// Decodes `type` from the member `key` of a parsed document's top-level object (an envelope's
    /// `data`); errors carry the member's whole coding path.
    @inlinable
    public func decode<T: Decodable>(_ type: T.Type, forKey key: StaticString, from document: WireDocument) throws -> T {
        try document.withTape(userInfo: info.values) { tape in
            try tape.objectReader(at: 0).decode(type, forKey: key)
        }
    }

    private static func invalid(_ error: any Error) -> DecodingError {
        .dataCorrupted(.init(codingPath: [], debugDescription: "The given data was not valid JSON.", underlyingError: error))
    }

    /// The user info, converted once to what `Decoder.userInfo` answers.
    @usableFromInline
    final class UserInfo: @unchecked Sendable {
        // @unchecked: built once from Sendable values and never changed.
        @usableFromInline
        let values: [CodingUserInfoKey: Any]
        init(values: [CodingUserInfoKey: any Sendable]) { self.values = values }
    }
}

/// A coding key of a path: an object member's name or an array index.
struct WireCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) { self.stringValue = stringValue }
    init(intValue: Int) {
        stringValue = "Index \(intValue)"
        self.intValue = intValue
    }

    static let superKey = WireCodingKey(stringValue: "super")
}

// MARK: - Values

extension JSONTape {
    /// Decodes the value at node `index`; the common scalar types and `[String]` skip `init(from:)` entirely.
    ///
    /// Inlinable, so a ``WireDecodable`` member's type is known where it is read and this chain of type
    /// checks folds into one direct call (bench/PROFILE.md).
    @inlinable
    func decode<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        if T.self == String.self { return unsafeBitCast(try string(at: index), to: T.self) }
        if T.self == Date.self { return unsafeBitCast(try date(at: index), to: T.self) }
        if T.self == Int.self { return unsafeBitCast(try int(at: index), to: T.self) }
        if T.self == UInt64.self { return unsafeBitCast(try uint64(at: index), to: T.self) }
        if T.self == Bool.self { return unsafeBitCast(try bool(at: index), to: T.self) }
        // Specialized for a concrete type, the compiler settles this check and the opening itself. `read`
        // returns `T`, not `T?`: unspecialized, a `T?` would ask the runtime for `Optional<T>` on every call.
        if let text = T.self as? any WireText.Type {
            func read<W: WireText>(_ text: W.Type) throws -> T { unsafeBitCast(try self.text(W.self, at: index), to: T.self) }
            return try read(text)
        }
        if let wire = T.self as? any WireDecodable.Type {
            func read<W: WireDecodable>(_ wire: W.Type) throws -> T {
                unsafeBitCast(try W(wire: objectReader(at: index)), to: T.self)
            }
            return try read(wire)
        }
        return try decodeOther(type, at: index)
    }

    /// ``decode(_:at:)`` for the types it does not check for itself.
    @usableFromInline
    func decodeOther<T: Decodable>(_ type: T.Type, at index: Int) throws -> T {
        if T.self == Int64.self { return unsafeBitCast(try integer(Int64.self, at: index), to: T.self) }
        if T.self == Double.self { return unsafeBitCast(try float(Double.self, at: index), to: T.self) }
        if T.self == Data.self { return unsafeBitCast(try data(at: index), to: T.self) }
        if T.self == URL.self { return unsafeBitCast(try url(at: index), to: T.self) }
        if T.self == Decimal.self { return unsafeBitCast(try decimal(at: index), to: T.self) }
        if T.self == [String].self { return unsafeBitCast(try strings(at: index), to: T.self) }
        return try T(from: NodeDecoder(tape: self, index: index))
    }

    @usableFromInline
    func int(at index: Int) throws -> Int { try integer(Int.self, at: index) }

    @usableFromInline
    func uint64(at index: Int) throws -> UInt64 { try integer(UInt64.self, at: index) }

    /// The node at `index` as `kind`, or the error Foundation throws for null or another type.
    @inline(__always)
    func expect<T>(_ kind: Kind, _ type: T.Type, at index: Int) throws -> Node {
        let node = nodes[index]
        guard node.kind == kind else { throw mismatch(type, at: index) }
        return node
    }

    func mismatch<T>(_ type: T.Type, at index: Int) -> DecodingError {
        if nodes[index].kind == .null {
            return .valueNotFound(type, .init(
                codingPath: codingPath(to: index), debugDescription: "Cannot get value of type \(type) -- found null value instead"))
        }
        return .typeMismatch(type, .init(
            codingPath: codingPath(to: index), debugDescription: "Expected to decode \(type) but found \(text(index)) instead."))
    }

    func corrupted(_ message: String, at index: Int) -> DecodingError {
        .dataCorrupted(.init(codingPath: codingPath(to: index), debugDescription: message))
    }

    @usableFromInline
    func string(at index: Int) throws -> String {
        string(try expect(.string, String.self, at: index))
    }

    /// An array of strings (a conversion path, a list of codes) without an unkeyed container.
    func strings(at index: Int) throws -> [String] {
        let array = try expect(.array, [Any].self, at: index)
        var result: [String] = []
        result.reserveCapacity(Int(array.end))
        var element = index + 1
        while element < Int(array.next) {
            result.append(try string(at: element))
            element = Int(nodes[element].next)
        }
        return result
    }

    @usableFromInline
    func bool(at index: Int) throws -> Bool {
        switch nodes[index].kind {
        case .true: return true
        case .false: return false
        default: throw mismatch(Bool.self, at: index)
        }
    }

    /// An integer written as one, or a fraction/exponent form of an exact integer ("1e3"), as Foundation accepts.
    func integer<T: FixedWidthInteger>(_ type: T.Type, at index: Int) throws -> T {
        let node = try expect(.number, type, at: index)
        let digits = slice(node)
        if !node.flag {
            var position = 0
            let negative = digits[0] == UInt8(ascii: "-")
            if negative { position = 1 }
            var value: T = 0
            var overflow = false
            while position < digits.count {
                let digit = T(digits[position] &- UInt8(ascii: "0"))
                let (shifted, o1) = value.multipliedReportingOverflow(by: 10)
                let (next, o2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
                value = next
                overflow = overflow || o1 || o2
                position += 1
            }
            if !overflow { return value }
        } else if let double = Double(String(decoding: digits, as: UTF8.self)), let exact = T(exactly: double) {
            return exact
        }
        throw corrupted("Number \(text(index)) is not representable in Swift as \(type).", at: index)
    }

    func float<T: BinaryFloatingPoint & LosslessStringConvertible>(_ type: T.Type, at index: Int) throws -> T {
        let node = try expect(.number, type, at: index)
        guard let value = T(String(decoding: slice(node), as: UTF8.self)), value.isFinite else {
            throw corrupted("Number \(text(index)) is not representable in Swift as \(type).", at: index)
        }
        return value
    }

    /// A ``WireText`` value: from a JSON string only, parsed from its bytes.
    @usableFromInline
    func text<W: WireText>(_ type: W.Type, at index: Int) throws -> W {
        let node = nodes[index]
        if node.kind == .number {
            throw corrupted("\(W.wireTextExpectation), not a JSON number", at: index)
        }
        guard node.kind == .string else { throw mismatch(W.self, at: index) }
        do {
            if node.flag {
                var unescaped = string(node)
                return try unescaped.withUTF8 { try W(wireText: $0) }
            }
            return try slice(node).withMemoryRebound(to: UInt8.self) { try W(wireText: $0) }
        } catch {
            throw corrupted(String(describing: error), at: index)
        }
    }

    @usableFromInline
    func date(at index: Int) throws -> Date {
        let node = try expect(.string, Date.self, at: index)
        let parsed = node.flag
            ? WireDate.parse(string(node))
            : slice(node).withMemoryRebound(to: UInt8.self) { WireDate.parse(utf8: $0) }
        guard let parsed else { throw corrupted("not an ISO 8601 date: \(text(index))", at: index) }
        return parsed
    }

    func data(at index: Int) throws -> Data {
        guard let data = Data(base64Encoded: try string(at: index)) else {
            throw corrupted("Encountered Data is not valid Base64.", at: index)
        }
        return data
    }

    func url(at index: Int) throws -> URL {
        guard let url = URL(string: try string(at: index)) else { throw corrupted("Invalid URL string.", at: index) }
        return url
    }

    func decimal(at index: Int) throws -> Decimal {
        let node = try expect(.number, Decimal.self, at: index)
        guard let value = Decimal(string: String(decoding: slice(node), as: UTF8.self), locale: nil) else {
            throw corrupted("Number \(text(index)) is not representable in Swift as Decimal.", at: index)
        }
        return value
    }

    // MARK: Structure

    /// The value node of the member named `name` in the object at `object`, or nil.
    ///
    /// Starts at the member after the last one found, so members read in the order they were
    /// written (synthesized `Codable`, dictionaries) are found at the first comparison. In an
    /// object that repeats a key it starts at the first member: the first value wins, as in Foundation.
    func find(_ name: String, in object: Int) -> Int? {
        var name = name
        return name.withUTF8 { find($0, in: object) }
    }

    /// ``find(_:in:)`` for a name known at compile time.
    ///
    /// Inlined where a ``WireDecodable`` type reads its members: there the key's length and look-up bit
    /// are constants and its comparison a few loads, so the usual cases (an absent key whose bit or length is
    /// not in the object's signatures, or the member the hint points at) cost no call (bench/PROFILE.md).
    @inlinable @inline(__always)
    func find(_ name: StaticString, in object: Int) -> Int? {
        let key = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        let node = nodes[object]
        guard node.start & 1 << keyBit(UnsafeRawBufferPointer(key)) != 0, node.lengths & lengthBit(key.count) != 0 else { return nil }
        let hinted = Int(node.end)
        if !node.flag, hinted < Int(node.next) {
            let keyNode = nodes[hinted]
            if !keyNode.flag, Int(keyNode.end &- keyNode.start) == key.count,
                memcmp(bytes.baseAddress! + Int(keyNode.start), key.baseAddress!, key.count) == 0 {
                nodes[object].end = nodes[hinted + 1].next
                return hinted + 1
            }
        }
        return find(key, in: object)
    }

    @usableFromInline
    func find(_ key: UnsafeBufferPointer<UInt8>, in object: Int) -> Int? {
        let node = nodes[object]
        let first = object + 1, end = Int(node.next)
        guard first < end, node.start & 1 << keyBit(UnsafeRawBufferPointer(key)) != 0, node.lengths & lengthBit(key.count) != 0 else { return nil }
        var member = !node.flag && Int(node.end) < end ? Int(node.end) : first
        let stop = member
        repeat {
            let keyNode = nodes[member]
            let next = Int(nodes[member + 1].next)
            if keyMatches(keyNode, key) {
                nodes[object].end = UInt32(next)
                return member + 1
            }
            member = next < end ? next : first
        } while member != stop
        return nil
    }

    @inline(__always)
    private func keyMatches(_ keyNode: Node, _ key: UnsafeBufferPointer<UInt8>) -> Bool {
        if keyNode.flag { return string(keyNode).utf8.elementsEqual(key) }
        let length = Int(keyNode.end - keyNode.start)
        return length == key.count && (length == 0 || memcmp(bytes.baseAddress! + Int(keyNode.start), key.baseAddress!, length) == 0)
    }

    /// The key nodes of the object at `object`, in text order.
    func memberKeys(of object: Int) -> [Int] {
        var keys: [Int] = []
        var member = object + 1
        while member < Int(nodes[object].next) {
            keys.append(member)
            member = Int(nodes[member + 1].next)
        }
        return keys
    }

    /// The coding path from the top-level value to node `target`, rebuilt from the tape (only
    /// errors and the rare `codingPath` reader pay for it).
    func codingPath(to target: Int) -> [any CodingKey] {
        var path: [any CodingKey] = []
        var current = 0
        descend: while current != target {
            let node = nodes[current]
            switch node.kind {
            case .object:
                var member = current + 1
                while member < Int(node.next) {
                    let next = Int(nodes[member + 1].next)
                    if target < next {
                        path.append(WireCodingKey(stringValue: string(nodes[member])))
                        current = member + 1
                        continue descend
                    }
                    member = next
                }
            case .array:
                var element = current + 1, position = 0
                while element < Int(node.next) {
                    let next = Int(nodes[element].next)
                    if target < next {
                        path.append(WireCodingKey(intValue: position))
                        current = element
                        continue descend
                    }
                    element = next
                    position += 1
                }
            default:
                break
            }
            break
        }
        return path
    }
}

// MARK: - Decoder and containers

/// The `Decoder` for one node: two words, so passing it as `any Decoder` allocates nothing.
private struct NodeDecoder: Decoder {
    let tape: JSONTape
    let index: Int

    var codingPath: [any CodingKey] { tape.codingPath(to: index) }
    var userInfo: [CodingUserInfoKey: Any] { tape.userInfo }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        _ = try tape.expect(.object, [String: Any].self, at: index)
        return KeyedDecodingContainer(KeyedContainer<Key>(tape: tape, index: index))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let node = try tape.expect(.array, [Any].self, at: index)
        return UnkeyedContainer(tape: tape, index: index, count: Int(node.end))
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        SingleValueContainer(tape: tape, index: index)
    }
}

private struct KeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let tape: JSONTape
    let index: Int

    var codingPath: [any CodingKey] { tape.codingPath(to: index) }

    var allKeys: [Key] {
        let names = tape.memberKeys(of: index).map { tape.string(tape.nodes[$0]) }
        guard tape.nodes[index].flag else { return names.compactMap { Key(stringValue: $0) } }
        var seen = Set<String>()
        return names.filter { seen.insert($0).inserted }.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool { tape.find(key.stringValue, in: index) != nil }

    private func value(_ key: Key) throws -> Int {
        guard let value = tape.find(key.stringValue, in: index) else {
            throw DecodingError.keyNotFound(key, .init(
                codingPath: codingPath, debugDescription: "No value associated with key \(key) (\"\(key.stringValue)\")."))
        }
        return value
    }

    /// The value node of `key` unless it is absent or null: `decodeIfPresent` in one look-up.
    private func present(_ key: Key) -> Int? {
        guard let value = tape.find(key.stringValue, in: index), tape.nodes[value].kind != .null else { return nil }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool { tape.nodes[try value(key)].kind == .null }
    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try tape.bool(at: value(key)) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try tape.string(at: value(key)) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try tape.float(type, at: value(key)) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try tape.float(type, at: value(key)) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try tape.integer(type, at: value(key)) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try tape.integer(type, at: value(key)) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try tape.integer(type, at: value(key)) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try tape.integer(type, at: value(key)) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try tape.integer(type, at: value(key)) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try tape.integer(type, at: value(key)) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try tape.integer(type, at: value(key)) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try tape.integer(type, at: value(key)) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try tape.integer(type, at: value(key)) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try tape.integer(type, at: value(key)) }
    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T { try tape.decode(type, at: value(key)) }

    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? {
        try present(key).map { try tape.string(at: $0) }
    }
    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? {
        try present(key).map { try tape.bool(at: $0) }
    }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? {
        try present(key).map { try tape.integer(type, at: $0) }
    }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? {
        try present(key).map { try tape.float(type, at: $0) }
    }
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        try present(key).map { try tape.decode(type, at: $0) }
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws -> KeyedDecodingContainer<NestedKey> {
        try NodeDecoder(tape: tape, index: value(key)).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try NodeDecoder(tape: tape, index: value(key)).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder { try superDecoder(named: WireCodingKey.superKey.stringValue) }

    func superDecoder(forKey key: Key) throws -> any Decoder { try superDecoder(named: key.stringValue) }

    private func superDecoder(named name: String) throws -> any Decoder {
        guard let value = tape.find(name, in: index) else {
            throw DecodingError.keyNotFound(WireCodingKey(stringValue: name), .init(
                codingPath: codingPath, debugDescription: "No value associated with key \"\(name)\"."))
        }
        return NodeDecoder(tape: tape, index: value)
    }
}

private struct UnkeyedContainer: UnkeyedDecodingContainer {
    let tape: JSONTape
    let index: Int
    let count: Int?
    private(set) var currentIndex = 0
    /// The node of the element at `currentIndex`.
    private var cursor: Int

    init(tape: JSONTape, index: Int, count: Int) {
        self.tape = tape
        self.index = index
        self.count = count
        cursor = index + 1
    }

    var codingPath: [any CodingKey] { tape.codingPath(to: index) }
    var isAtEnd: Bool { currentIndex >= count! }

    private func element<T>(_ type: T.Type) throws -> Int {
        guard !isAtEnd else {
            var path = codingPath
            path.append(WireCodingKey(intValue: currentIndex))
            throw DecodingError.valueNotFound(type, .init(codingPath: path, debugDescription: "Unkeyed container is at end."))
        }
        return cursor
    }

    private mutating func advance() {
        cursor = Int(tape.nodes[cursor].next)
        currentIndex += 1
    }

    mutating func decodeNil() throws -> Bool {
        guard tape.nodes[try element(Never?.self)].kind == .null else { return false }
        advance()
        return true
    }

    private mutating func next<T>(_ body: (JSONTape, Int) throws -> T) throws -> T {
        let value = try body(tape, element(T.self))
        advance()
        return value
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try next { try $0.bool(at: $1) } }
    mutating func decode(_ type: String.Type) throws -> String { try next { try $0.string(at: $1) } }
    mutating func decode(_ type: Double.Type) throws -> Double { try next { try $0.float(type, at: $1) } }
    mutating func decode(_ type: Float.Type) throws -> Float { try next { try $0.float(type, at: $1) } }
    mutating func decode(_ type: Int.Type) throws -> Int { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try next { try $0.integer(type, at: $1) } }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try next { try $0.integer(type, at: $1) } }
    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T { try next { try $0.decode(type, at: $1) } }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws -> KeyedDecodingContainer<NestedKey> {
        try next { try NodeDecoder(tape: $0, index: $1).container(keyedBy: type) }
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        try next { try NodeDecoder(tape: $0, index: $1).unkeyedContainer() }
    }

    mutating func superDecoder() throws -> any Decoder {
        try next { NodeDecoder(tape: $0, index: $1) }
    }
}

private struct SingleValueContainer: SingleValueDecodingContainer {
    let tape: JSONTape
    let index: Int

    var codingPath: [any CodingKey] { tape.codingPath(to: index) }

    func decodeNil() -> Bool { tape.nodes[index].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try tape.bool(at: index) }
    func decode(_ type: String.Type) throws -> String { try tape.string(at: index) }
    func decode(_ type: Double.Type) throws -> Double { try tape.float(type, at: index) }
    func decode(_ type: Float.Type) throws -> Float { try tape.float(type, at: index) }
    func decode(_ type: Int.Type) throws -> Int { try tape.integer(type, at: index) }
    func decode(_ type: Int8.Type) throws -> Int8 { try tape.integer(type, at: index) }
    func decode(_ type: Int16.Type) throws -> Int16 { try tape.integer(type, at: index) }
    func decode(_ type: Int32.Type) throws -> Int32 { try tape.integer(type, at: index) }
    func decode(_ type: Int64.Type) throws -> Int64 { try tape.integer(type, at: index) }
    func decode(_ type: UInt.Type) throws -> UInt { try tape.integer(type, at: index) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try tape.integer(type, at: index) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try tape.integer(type, at: index) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try tape.integer(type, at: index) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try tape.integer(type, at: index) }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try tape.decode(type, at: index) }
}
