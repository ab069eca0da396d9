import Money
import Testing

/// U+00A0 NO-BREAK SPACE, as ICU puts it between symbol and number and as a group separator in sv_SE.
private let nbsp = "\u{00A0}"
/// U+2212 MINUS SIGN, ICU's minus in sv_SE.
private let minus = "\u{2212}"

@Suite("MoneyFormatter goldens (ICU through Foundation)")
struct MoneyFormatterTests {
    @Test(arguments: [
        // de_AT: symbol after the number, no-break space (Tickwire's override of CLDR's "€ 1.298,99").
        ("1298.99", "EUR", "de_AT", 2, "1.298,99\(nbsp)€"),
        ("-1298.99", "EUR", "de_AT", 2, "-1.298,99\(nbsp)€"),
        ("1298.99", "EUR", "de_AT", 0, "1.299\(nbsp)€"),
        ("1298.99", "EUR", "de_AT", 8, "1.298,99000000\(nbsp)€"),
        ("1298.99", "USD", "de_AT", 2, "1.298,99\(nbsp)$"),
        ("1298.99", "SEK", "de_AT", 2, "1.298,99\(nbsp)SEK"),
        ("0", "EUR", "de_AT", 2, "0,00\(nbsp)€"),
        ("1234567.5", "EUR", "de_AT", 2, "1.234.567,50\(nbsp)€"),
        // de_DE: symbol last.
        ("1298.99", "EUR", "de_DE", 2, "1.298,99\(nbsp)€"),
        ("-1298.99", "EUR", "de_DE", 2, "-1.298,99\(nbsp)€"),
        ("1298.99", "EUR", "de_DE", 0, "1.299\(nbsp)€"),
        ("0.5", "EUR", "de_DE", 8, "0,50000000\(nbsp)€"),
        ("1298.99", "USD", "de_DE", 2, "1.298,99\(nbsp)$"),
        // en_US.
        ("1298.99", "EUR", "en_US", 2, "€1,298.99"),
        ("-1298.99", "EUR", "en_US", 2, "-€1,298.99"),
        ("1298.99", "USD", "en_US", 2, "$1,298.99"),
        ("-1298.99", "USD", "en_US", 0, "-$1,299"),
        ("1298.99", "USD", "en_US", 8, "$1,298.99000000"),
        ("1298.99", "SEK", "en_US", 2, "SEK\(nbsp)1,298.99"),
        ("1298.99", "MXN", "en_US", 2, "MX$1,298.99"),
        ("1298", "JPY", "en_US", 0, "¥1,298"),
        // sv_SE: no-break space groups, U+2212 minus, symbol last.
        ("1298.99", "SEK", "sv_SE", 2, "1\(nbsp)298,99\(nbsp)kr"),
        ("-1298.99", "SEK", "sv_SE", 2, "\(minus)1\(nbsp)298,99\(nbsp)kr"),
        ("1298.99", "SEK", "sv_SE", 0, "1\(nbsp)299\(nbsp)kr"),
        ("1298.99", "EUR", "sv_SE", 2, "1\(nbsp)298,99\(nbsp)€"),
        ("-1298.99", "EUR", "sv_SE", 8, "\(minus)1\(nbsp)298,99000000\(nbsp)€"),
        ("1298.99", "USD", "sv_SE", 2, "1\(nbsp)298,99\(nbsp)US$"),
        // es_MX: "$" is the peso.
        ("1298.99", "MXN", "es_MX", 2, "$1,298.99"),
        ("-1298.99", "MXN", "es_MX", 2, "-$1,298.99"),
        ("1298.99", "MXN", "es_MX", 0, "$1,299"),
        ("-1298.99", "MXN", "es_MX", 8, "-$1,298.99000000"),
        ("1298.99", "EUR", "es_MX", 2, "EUR\(nbsp)1,298.99"),
        ("1298.99", "USD", "es_MX", 2, "USD\(nbsp)1,298.99"),
    ] as [(String, String, String, Int, String)])
    func currency(amount: String, code: String, locale: String, digits: Int, expected: String) {
        #expect(MoneyFormatter.currency(dec(amount), code: code, locale: locale, fractionDigits: digits) == expected)
    }

