import Money

/// An amount as a client shows it: the exact value, the text formatted for the reader's locale, and its currency.
///
/// `raw` is the exact decimal before rounding for display, so a client can format it again.
public struct DisplayAmount: Codable, Sendable, Equatable {
    /// The exact decimal value, e.g. "70187.12345678".
    public var raw: String
    /// The value formatted for the locale, e.g. "$70,187.12" or "+3,13 %".
    public var text: String
    /// The currency code, or nil for a plain number or a percentage.
    public var currency: String?

    /// An amount from its parts.
    public init(raw: String, text: String, currency: String?) {
        self.raw = raw
        self.text = text
        self.currency = currency
    }

    /// `amount` in `code` with `fractionDigits` digits, or the currency's usual digits (fiat minor units, 8 for crypto).
    public static func money(_ amount: ExactDecimal, code: String, locale: String, fractionDigits: Int? = nil) -> DisplayAmount {
        let digits = fractionDigits ?? Precision.digits(forCode: code)
        return DisplayAmount(
            raw: amount.description,
            text: MoneyFormatter.currency(amount, code: code, locale: locale, fractionDigits: digits),
            currency: code
        )
    }

    /// Like ``money(_:code:locale:fractionDigits:)`` but a positive amount gets a leading "+" (for gains and changes).
    /// ICU puts the minus in front in every supported locale, so the plus goes there too.
    public static func signedMoney(_ amount: ExactDecimal, code: String, locale: String, fractionDigits: Int? = nil) -> DisplayAmount {
        var shown = money(amount, code: code, locale: locale, fractionDigits: fractionDigits)
        let digits = fractionDigits ?? Precision.digits(forCode: code)
        if Trend(amount, fractionDigits: digits) == .up { shown.text = "+" + shown.text }
        return shown
    }

    /// A price per unit in `code`: `fractionDigits` if the data gives a precision, else the currency's digits,
    /// with more for prices below 1 (up to six significant digits).
    public static func price(_ price: ExactDecimal, code: String, locale: String, fractionDigits: Int? = nil) -> DisplayAmount {
        money(price, code: code, locale: locale, fractionDigits: fractionDigits ?? Precision.priceDigits(price, code: code))
    }

    /// A plain grouped number with `fractionDigits` digits, e.g. a coin supply.
    public static func number(_ value: ExactDecimal, locale: String, fractionDigits: Int) -> DisplayAmount {
        DisplayAmount(raw: value.description, text: MoneyFormatter.number(value, locale: locale, fractionDigits: fractionDigits), currency: nil)
    }

    /// `value` in percent units (3.12502 means 3.12502 %) as a signed percentage with 2 digits: "+3.13%".
    public static func percent(_ value: ExactDecimal, locale: String) -> DisplayAmount {
        DisplayAmount(raw: value.description, text: MoneyFormatter.percent(value, locale: locale, fractionDigits: percentDigits), currency: nil)
    }

    /// The digits every percentage is shown with.
    static let percentDigits = 2
}
