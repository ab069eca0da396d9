import PresenterViews
import Foundation
import Money
import Testing
@testable import PresenterCore

/// Goldens are what ICU produces here, character for character: U+00A0 no-break spaces and sv_SE's U+2212 minus.
struct FormattingTests {
    /// 1 298,99 EUR in each locale; de_AT as the assets exercise writes it (symbol last), not CLDR's "€ 1.298,99".
    @Test(arguments: [
        ("de_AT", "1.298,99\u{A0}€"),
        ("en_US", "€1,298.99"),
        ("sv_SE", "1\u{A0}298,99\u{A0}€"),
        ("es_MX", "EUR\u{A0}1,298.99"),
        ("de_DE", "1.298,99\u{A0}€"),
    ])
    func euros(locale: String, expected: String) throws {
        let amount = DisplayAmount.money(try SampleData.decimal("1298.99"), code: "EUR", locale: locale)
        #expect(amount == DisplayAmount(raw: "1298.99", text: expected, currency: "EUR"))
    }

    /// The exercise's own figure: exactly 1298.99 EUR in Austria is "1.298,99 €" (U+00A0 before the sign), a loss
    /// "-1.298,99 €", nothing "0,00 €"; signed amounts keep the "+" in front of the number.
    @Test func austrianEuro() throws {
        #expect(DisplayAmount.money(try SampleData.decimal("1298.99"), code: "EUR", locale: "de_AT").text == "1.298,99\u{A0}€")
        #expect(DisplayAmount.money(try SampleData.decimal("-1298.99"), code: "EUR", locale: "de_AT").text == "-1.298,99\u{A0}€")
        #expect(DisplayAmount.money(try SampleData.decimal("0"), code: "EUR", locale: "de_AT").text == "0,00\u{A0}€")
        #expect(DisplayAmount.signedMoney(try SampleData.decimal("1298.99"), code: "EUR", locale: "de_AT").text == "+1.298,99\u{A0}€")
        #expect(DisplayAmount.money(try SampleData.decimal("1298.99"), code: "USDT", locale: "de_AT", fractionDigits: 2).text == "1.298,99\u{A0}USDT")
    }

    /// Only de_AT changed: the other locales are ICU's, character for character, for the euro and the dollar.
    @Test(arguments: [
        ("en_US", "€1,298.99", "$1,298.99"),
        ("de_DE", "1.298,99\u{A0}€", "1.298,99\u{A0}$"),
        ("sv_SE", "1\u{A0}298,99\u{A0}€", "1\u{A0}298,99\u{A0}US$"),
        ("fr_FR", "1\u{202F}298,99\u{A0}€", "1\u{202F}298,99\u{A0}$US"),
        ("es_ES", "1298,99\u{A0}€", "1298,99\u{A0}US$"),
        ("en_GB", "€1,298.99", "US$1,298.99"),
    ])
    func otherLocalesUnchanged(locale: String, euros: String, dollars: String) throws {
        #expect(DisplayAmount.money(try SampleData.decimal("1298.99"), code: "EUR", locale: locale).text == euros)
        #expect(DisplayAmount.money(try SampleData.decimal("1298.99"), code: "USD", locale: locale).text == dollars)
    }

    /// A USD price of 70187 gets the dollar's two digits.
    @Test(arguments: [
        ("de_AT", "70.187,00\u{A0}$"), ("en_US", "$70,187.00"), ("sv_SE", "70\u{A0}187,00\u{A0}US$"), ("es_MX", "USD\u{A0}70,187.00"),
    ])
    func dollars(locale: String, expected: String) throws {
        #expect(DisplayAmount.price(try SampleData.decimal("70187"), code: "USD", locale: locale).text == expected)
    }

    /// Signed amounts: a loss keeps ICU's minus (U+2212 in sv_SE), a gain gets a "+".
    @Test(arguments: [
        ("de_AT", "-1.234,50\u{A0}SEK", "+1.234,50\u{A0}SEK"),
        ("en_US", "-SEK\u{A0}1,234.50", "+SEK\u{A0}1,234.50"),
        ("sv_SE", "\u{2212}1\u{A0}234,50\u{A0}kr", "+1\u{A0}234,50\u{A0}kr"),
        ("es_MX", "-SEK\u{A0}1,234.50", "+SEK\u{A0}1,234.50"),
    ])
    func signedKronor(locale: String, loss: String, gain: String) throws {
        #expect(DisplayAmount.signedMoney(try SampleData.decimal("-1234.5"), code: "SEK", locale: locale).text == loss)
        #expect(DisplayAmount.signedMoney(try SampleData.decimal("1234.5"), code: "SEK", locale: locale).text == gain)
    }

