import Foundation
import Money

/// Who a view is for: the reader's locale and display currency, and the moment the view is made.
public struct ViewContext: Sendable, Equatable {
    /// The ICU locale identifier numbers and dates are formatted for, e.g. "de_AT".
    public var locale: String
    /// The display currency code, e.g. "USD".
    public var currency: String
    /// The moment the view is built; data ages are measured from it.
    public var now: Date

    /// A context; `locale` should be one of ``supportedLocales``.
    public init(locale: String = ViewContext.defaultLocale, currency: String = ViewContext.defaultCurrency, now: Date) {
        self.locale = locale
        self.currency = currency
        self.now = now
    }

    /// The locales the presenter formats for.
    public static let supportedLocales = ["de_AT", "de_DE", "en_US", "sv_SE", "es_MX"]
    /// The locale used when the request names no supported one.
    public static let defaultLocale = "en_US"
    /// The display currency used when the request names none.
    public static let defaultCurrency = "USD"

    /// The supported locale a tag names, matched without regard to case or separator ("de-AT", "DE_at" → "de_AT"); nil otherwise.
    public static func supportedLocale(_ tag: String) -> String? {
        let key = normalisedKey(tag)
        return supportedLocales.first { normalisedKey($0) == key }
    }

    /// The locale an `Accept-Language` header value asks for: the supported tag with the highest quality
    /// (earlier wins ties); a tag with only a known language ("de", "en-GB") counts as that language's
    /// default region. Falls back to ``defaultLocale``.
    public static func locale(fromAcceptLanguage header: String?) -> String {
        guard let header else { return defaultLocale }
        let ranges = header.split(separator: ",").enumerated().compactMap { index, part in
            LanguageRange(part, position: index)
        }
        let ordered = ranges.sorted { $0.quality == $1.quality ? $0.position < $1.position : $0.quality > $1.quality }
        for range in ordered {
            if let locale = supportedLocale(range.tag) ?? languageDefaults[language(of: range.tag)] {
                return locale
            }
        }
        return defaultLocale
    }

    /// The context for a request: `locale=` if given (it must be supported), else the `Accept-Language` value;
    /// `currency=` if given (an ISO 4217 fiat, any case), else ``defaultCurrency``.
    public static func resolve(locale: String?, acceptLanguage: String?, currency: String?, now: Date) throws(ViewError) -> ViewContext {
        let chosenLocale: String
        if let locale, !locale.isEmpty {
            guard let supported = supportedLocale(locale) else { throw .unsupportedLocale(locale) }
            chosenLocale = supported
        } else {
            chosenLocale = self.locale(fromAcceptLanguage: acceptLanguage)
        }
        var chosenCurrency = defaultCurrency
        if let currency, !currency.isEmpty {
            guard let fiat = Currency.iso(currency) else { throw .unsupportedCurrency(currency) }
            chosenCurrency = fiat.code
        }
        return ViewContext(locale: chosenLocale, currency: chosenCurrency, now: now)
    }

    /// The region each language falls back to when a tag names no supported region.
    private static let languageDefaults = ["de": "de_DE", "en": "en_US", "sv": "sv_SE", "es": "es_MX"]

    private static func normalisedKey(_ tag: String) -> String {
        tag.trimmingCharacters(in: .whitespaces).replacing("-", with: "_").lowercased()
    }

    private static func language(of tag: String) -> String {
        String(normalisedKey(tag).prefix { $0 != "_" })
    }
}

/// One entry of an `Accept-Language` header: a tag and its quality, parsed without floating point.
private struct LanguageRange {
    let tag: String
    let quality: ExactDecimal
    let position: Int

    /// Nil for an empty tag, `*`, a quality of zero or an unreadable quality.
    init?(_ text: Substring, position: Int) {
        let parts = text.split(separator: ";")
        guard let first = parts.first else { return nil }
        let tag = first.trimmingCharacters(in: .whitespaces)
        guard !tag.isEmpty, tag != "*" else { return nil }
        var quality: ExactDecimal = 1
        for parameter in parts.dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard pair.count == 2, pair[0].lowercased() == "q" else { continue }
            guard let value = try? ExactDecimal(pair[1]) else { return nil }
            quality = value
        }
        guard quality > .zero else { return nil }
        self.tag = tag
        self.quality = quality
        self.position = position
    }
}
