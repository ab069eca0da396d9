import Foundation

extension ExactDecimal: Codable {
    /// Encodes as a string of plain digits, keeping the scale: `"1298.99"`.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Decodes from a string (`"0.86713"`) or a JSON number (`0.86713`, `1e-7`), exactly; only from a
    /// string when the decoder's ``ExactDecimal/stringsOnly`` user info is `true` (Tickwire's own wire).
    ///
    /// `JSONDecoder` reads a number into `Foundation.Decimal` from its text, which is exact for every number
    /// with at most 38 significant digits (all that an `ExactDecimal` holds); its digits are then parsed here,
    /// never through binary floating point. Longer numbers are cut by Foundation to 38 or 39 digits before this code sees
    /// them: 39 digits are rejected here, but a cut to 38 or fewer cannot be detected — send strings for those.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text: String
        if let string = try? container.decode(String.self) {
            text = string
        } else if decoder.userInfo[ExactDecimal.stringsOnly] as? Bool == true {
            throw DecodingError.dataCorruptedError(
                in: container, debugDescription: "money must be a decimal string such as \"12.50\", not a JSON number")
        } else {
            text = try container.decode(Decimal.self).description
        }
        do throws(MoneyError) {
            self = try ExactDecimal(text)
        } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }
}

extension ExactDecimal {
    /// A decoder user-info key: `true` makes decoding accept decimal strings only, never JSON numbers.
    public static let stringsOnly = CodingUserInfoKey(rawValue: "tickwire.money.stringsOnly")!

    /// The same value as a `Foundation.Decimal`, built exactly from the digits (never through binary floating point).
    var foundationDecimal: Decimal {
        let magnitude = mantissa.magnitude
        let sign: Swift.FloatingPointSign = mantissa < 0 ? .minus : .plus
        if magnitude <= UInt128(UInt64.max) {
            return Decimal(sign: sign, exponent: -scale, significand: Decimal(UInt64(magnitude)))
        }
        let (high, low) = magnitude.quotientAndRemainder(dividingBy: powersOfTen[19])
        let significand = Decimal(sign: .plus, exponent: 19, significand: Decimal(UInt64(high))) + Decimal(UInt64(low))
        return Decimal(sign: sign, exponent: -scale, significand: significand)
    }
}
