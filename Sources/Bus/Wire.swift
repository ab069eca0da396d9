import Foundation
import Synchronization
import WireJSON

/// The one JSON configuration of the whole wire.
///
/// Dates are ISO 8601 UTC with milliseconds (`2026-11-23T10:15:30.123Z`); money
/// is a ``WireText`` value, a decimal string, so no number on the money path is
/// ever a JSON float. The coders are WireJSON's: Codable, with these conventions built in.
public enum Wire {
    @usableFromInline
    static let encoder = WireJSONEncoder()
    @usableFromInline
    static let decoder = WireJSONDecoder()

    /// Encodes `value` as wire JSON.
    ///
    /// Inlinable, as are the decodes from a parsed document: where the type is known, WireJSON's
    /// coders specialize for it (bench/PROFILE.md).
    @inlinable
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder.encode(value)
    }

    /// Encodes `value` through its direct codec (``DirectWireEncodable``): the bytes the Codable encode writes,
    /// written with no Codable container into the calling thread's spare ``WireBuffer``, then copied out.
    /// More specific than the generic encode, so a direct type takes it wherever its type is known.
    @inlinable
    public static func encode<T: DirectWireEncodable>(_ value: T) throws -> Data {
        let data = SpareBuffer.slots[SpareBuffer.slot].buffer.withLockIfAvailable { buffer -> Data in
            buffer.removeAll()
            value.writeWire(to: &buffer)
            let data = buffer.withBytes { Data($0) }
            if buffer.capacity > SpareBuffer.largestKept { buffer = WireBuffer() }
            return data
        }
        if let data { return data }
        var buffer = WireBuffer()
        value.writeWire(to: &buffer)
        return buffer.withBytes { Data($0) }
    }

    /// A spare ``WireBuffer`` for the direct encode, in slots chosen by the calling thread (as
    /// WireJSON's encoder keeps its spare writers): a thread whose slot another holds writes into a new buffer.
    @usableFromInline
    final class SpareBuffer: Sendable {
        @usableFromInline
        let buffer = Mutex(WireBuffer())

        /// The slots (a power of two of them).
        @usableFromInline
        static let slots: [SpareBuffer] = (0..<16).map { _ in SpareBuffer() }

        /// A buffer that grew past this capacity is replaced by a new one, so one large message does not keep its size.
        @usableFromInline
        static let largestKept = 64 * 1024

        /// The calling thread's slot: its identity, mixed so that threads' neighbouring addresses spread.
        @usableFromInline
        static var slot: Int {
            #if canImport(Darwin)
            let identity = UInt(bitPattern: pthread_self())
            #else
            let identity = UInt(pthread_self())
            #endif
            return Int(truncatingIfNeeded: (UInt64(identity) &* 0x9E37_79B9_7F4A_7C15) >> 60) & (slots.count - 1)
        }
    }

    /// Decodes wire JSON into `type`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder.decode(type, from: data)
    }

    /// Parses wire JSON once, for several decodes from it, and reads its top-level object with `body`
    /// straight from the parse. Inlinable, so it specializes for `R`.
    @inlinable
    public static func parse<R>(_ data: Data, readingObject body: (WireObjectReader) throws -> R) throws -> (document: WireDocument, read: R) {
        try decoder.parse(data, readingObject: body)
    }

    /// Decodes a parsed document into `type`.
    @inlinable
    public static func decode<T: Decodable>(_ type: T.Type, from document: WireDocument) throws -> T {
        try decoder.decode(type, from: document)
    }

    /// Decodes the member `key` of a parsed document's top-level object into `type`.
    @inlinable
    public static func decode<T: Decodable>(_ type: T.Type, forKey key: StaticString, from document: WireDocument) throws -> T {
        try decoder.decode(type, forKey: key, from: document)
    }

    /// A date as the wire writes it, rounded to the nearest millisecond.
    public static func format(_ date: Date) -> String {
        WireDate.format(date)
    }

    /// A wire date, with or without a fraction of a second.
    public static func parseDate(_ text: String) -> Date? {
        WireDate.parse(text)
    }
}
