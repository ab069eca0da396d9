import Foundation
import Synchronization

/// Locale-aware display of amounts (ICU through Foundation's `FormatStyle`), with the locale always passed
/// explicitly (never `Locale.current`).
///
/// Amounts are rounded half-even to `fractionDigits` (clamped to 0...38) by ``ExactDecimal`` before ICU sees them,
/// and handed over as `Foundation.Decimal` built exactly from the digits, so ICU never rounds and a value that
/// rounds to zero prints without a minus sign. Output keeps ICU's characters, e.g. no-break spaces (U+00A0)
/// and, in sv_SE, the minus sign U+2212. Styles are cached per (locale, code, digits); all functions are thread-safe.
public enum MoneyFormatter {
    /// `amount` in the currency `code` for `locale` (e.g. "de_AT" → "€ 1.298,99"), with exactly `fractionDigits`
    /// digits whatever the currency's usual minor units (BTC gets 8 if asked for 8). ICU handles 3-letter codes;
    /// longer or shorter codes (USDT) are shown as the code itself where ICU places a code it has no symbol for.
    public static func currency(_ amount: ExactDecimal, code: String, locale: String, fractionDigits: Int) -> String {
        let digits = clampedDigits(fractionDigits)
        let value = amount.rounded(scale: digits).foundationDecimal
        let upper = code.uppercased()
        let usesICUCode = upper.utf8.count == 3 && upper.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
        let key = StyleKey(locale: locale, code: usesICUCode ? upper : placeholderCode, digits: digits)
        let style = currencyStyles.style(for: key) {
            Decimal.FormatStyle.Currency(code: key.code, locale: Locale(identifier: locale)).precision(.fractionLength(digits))
        }
        let text = style.format(value)
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

    private static let currencyStyles = StyleCache<Decimal.FormatStyle.Currency>()
    private static let numberStyles = StyleCache<Decimal.FormatStyle>()
    private static let percentStyles = StyleCache<Decimal.FormatStyle.Percent>()

    private static func clampedDigits(_ digits: Int) -> Int {
        min(max(digits, 0), ExactDecimal.maxScale)
    }
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
