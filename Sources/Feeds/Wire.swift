import Foundation
import WireJSON

/// Decoding shared by every API's wire format.
enum Wire {
    /// Decodes `T` from an API body; any failure is `FeedError.malformed` naming `origin`.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data, origin: String) throws(FeedError) -> T {
        do {
            return try JSONDecoder().decode(T.self, from: data)
        } catch {
            throw malformed(origin, reason: describe(error), data)
        }
    }

    /// A `.malformed` error with an excerpt of the body.
    static func malformed(_ origin: String, reason: String, _ data: Data) -> FeedError {
        .malformed(url: origin, reason: reason, body: excerpt(data))
    }

    /// The first 200 characters of a body, for error messages.
    static func excerpt(_ data: Data) -> String {
        let text = String(decoding: data.prefix(600), as: UTF8.self)
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }

    /// A date from milliseconds since 1970.
    static func date(milliseconds: Int64) -> Date {
        Date(timeIntervalSince1970: TimeInterval(milliseconds) / 1000)
    }

    /// Parses an ISO 8601 time with or without fractional seconds ("2017-08-07T17:12:43+00:00").
    ///
    /// By the wire's own parser rather than `Date.ISO8601FormatStyle`, whose first use loads ICU's
    /// time-zone code and data: about 1.5 MB of the fetcher's resident memory.
    static func isoDate(_ text: String, origin: String, _ data: Data) throws(FeedError) -> Date {
        guard let date = WireDate.parse(text) else { throw malformed(origin, reason: "not an ISO 8601 time: \(text)", data) }
        return date
    }

    /// A short reason for a decoding failure: which field, and what was wrong with it.
    static func describe(_ error: any Error) -> String {
        guard let error = error as? DecodingError else { return String(describing: error) }
        switch error {
        case let .dataCorrupted(context):
            return "\(context.debugDescription) at \(path(context.codingPath))"
        case let .keyNotFound(key, context):
            return "missing \"\(key.stringValue)\" at \(path(context.codingPath))"
        case let .typeMismatch(type, context):
            return "expected \(type) at \(path(context.codingPath))"
        case let .valueNotFound(type, context):
            return "null instead of \(type) at \(path(context.codingPath))"
        @unknown default:
            return String(describing: error)
        }
    }

    private static func path(_ codingPath: [any CodingKey]) -> String {
        let text = codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        return text.isEmpty ? "top level" : text
    }
}
