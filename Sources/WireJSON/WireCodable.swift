import Foundation

/// A `Codable` type that also writes and reads its wire JSON by hand, member by member, so the
/// WireJSON coders skip Codable's containers for it (their generic metadata look-ups and boxes
/// are most of what a general Codable coder costs: bench/PROFILE.md).
///
/// Written by hand, and only for the messages that stream by the thousand per second (envelopes,
/// quotes, prices), because no package generates such codecs and a macro would add swift-syntax to
/// every build. The members must be exactly those of the type's `Codable` conformance, with the same
/// keys and order, and `encodeIfPresent`/`decodeIfPresent` for optionals, as synthesized `Codable`
/// does: Foundation's coders and the wire's must keep agreeing, which the round-trip tests of every
/// message type check (a member left out here fails them). Other coders keep using `Codable`.
public typealias WireCodable = WireEncodable & WireDecodable

/// A type whose wire JSON object is written member by member: see ``WireCodable``.
public protocol WireEncodable: Encodable {
    /// Writes the members, in the order of the type's `Codable` conformance.
    func encode(wire object: WireObjectWriter) throws
}

/// A type read member by member from its wire JSON object: see ``WireCodable``.
public protocol WireDecodable: Decodable {
    /// Reads the members, as the type's `init(from:)` does.
    init(wire object: WireObjectReader) throws
}

/// Writes one JSON object's members for ``WireEncodable/encode(wire:)``; valid only during that call.
public struct WireObjectWriter {
    @usableFromInline
    let writer: JSONWriter
    @usableFromInline
    let depth: Int
    @usableFromInline
    let serial: Int

    @usableFromInline
    init(writer: JSONWriter, depth: Int, serial: Int) {
        self.writer = writer
        self.depth = depth
        self.serial = serial
    }

    /// Writes `value` under `key` (a plain ASCII name that JSON needs no escape for).
    ///
    /// Inlinable, as is every method here: specialized where a type writes its members, it knows each
    /// member's type without asking the runtime, and a method that handles a `T?` needs no `Optional<T>`
    /// metadata, which an unspecialized call asks for every time.
    @inlinable @inline(__always)
    public func encode<T: Encodable>(_ value: T, forKey key: StaticString) throws {
        try writer.member(key, depth: depth, serial: serial)
        try writer.value(value, key: .name(key))
    }

    /// Writes `value` under `key` unless it is nil, as synthesized `Codable` does for optionals.
    @inlinable @inline(__always)
    public func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: StaticString) throws {
        guard let value else { return }
        try encode(value, forKey: key)
    }
}

/// Reads one JSON object's members for ``WireDecodable/init(wire:)``; one kept past that call reads its own copy of the text.
public struct WireObjectReader {
    @usableFromInline
    let tape: JSONTape
    @usableFromInline
    let index: Int

    /// The value under `key`: `keyNotFound` when absent, `valueNotFound` when null, as Foundation throws.
    @inlinable @inline(__always)
    public func decode<T: Decodable>(_ type: T.Type = T.self, forKey key: StaticString) throws -> T {
        try tape.decode(type, at: member(key))
    }

    /// The value under `key`, or nil when it is absent or null.
    @inlinable @inline(__always)
    public func decodeIfPresent<T: Decodable>(_ type: T.Type = T.self, forKey key: StaticString) throws -> T? {
        guard let node = presentMember(key) else { return nil }
        return try tape.decode(type, at: node)
    }

    /// The value node of `key`, or `keyNotFound`. Inlinable, as is ``presentMember(_:)``: the look-up of a
    /// static key inlines where a type reads its members (``JSONTape/find(_:in:)``).
    @inlinable @inline(__always)
    func member(_ key: StaticString) throws -> Int {
        guard let value = tape.find(key, in: index) else { throw keyNotFound(key) }
        return value
    }

    /// The value node of `key` unless it is absent or null.
    @inlinable @inline(__always)
    func presentMember(_ key: StaticString) -> Int? {
        guard let value = tape.find(key, in: index), tape.nodes[value].kind != .null else { return nil }
        return value
    }

    /// The error Foundation throws for an absent key.
    @usableFromInline
    func keyNotFound(_ key: StaticString) -> DecodingError {
        .keyNotFound(StaticKey(name: key), .init(
            codingPath: tape.codingPath(to: index), debugDescription: "No value associated with key \"\(key)\"."))
    }
}

/// The coding key of a member written or read by name: a `StaticString` fits an existential's inline
/// buffer, so passing it as `any CodingKey` allocates nothing.
@usableFromInline
struct StaticKey: CodingKey {
    let name: StaticString

    @usableFromInline
    init(name: StaticString) { self.name = name }
    @usableFromInline init?(stringValue: String) { nil }
    @usableFromInline init?(intValue: Int) { nil }

    @usableFromInline var stringValue: String { name.description }
    @usableFromInline var intValue: Int? { nil }
}

extension JSONTape {
    /// The reader of the object at node `index`, or the error Foundation throws for another value.
    @usableFromInline
    func objectReader(at index: Int) throws -> WireObjectReader {
        _ = try expect(.object, [String: Any].self, at: index)
        return WireObjectReader(tape: self, index: index)
    }
}

extension JSONWriter {
    /// Writes a ``WireEncodable`` value's object, member by member.
    @inlinable
    func object<W: WireEncodable>(_ value: W, key: FrameKey) throws {
        let (depth, serial) = push(key: key, kind: .object)
        try value.encode(wire: WireObjectWriter(writer: self, depth: depth, serial: serial))
        close(downTo: depth)
    }
}