    @Test func cryptoGetsTheDigitsAskedFor() {
        let btc = dec("0.12345678")
        #expect(MoneyFormatter.currency(btc, code: "BTC", locale: "en_US", fractionDigits: 8) == "BTC\(nbsp)0.12345678")
        #expect(MoneyFormatter.currency(btc, code: "BTC", locale: "de_AT", fractionDigits: 8) == "0,12345678\(nbsp)BTC")
        #expect(MoneyFormatter.currency(btc, code: "BTC", locale: "sv_SE", fractionDigits: 8) == "0,12345678\(nbsp)BTC")
        #expect(MoneyFormatter.currency(btc, code: "btc", locale: "de_DE", fractionDigits: 2) == "0,12\(nbsp)BTC")
        #expect(MoneyFormatter.currency(dec("1298.99"), code: "JPY", locale: "en_US", fractionDigits: 2) == "¥1,298.99")
    }

    @Test func codesICUCannotTakeAreShownAsTheCode() {
        #expect(MoneyFormatter.currency(dec("-1298.99"), code: "USDT", locale: "en_US", fractionDigits: 2) == "-USDT\(nbsp)1,298.99")
        #expect(MoneyFormatter.currency(dec("1298.99"), code: "USDT", locale: "de_AT", fractionDigits: 2) == "1.298,99\(nbsp)USDT")
        #expect(MoneyFormatter.currency(dec("-1298.99"), code: "USDT", locale: "de_AT", fractionDigits: 2) == "-1.298,99\(nbsp)USDT")
        #expect(MoneyFormatter.currency(dec("1298.99"), code: "doge", locale: "de_DE", fractionDigits: 4) == "1.298,9900\(nbsp)DOGE")
        #expect(MoneyFormatter.currency(dec("-1298.99"), code: "USDT", locale: "sv_SE", fractionDigits: 2) == "\(minus)1\(nbsp)298,99\(nbsp)USDT")
        #expect(MoneyFormatter.currency(dec("1298.99"), code: "SHIB", locale: "es_MX", fractionDigits: 0) == "SHIB\(nbsp)1,299")
        #expect(MoneyFormatter.currency(dec("1"), code: "OP", locale: "en_US", fractionDigits: 2) == "OP\(nbsp)1.00")
    }

    @Test func roundsHalfEvenBeforeICU() {
        #expect(MoneyFormatter.currency(dec("0.005"), code: "EUR", locale: "en_US", fractionDigits: 2) == "€0.00")
        #expect(MoneyFormatter.currency(dec("0.015"), code: "EUR", locale: "en_US", fractionDigits: 2) == "€0.02")
        #expect(MoneyFormatter.currency(dec("1298.995"), code: "EUR", locale: "en_US", fractionDigits: 2) == "€1,299.00")
        #expect(MoneyFormatter.currency(dec("2.5"), code: "EUR", locale: "en_US", fractionDigits: 0) == "€2")
        #expect(MoneyFormatter.currency(dec("-0.004"), code: "EUR", locale: "de_AT", fractionDigits: 2) == "0,00\(nbsp)€")
        #expect(MoneyFormatter.currency(dec("-0.004"), code: "SEK", locale: "sv_SE", fractionDigits: 2) == "0,00\(nbsp)kr")
        #expect(MoneyFormatter.currency(dec("5"), code: "EUR", locale: "en_US", fractionDigits: -3) == "€5")
    }

    @Test func wideValuesStayExact() {
        let nines = dec("99999999999999999999999999999999999999")
        #expect(MoneyFormatter.number(nines, locale: "en_US", fractionDigits: 0) == "99,999,999,999,999,999,999,999,999,999,999,999,999")
        let fractional = dec("-1234567890123456789012.3456789012345678")
        #expect(MoneyFormatter.number(fractional, locale: "de_DE", fractionDigits: 16) == "-1.234.567.890.123.456.789.012,3456789012345678")
        #expect(MoneyFormatter.number(dec("18446744073709551616"), locale: "en_US", fractionDigits: 0) == "18,446,744,073,709,551,616")
    }

