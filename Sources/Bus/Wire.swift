import Foundation
import Money

/// The one JSON configuration of the whole wire.
///
/// Dates are ISO 8601 UTC with milliseconds (`2026-11-23T10:15:30.123Z`); money
/// types encode themselves as decimal strings, so no number on the money path is
/// ever a JSON float.
public enum Wire {
    private static let fractionalDateStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
    private static let plainDateStyle = Date.ISO8601FormatStyle()

    /// Encodes `value` as wire JSON.
    public static func encode<T: Encodable>(_ value: T) throws -> Data {
        try encoder.encode(value)
    }

    /// Decodes wire JSON into `type`.
    public static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        try decoder.decode(type, from: data)
    }

    /// A date as the wire writes it, rounded to the nearest millisecond.
    ///
    /// Written by hand around the whole seconds because a formatter truncates the
    /// fraction: a date parsed from `.455` may be held as .45499999… and print as `.454`,
    /// so parse-then-format would not give back the same text.
    public static func format(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let (seconds, fraction) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        let (whole, rest) = fraction < 0 ? (seconds - 1, fraction + 1000) : (seconds, fraction)
        let text = Date(timeIntervalSince1970: TimeInterval(whole)).formatted(plainDateStyle)
        let digits = String(rest)
        return "\(text.dropLast()).\(String(repeating: "0", count: 3 - digits.count))\(digits)Z"
    }

    /// A wire date, with or without milliseconds.
    public static func parseDate(_ text: String) -> Date? {
        (try? fractionalDateStyle.parse(text)) ?? (try? plainDateStyle.parse(text))
    }

    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(format(date))
        }
        return encoder
    }()

    private static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.userInfo[ExactDecimal.stringsOnly] = true
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = parseDate(text) else {
                throw DecodingError.dataCorruptedError(
                    in: container, debugDescription: "not an ISO 8601 date: \(text)")
            }
            return date
        }
        return decoder
    }()
}
