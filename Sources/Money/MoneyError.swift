/// Errors of the money path; `description` is a clear human message naming the input.
public enum MoneyError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The text is not a decimal number, e.g. `"abc"` or `"1,5"`.
    case invalidNumber(String)
    /// A value or result needs more than 38 significant or fractional digits; the payload names the operation and why.
    case overflow(String)
    /// A division by zero.
    case divisionByZero
    /// The text is not a currency code (2 to 12 ASCII letters or digits).
    case invalidCurrencyCode(String)
    /// A well-formed code that the rate graph has never seen.
    case unknownCurrency(String)
    /// Both currencies are known but no chain of rates connects them.
    case noPath(from: String, to: String)
    /// A source gave a zero or negative rate (or a rate other than 1 from a currency to itself).
    case invalidRate(from: String, to: String, rate: String)

    /// A human-readable message that names the offending input.
    public var description: String {
        switch self {
        case .invalidNumber(let text):
            "not a decimal number: \"\(text)\""
        case .overflow(let detail):
            "decimal overflow: \(detail)"
        case .divisionByZero:
            "division by zero"
        case .invalidCurrencyCode(let code):
            "not a currency code: \"\(code)\" (expected 2 to 12 ASCII letters or digits)"
        case .unknownCurrency(let code):
            "unknown currency: \(code) (no rate mentions it)"
        case .noPath(let from, let to):
            "no rate from \(from) to \(to)"
        case .invalidRate(let from, let to, let rate):
            "invalid rate from \(from) to \(to): \(rate) (a rate must be positive, and 1 from a currency to itself)"
        }
    }
}

/// How a value is rounded to fewer fractional digits.
public enum RoundingRule: Sendable {
    /// Ties go to the even neighbour (banker's rounding): 2.345 → 2.34, 2.355 → 2.36.
    case halfEven
    /// Ties go away from zero: 2.345 → 2.35, -2.345 → -2.35.
    case halfUp
    /// Drops the extra digits (truncation): 2.349 → 2.34, -2.349 → -2.34.
    case towardZero
}
