import Foundation

/// What a screen shows when its data is unavailable: the message and how old the last good data is.
public struct ErrorView: Codable, Sendable, Equatable {
    /// Which screen this is (`error`): what a client reads to know the view's shape.
    public var screen = "error"
    /// The screen's title, e.g. "Books".
    public var title: String
    /// What went wrong, for people, e.g. "The exchange is unreachable."
    public var message: String
    /// The reader's locale.
    public var locale: String
    /// The display currency.
    public var currency: String?
    /// More messages, e.g. feed status.
    public var notices: [String]
    /// How old the last good data is, when there was any.
    public var dataAge: DataAge?
    /// The data age for people: "Last good data: 12 min ago (…)" or "No data has arrived yet."
    public var dataAgeText: String

    /// Builds the error screen; `lastGood` is when the screen's data was last current, if ever.
    public static func make(title: String, message: String, lastGood: Date?, context: ViewContext, notices: [String] = []) -> ErrorView {
        let age = lastGood.map { DataAge(asOf: $0, now: context.now, locale: context.locale) }
        return ErrorView(
            title: title, message: message, locale: context.locale, currency: context.currency, notices: notices, dataAge: age,
            dataAgeText: age.map { "Last good data: \($0.text) ago (\($0.asOfText))." } ?? "No data has arrived yet."
        )
    }
}
