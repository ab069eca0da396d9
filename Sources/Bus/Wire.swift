import Foundation
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