    /// Percentages are signed, with two digits.
    @Test(arguments: [
        ("de_AT", "+3,13\u{A0}%", "-3,07\u{A0}%"),
        ("en_US", "+3.13%", "-3.07%"),
        ("sv_SE", "+3,13\u{A0}%", "\u{2212}3,07\u{A0}%"),
        ("es_MX", "+3.13%", "-3.07%"),
    ])
    func percentages(locale: String, rise: String, fall: String) throws {
        let up = DisplayAmount.percent(try SampleData.decimal("3.12502"), locale: locale)
        #expect(up == DisplayAmount(raw: "3.12502", text: rise, currency: nil))
        #expect(DisplayAmount.percent(try SampleData.decimal("-3.0714208301723"), locale: locale).text == fall)
    }

    /// Crypto gets 8 digits explicitly (ICU alone would give 2); the code stands where ICU puts a currency.
    @Test(arguments: [
        ("de_AT", "2,26908585\u{A0}BTC"), ("en_US", "BTC\u{A0}2.26908585"), ("sv_SE", "2,26908585\u{A0}BTC"), ("es_MX", "BTC\u{A0}2.26908585"),
    ])
    func bitcoinHasEightDigits(locale: String, expected: String) throws {
        #expect(DisplayAmount.money(try SampleData.decimal("2.26908585"), code: "BTC", locale: locale).text == expected)
    }

    /// The yen has no minor units: 1500.4 shows as 1,500.
    @Test func yenHasNoDigits() throws {
        let amount = try SampleData.decimal("1500.4")
        #expect(DisplayAmount.money(amount, code: "JPY", locale: "en_US").text == "¥1,500")
        #expect(DisplayAmount.money(amount, code: "JPY", locale: "de_AT").text == "1.500\u{A0}¥")
        #expect(DisplayAmount.money(amount, code: "JPY", locale: "sv_SE").text == "1\u{A0}500\u{A0}JPY")
        #expect(DisplayAmount.money(amount, code: "JPY", locale: "en_US").raw == "1500.4")
    }

    /// Prices below 1 get up to six significant digits, never fewer than the currency's.
    @Test func smallPricesKeepSignificantDigits() throws {
        #expect(DisplayAmount.price(try SampleData.decimal("0.00001234567"), code: "USD", locale: "en_US").text == "$0.0000123457")
        #expect(DisplayAmount.price(try SampleData.decimal("0.24600000"), code: "USD", locale: "en_US").text == "$0.246")
        #expect(DisplayAmount.price(try SampleData.decimal("0.5"), code: "USD", locale: "en_US").text == "$0.50")
        #expect(DisplayAmount.price(try SampleData.decimal("1.23456"), code: "USD", locale: "en_US").text == "$1.23")
        #expect(DisplayAmount.price(try SampleData.decimal("0.00005200"), code: "BTC", locale: "en_US").text == "BTC\u{A0}0.00005200")
    }

    /// Dates are formatted for the locale, in UTC.
    @Test(arguments: [
        ("de_AT", "15. Juni 2025, 15:06", "15. Juni 2025"),
        ("en_US", "Jun 15, 2025 at 3:06\u{202F}PM", "Jun 15, 2025"),
        ("sv_SE", "15 juni 2025 15:06", "15 juni 2025"),
        ("es_MX", "15 jun 2025, 3:06\u{202F}p.m.", "15 jun 2025"),
    ])
    func dates(locale: String, dateTime: String, day: String) {
        #expect(DisplayDate.dateTime(SampleData.now, locale: locale) == dateTime)
        #expect(DisplayDate.day(SampleData.now, locale: locale) == day)
        #expect(DisplayDate.iso(SampleData.now) == "2025-06-15T15:06:40Z")
    }

    /// Ages read as people say them, and data over five minutes old is stale.
    @Test func dataAge() {
        #expect(DataAge.describe(seconds: 45) == "45 s")
        #expect(DataAge.describe(seconds: 300) == "5 min")
        #expect(DataAge.describe(seconds: 7_200) == "2 h")
        #expect(DataAge.describe(seconds: 90_000) == "1 day")
        #expect(DataAge.describe(seconds: 200_000) == "2 days")
        let age = DataAge(asOf: SampleData.now.addingTimeInterval(-301), now: SampleData.now, locale: "en_US")
        #expect(age.seconds == 301)
        #expect(age.isStale)
        #expect(age.asOf == "2025-06-15T15:01:39Z")
    }
}
