import Foundation
import Synchronization

/// Locale-aware display of amounts (ICU through Foundation's `FormatStyle`), with the locale always passed
/// explicitly (never `Locale.current`).
///
/// Amounts are rounded half-even to `fractionDigits` (clamped to 0...38) by ``ExactDecimal`` before ICU sees them,
/// and handed over as `Foundation.Decimal` built exactly from the digits, so ICU never rounds and a value that
/// rounds to zero prints without a minus sign. Output keeps ICU's characters, e.g. no-break spaces (U+00A0)
/// and, in sv_SE, the minus sign U+2212. Styles are cached per (locale, code, digits); all functions are thread-safe.
///
/// One deliberate exception to ICU: Austrian German (de_AT) currency amounts put the symbol after the number,
/// `1.298,99 €`, as the assets exercise writes "1298.99 euros in Austria", where CLDR's de_AT pattern gives
/// `€ 1.298,99`. See ``currency(_:code:locale:fractionDigits:)``.
public enum MoneyFormatter {
    /// `amount` in the currency `code` for `locale` (e.g. "de_DE" → "1.298,99 €", "en_US" → "€1,298.99"), with
    /// exactly `fractionDigits` digits whatever the currency's usual minor units (BTC gets 8 if asked for 8). ICU
    /// handles 3-letter codes; longer or shorter codes (USDT) are shown as the code itself where ICU places a code
    /// it has no symbol for.
    ///
    /// Override for de_AT (any identifier whose language is German and region Austria, e.g. "de_AT", "de-AT"): ICU
    /// formats the amount with Austria's symbols and separators (`€ 1.298,99`), then the symbol moves behind the
    /// number with the same U+00A0 no-break space de_DE uses: `1.298,99 €`, `-1.298,99 €`, `0,00 €`,
    /// `1.298,99 USDT`, `1.298,99 $`. Every other locale is ICU's output unchanged.
    public static func currency(_ amount: ExactDecimal, code: String, locale: String, fractionDigits: Int) -> String {
        let digits = clampedDigits(fractionDigits)
        let value = amount.rounded(scale: digits).foundationDecimal
        let upper = code.uppercased()
        let usesICUCode = upper.utf8.count == 3 && upper.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        let key = StyleKey(locale: locale, code: usesICUCode ? upper : placeholderCode, digits: digits)
        let style = currencyStyles.style(for: key) {
            let resolved = Locale(identifier: locale)
            return CurrencyStyle(
                format: Decimal.FormatStyle.Currency(code: key.code, locale: resolved).precision(.fractionLength(digits)),
                symbolAfterNumber: isAustrian(resolved)
            )
        }
        var text = style.format.format(value)
        if style.symbolAfterNumber { text = symbolAfterNumber(text) }
        return usesICUCode ? text : text.replacing(placeholderCode, with: upper)
    }

    /// `amount` as a plain grouped number for `locale` with exactly `fractionDigits` digits: "1.298,99" (de_AT).
    public static func number(_ amount: ExactDecimal, locale: String, fractionDigits: Int) -> String {
        let digits = clampedDigits(fractionDigits)
        let key = StyleKey(locale: locale, code: "", digits: digits)
        let style = numberStyles.style(for: key) {
            Decimal.FormatStyle(locale: Locale(identifier: locale)).precision(.fractionLength(digits))
        }
        return style.format(amount.rounded(scale: digits).foundationDecimal)
    }

    /// `value`, given in percent units, as a percentage for `locale`: 3.12502 → "+3,13 %" (de_AT), "+3.13%" (en_US).
    /// With `signed`, positive values get a plus sign; zero (also after rounding) never gets a sign.
    public static func percent(_ value: ExactDecimal, locale: String, fractionDigits: Int = 2, signed: Bool = true) -> String {
        let digits = clampedDigits(fractionDigits)
        let key = StyleKey(locale: locale, code: signed ? "+" : "", digits: digits)
        let style = percentStyles.style(for: key) {
            Decimal.FormatStyle.Percent(locale: Locale(identifier: locale))
                .precision(.fractionLength(digits))
                .sign(strategy: signed ? .always(includingZero: false) : .automatic)
        }
        let rounded = value.rounded(scale: digits).foundationDecimal
        let fraction = Decimal(sign: rounded.sign, exponent: -2, significand: rounded.magnitude)
        return style.format(fraction)
    }

    /// A 3-letter code ICU shows as itself (no symbol in any locale), replaced by codes ICU cannot take.
    private static let placeholderCode = "XTS"

    /// Whether `locale` is Austrian German, whose currency amounts get the symbol after the number.
    private static func isAustrian(_ locale: Locale) -> Bool {
        locale.language.languageCode?.identifier == "de" && locale.region?.identifier == "AT"
    }

    /// ICU's de_AT currency text, `[minus]symbol U+00A0 number`, as `[minus]number U+00A0 symbol`. A text of any
    /// other shape (which no ICU here produces; the tests pin the de_AT outputs) is returned as ICU wrote it.
    private static func symbolAfterNumber(_ text: String) -> String {
        var rest = Substring(text)
        var sign = ""
        if let first = rest.first, first == "-" || first == "\u{2212}" {
            sign = String(first)
            rest = rest.dropFirst()
        }
        guard let space = rest.firstIndex(of: "\u{00A0}") else { return text }
        let symbol = rest[..<space]
        let number = rest[rest.index(after: space)...]
        guard !symbol.isEmpty, !symbol.contains(where: \.isNumber), number.first?.isNumber == true else { return text }
        return sign + number + "\u{00A0}" + symbol
    }

    private static let currencyStyles = StyleCache<CurrencyStyle>()
    private static let numberStyles = StyleCache<Decimal.FormatStyle>()
    private static let percentStyles = StyleCache<Decimal.FormatStyle.Percent>()

    private static func clampedDigits(_ digits: Int) -> Int {
        min(max(digits, 0), ExactDecimal.maxScale)
    }
}

/// A cached currency style and whether its locale moves the symbol behind the number (de_AT).
private struct CurrencyStyle: Sendable {
    let format: Decimal.FormatStyle.Currency
    let symbolAfterNumber: Bool
}

/// What a cached style is for; `code` also distinguishes signed percent styles ("+").
private struct StyleKey: Hashable, Sendable {
    let locale: String
    let code: String
    let digits: Int
}

/// A thread-safe cache of format styles, emptied when it reaches `capacity` so odd inputs cannot grow it unbounded.
private final class StyleCache<Style: Sendable>: Sendable {
    private let styles = Mutex<[StyleKey: Style]>([:])
    private let capacity = 512

    /// The cached style for `key`, made by `make` on first use.
    func style(for key: StyleKey, make: () -> Style) -> Style {
        styles.withLock { styles in
            if let style = styles[key] { return style }
            if styles.count >= capacity { styles.removeAll(keepingCapacity: true) }
            let style = make()
            styles[key] = style
            return style
        }
    }
}
