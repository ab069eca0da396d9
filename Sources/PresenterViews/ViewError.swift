/// A request a view cannot be built for; `description` says what was wrong and what is accepted.
/// The HTTP layer answers these with 400 Bad Request.
public enum ViewError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The assets filter is not one of `all`, `crypto`, `commodity`, `fiat`.
    case invalidFilter(String)
    /// The `locale=` value is not one the presenter formats for.
    case unsupportedLocale(String)
    /// The display currency is not an ISO 4217 fiat code.
    case unsupportedCurrency(String)
    /// An icon's file name is not `<SYMBOL>-<light|dark>.svg` (or `.png`); the message says what was wrong.
    case invalidIcon(String)

    /// A message naming the rejected value and the accepted ones.
    public var description: String {
        switch self {
        case .invalidFilter(let filter):
            "unknown assets filter \"\(filter)\": use one of \(AssetsView.Filter.allCases.map(\.rawValue).joined(separator: ", "))"
        case .unsupportedLocale(let locale):
            "unsupported locale \"\(locale)\": use one of \(ViewContext.supportedLocales.joined(separator: ", "))"
        case .invalidIcon(let message):
            message
        case .unsupportedCurrency(let currency):
            "unsupported display currency \"\(currency)\": use an ISO 4217 code such as USD, SEK or EUR"
        }
    }
}
