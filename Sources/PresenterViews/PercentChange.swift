import Money

/// Relative change between two values, for the percentages the sources do not give.
public enum PercentChange {
    /// `(to − from) / from × 100`, rounded half-even to 4 places; nil when `from` is zero or the arithmetic overflows.
    public static func between(_ from: ExactDecimal, _ to: ExactDecimal) -> ExactDecimal? {
        guard !from.isZero, let difference = try? to - from, let scaled = try? difference * 100 else { return nil }
        return try? scaled.divided(by: from, scale: 4)
    }
}