    @Test(arguments: [
        ("1298.99", "de_AT", 2, "1.298,99"), ("-1298.99", "de_DE", 2, "-1.298,99"), ("1298.99", "en_US", 0, "1,299"),
        ("-1298.99", "sv_SE", 2, "\(minus)1\(nbsp)298,99"), ("1298.99", "es_MX", 8, "1,298.99000000"), ("0", "en_US", 2, "0.00"),
    ] as [(String, String, Int, String)])
    func number(amount: String, locale: String, digits: Int, expected: String) {
        #expect(MoneyFormatter.number(dec(amount), locale: locale, fractionDigits: digits) == expected)
    }

    @Test(arguments: [
        ("3.12502", "de_AT", "+3,13\(nbsp)%"), ("3.12502", "en_US", "+3.13%"), ("3.12502", "de_DE", "+3,13\(nbsp)%"),
        ("3.12502", "sv_SE", "+3,13\(nbsp)%"), ("3.12502", "es_MX", "+3.13%"), ("-3.12502", "sv_SE", "\(minus)3,13\(nbsp)%"),
        ("-3.12502", "en_US", "-3.13%"), ("0", "en_US", "0.00%"), ("-0.004", "de_AT", "0,00\(nbsp)%"), ("0.005", "en_US", "0.00%"),
        ("0.015", "en_US", "+0.02%"), ("125", "en_US", "+125.00%"),
    ] as [(String, String, String)])
    func signedPercent(value: String, locale: String, expected: String) {
        #expect(MoneyFormatter.percent(dec(value), locale: locale) == expected)
    }

    @Test func percentOptions() {
        #expect(MoneyFormatter.percent(dec("3.12502"), locale: "de_AT", fractionDigits: 0, signed: false) == "3\(nbsp)%")
        #expect(MoneyFormatter.percent(dec("-3.12502"), locale: "en_US", fractionDigits: 4, signed: false) == "-3.1250%")
        #expect(MoneyFormatter.percent(dec("3.12502"), locale: "en_US", fractionDigits: 8, signed: true) == "+3.12502000%")
    }

    @Test func concurrentFormattingIsConsistent() async {
        let locales = ["de_AT", "de_DE", "en_US", "sv_SE", "es_MX"]
        let expected = locales.map { MoneyFormatter.currency(dec("1298.99"), code: "EUR", locale: $0, fractionDigits: 2) }
        let results = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask {
                    var outputs: [String] = []
                    for index in 0..<500 {
                        let locale = locales[index % locales.count]
                        outputs.append(MoneyFormatter.currency(dec("1298.99"), code: "EUR", locale: locale, fractionDigits: 2))
                    }
                    return outputs
                }
            }
            return await group.reduce(into: [[String]]()) { $0.append($1) }
        }
        for outputs in results {
            for (index, output) in outputs.enumerated() {
                #expect(output == expected[index % locales.count])
            }
        }
    }
}

/// The assets exercise's Austrian euro: "1298.99 euros in Austria would be formatted to 1.298,99 €". CLDR's de_AT
/// pattern puts the symbol first; Tickwire overrides that for de_AT currency amounts only.
@Suite("MoneyFormatter: the Austrian euro")
struct AustrianEuroTests {
    /// Exactly 1298.99 EUR in de_AT is "1.298,99" then U+00A0 then "€", character for character.
    @Test func exerciseExample() {
        let text = MoneyFormatter.currency(dec("1298.99"), code: "EUR", locale: "de_AT", fractionDigits: 2)
        #expect(text == "1.298,99\u{00A0}€")
        #expect(text.unicodeScalars.map(\.value) == [0x31, 0x2E, 0x32, 0x39, 0x38, 0x2C, 0x39, 0x39, 0xA0, 0x20AC])
    }

