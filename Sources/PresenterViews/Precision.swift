import Money

/// How many fraction digits an amount is shown with.
public enum Precision {
    /// The most significant digits a price below 1 is shown with.
    static let significantDigitsBelowOne = 6

    /// A currency's usual digits: ISO minor units for fiats (JPY 0, USD 2), 8 for crypto, 4 for commodities;
    /// 8 for a code that is not well formed, so nothing is cut off.
    public static func digits(forCode code: String) -> Int {
        (try? Currency(code: code))?.minorUnits ?? 8
    }

    /// Digits for a price in `code`: at least the currency's digits, and for a price below 1 as many as its
    /// digits need, up to six significant ones ($0.2460 → "$0.246", $0.00001234567 → "$0.0000123457").
    public static func priceDigits(_ price: ExactDecimal, code: String) -> Int {
        let base = digits(forCode: code)
        let value = price.normalized
        let magnitude = value.mantissa.magnitude
        guard magnitude != 0, value.scale > 0 else { return base }
        let digitCount = String(magnitude).count
        guard digitCount <= value.scale else { return base }
        let leadingZeros = value.scale - digitCount
        return max(base, min(value.scale, leadingZeros + significantDigitsBelowOne))
    }
}
