import PresenterViews
import Foundation
import Testing
@testable import PresenterCore

struct ViewContextTests {
    /// The first supported tag wins; "de-AT" is normalised to "de_AT".
    @Test func acceptLanguagePicksFirstSupportedTag() {
        #expect(ViewContext.locale(fromAcceptLanguage: "de-AT,de;q=0.9,en;q=0.8") == "de_AT")
        #expect(ViewContext.locale(fromAcceptLanguage: "fr-FR, sv-SE;q=0.7") == "sv_SE")
        #expect(ViewContext.locale(fromAcceptLanguage: "es-MX") == "es_MX")
    }

    /// Quality values order the tags; q=0 rules a tag out.
    @Test func acceptLanguageHonoursQuality() {
        #expect(ViewContext.locale(fromAcceptLanguage: "en-US;q=0.5, de-DE;q=0.9") == "de_DE")
        #expect(ViewContext.locale(fromAcceptLanguage: "sv-SE;q=0, es-MX;q=0.1") == "es_MX")
    }

    /// A bare language maps to its default region; nothing usable gives en_US.
    @Test func acceptLanguageFallbacks() {
        #expect(ViewContext.locale(fromAcceptLanguage: "de") == "de_DE")
        #expect(ViewContext.locale(fromAcceptLanguage: "en-GB") == "en_US")
        #expect(ViewContext.locale(fromAcceptLanguage: "fr, ja") == "en_US")
        #expect(ViewContext.locale(fromAcceptLanguage: "*") == "en_US")
        #expect(ViewContext.locale(fromAcceptLanguage: nil) == "en_US")
    }

    /// `locale=` beats Accept-Language; the currency is upper-cased; USD is the default.
    @Test func resolve() throws {
        let context = try ViewContext.resolve(locale: "sv-se", acceptLanguage: "de-AT", currency: "sek", now: SampleData.now)
        #expect(context == ViewContext(locale: "sv_SE", currency: "SEK", now: SampleData.now))
        let fallback = try ViewContext.resolve(locale: nil, acceptLanguage: "de-AT", currency: nil, now: SampleData.now)
        #expect(fallback.locale == "de_AT")
        #expect(fallback.currency == "USD")
    }

    /// An unsupported locale or currency is a clear error.
    @Test func resolveRejects() {
        #expect(throws: ViewError.unsupportedLocale("fr_FR")) {
            try ViewContext.resolve(locale: "fr_FR", acceptLanguage: nil, currency: nil, now: SampleData.now)
        }
        #expect(throws: ViewError.unsupportedCurrency("BTC")) {
            try ViewContext.resolve(locale: nil, acceptLanguage: nil, currency: "BTC", now: SampleData.now)
        }
        #expect(ViewError.unsupportedLocale("fr_FR").description == "unsupported locale \"fr_FR\": use one of de_AT, de_DE, en_US, sv_SE, es_MX")
    }
}
