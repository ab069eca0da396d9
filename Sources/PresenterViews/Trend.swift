import Money

/// Which way a figure moved, for colouring: judged on the value as displayed, so "0.00 %" is flat.
public enum Trend: String, Codable, Sendable, Equatable {
    /// Above zero.
    case up
    /// Below zero.
    case down
    /// Zero once rounded to the digits shown.
    case flat

    /// The trend of `value` rounded half-even to `fractionDigits`.
    public init(_ value: ExactDecimal, fractionDigits: Int) {
        let shown = value.rounded(scale: fractionDigits)
        self = shown.isZero ? .flat : (shown.isNegative ? .down : .up)
    }
}
