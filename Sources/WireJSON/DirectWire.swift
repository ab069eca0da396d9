/// A type whose canonical wire JSON is written by hand into a ``WireBuffer``, with no Codable container and no
/// writer frames: the messages that stream by the thousand per second.
///
/// The rule every conformance follows: the members in declaration order, optionals left out when nil, exactly the
/// keys and value formats of the type's `Codable` conformance, so the bytes equal ``WireJSONEncoder``'s byte for
/// byte (the tests compare them). The type keeps its ``WireEncodable/encode(wire:)`` for generic callers.
public protocol DirectWireEncodable: WireEncodable {
    /// Appends the value's JSON object to `out`.
    func writeWire(to out: inout WireBuffer)
}

/// A type read from its canonical wire JSON by hand, in the order the wire writes it (see ``DirectWireEncodable``
/// for the rule): a fast path that accepts a strict subset of what the tape accepts, read to the same value.
public protocol DirectWireDecodable: WireDecodable {
    /// The value if the text at `cursor` is this type's canonical JSON object; nil otherwise (never an error: the
    /// tape decides). It must accept no text nested deeper than 16 levels.
    static func readWire(_ cursor: inout WireCursor) -> Self?
    /// The members in wire order, for the test that checks them against the type's stored properties.
    static var wireKeys: [StaticString] { get }
}

/// A type with a direct wire codec both ways: see ``DirectWireEncodable`` and ``DirectWireDecodable``.
public typealias DirectWireCodable = DirectWireEncodable & DirectWireDecodable

extension WireJSONDecoder {
    /// `T` from `bytes`: the in-order fast path when the text is canonical, else the tape on the same bytes, so the
    /// same value or the same error as ``decode(_:from:)-(_,UnsafeRawBufferPointer)``.
    @inlinable
    public func decodeDirect<T: DirectWireDecodable>(_ type: T.Type, from bytes: UnsafeRawBufferPointer) throws -> T {
        if allowsDirect(count: bytes.count) {
            var cursor = WireCursor(bytes)
            if let value = T.readWire(&cursor), cursor.isAtEnd { return value }
        }
        return try decode(type, from: bytes)
    }

    /// Whether a text of `count` bytes read by the fast path is certainly within ``limits``: direct codecs nest at
    /// most 16 deep and read integers of at most 20 bytes (``WireCursor/skipValue(depth:)`` numbers of 40).
    @inlinable
    func allowsDirect(count: Int) -> Bool {
        limits.maxDepth >= 16 && limits.maxNumberLength >= 40 && limits.maxStringLength >= count
    }
}