    /// A loss keeps its minus in front of the number; zero (also a tiny loss rounded to zero) has no sign.
    @Test func negativeAndZero() {
        #expect(MoneyFormatter.currency(dec("-1298.99"), code: "EUR", locale: "de_AT", fractionDigits: 2) == "-1.298,99\u{00A0}€")
        #expect(MoneyFormatter.currency(dec("0"), code: "EUR", locale: "de_AT", fractionDigits: 2) == "0,00\u{00A0}€")
        #expect(MoneyFormatter.currency(dec("-0.001"), code: "EUR", locale: "de_AT", fractionDigits: 2) == "0,00\u{00A0}€")
    }

    /// The same no-break space de_DE puts before its symbol; the euro then reads alike in both German locales.
    @Test(arguments: ["1298.99", "-1298.99", "0", "0.5", "1234567.891"])
    func sameAsGermanyForTheEuro(amount: String) {
        let austria = MoneyFormatter.currency(dec(amount), code: "EUR", locale: "de_AT", fractionDigits: 2)
        #expect(austria == MoneyFormatter.currency(dec(amount), code: "EUR", locale: "de_DE", fractionDigits: 2))
        #expect(austria.hasSuffix("\u{00A0}€"))
    }

    /// Other currencies and codes ICU has no symbol for follow the same order in de_AT.
    @Test(arguments: [
        ("USDT", "1.298,99\u{00A0}USDT"), ("BTC", "1.298,99\u{00A0}BTC"), ("USD", "1.298,99\u{00A0}$"),
        ("JPY", "1.298,99\u{00A0}¥"), ("doge", "1.298,99\u{00A0}DOGE"),
    ])
    func otherCodes(code: String, expected: String) {
        #expect(MoneyFormatter.currency(dec("1298.99"), code: code, locale: "de_AT", fractionDigits: 2) == expected)
    }

    /// The override follows the locale, not the spelling of its identifier.
    @Test(arguments: ["de_AT", "de-AT", "de_AT_POSIX"])
    func identifierSpellings(locale: String) {
        #expect(MoneyFormatter.currency(dec("1298.99"), code: "EUR", locale: locale, fractionDigits: 2) == "1.298,99\u{00A0}€")
    }

    /// Plain numbers and percentages in de_AT are ICU's, unchanged.
    @Test func numbersAndPercentagesUnchanged() {
        #expect(MoneyFormatter.number(dec("1298.99"), locale: "de_AT", fractionDigits: 2) == "1.298,99")
        #expect(MoneyFormatter.percent(dec("3.12502"), locale: "de_AT") == "+3,13\u{00A0}%")
    }

    /// Every other locale is exactly ICU's output, as before the override (en_US, de_DE, sv_SE, fr_FR, es_ES,
    /// en_GB, and English in Austria, which is not German).
    @Test(arguments: [
        ("en_US", "€1,298.99", "-€1,298.99"),
        ("de_DE", "1.298,99\u{00A0}€", "-1.298,99\u{00A0}€"),
        ("sv_SE", "1\u{00A0}298,99\u{00A0}€", "\u{2212}1\u{00A0}298,99\u{00A0}€"),
        ("fr_FR", "1\u{202F}298,99\u{00A0}€", "-1\u{202F}298,99\u{00A0}€"),
        ("es_ES", "1298,99\u{00A0}€", "-1298,99\u{00A0}€"),
        ("en_GB", "€1,298.99", "-€1,298.99"),
        ("en_AT", "€\u{00A0}1.298,99", "€\u{00A0}-1.298,99"),
    ])
    func otherLocalesUnchanged(locale: String, positive: String, negative: String) {
        #expect(MoneyFormatter.currency(dec("1298.99"), code: "EUR", locale: locale, fractionDigits: 2) == positive)
        #expect(MoneyFormatter.currency(dec("-1298.99"), code: "EUR", locale: locale, fractionDigits: 2) == negative)
    }
}
