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
    let writer: JSONWriter
    let depth: Int
    let serial: Int

    /// Writes `value` under `key` (a plain ASCII name that JSON needs no escape for).
    public func encode<T: Encodable>(_ value: T, forKey key: StaticString) throws {
        try writer.member(key, depth: depth, serial: serial)
        try writer.value(value, key: StaticKey(name: key))
    }

    /// Writes `value` under `key` unless it is nil, as synthesized `Codable` does for optionals.
    ///
    /// Inlinable, as is every method here that handles a `T?`: specialized in the caller, it needs no
    /// `Optional<T>` metadata from the runtime, which an unspecialized call asks for every time.
    @inlinable
    public func encodeIfPresent<T: Encodable>(_ value: T?, forKey key: StaticString) throws {
        guard let value else { return }
        try encode(value, forKey: key)
    }
}

/// Reads one JSON object's members for ``WireDecodable/init(wire:)``; valid only during that call.
public struct WireObjectReader {
    let tape: JSONTape
    let index: Int

    /// The value under `key`: `keyNotFound` when absent, `valueNotFound` when null, as Foundation throws.
    @inlinable
    public func decode<T: Decodable>(_ type: T.Type = T.self, forKey key: StaticString) throws -> T {
        try value(type, at: member(key))
    }

    /// The value under `key`, or nil when it is absent or null.
    @inlinable
    public func decodeIfPresent<T: Decodable>(_ type: T.Type = T.self, forKey key: StaticString) throws -> T? {
        guard let node = presentMember(key) else { return nil }
        return try value(type, at: node)
    }

    /// The value node of `key`, or `keyNotFound`.
    @usableFromInline
    func member(_ key: StaticString) throws -> Int {
        guard let value = tape.find(key, in: index) else {
            throw DecodingError.keyNotFound(StaticKey(name: key), .init(
                codingPath: tape.codingPath(to: index),
                debugDescription: "No value associated with key \"\(key)\"."))
        }
        return value
    }

    /// The value node of `key` unless it is absent or null.
    @usableFromInline
    func presentMember(_ key: StaticString) -> Int? {
        guard let value = tape.find(key, in: index), tape.nodes[value].kind != .null else { return nil }
        return value
    }

    /// The value at node `node`.
    @usableFromInline
    func value<T: Decodable>(_ type: T.Type, at node: Int) throws -> T {
        try tape.decode(type, at: node)
    }
}

/// The coding key of a member written or read by name: a `StaticString` fits an existential's inline
/// buffer, so passing it as `any CodingKey` allocates nothing.
struct StaticKey: CodingKey {
    let name: StaticString

    init(name: StaticString) { self.name = name }
    init?(stringValue: String) { nil }
    init?(intValue: Int) { nil }

    var stringValue: String { name.description }
    var intValue: Int? { nil }
}

extension JSONTape {
    /// `T(wire:)` for a type `T` that is the ``WireDecodable`` type `wire`; the node must be an object.
    ///
    /// Returns `T` itself, not an optional: an unspecialized generic function that handles a `T?` asks
    /// the runtime for `Optional<T>`'s metadata on every call, which would cost more than the fast path saves.
    func decode<T: Decodable>(_ type: T.Type, wire: any WireDecodable.Type, at index: Int) throws -> T {
        _ = try expect(.object, [String: Any].self, at: index)
        func read<W: WireDecodable>(_ wire: W.Type) throws -> T {
            unsafeBitCast(try W(wire: WireObjectReader(tape: self, index: index)), to: T.self)
        }
        return try read(wire)
    }
}

extension JSONWriter {
    /// Writes `value` through ``WireEncodable/encode(wire:)`` if `T` is ``WireEncodable``; false otherwise.
    @inline(__always)
    func valueWire<T: Encodable>(_ value: T, key: (any CodingKey)?) throws -> Bool {
        guard let wire = T.self as? any WireEncodable.Type else { return false }
        func write<W: WireEncodable>(_ wire: W.Type) throws {
            let (depth, serial) = push(key: key, kind: .object)
            let object = WireObjectWriter(writer: self, depth: depth, serial: serial)
            try withUnsafePointer(to: value) { pointer in
                try pointer.withMemoryRebound(to: W.self, capacity: 1) { try $0.pointee.encode(wire: object) }
            }
            close(downTo: depth)
        }
        try write(wire)
        return true
    }
}
