/// How much of a JSON text the decoder reads before refusing it: bounds on what a hostile peer can
/// make a service spend (stack on nesting, memory and time on one long number or string).
///
/// A text over a limit is refused like invalid JSON, with a ``JSONSyntaxError`` whose
/// ``JSONSyntaxError/limit`` names the limit and whose offset is where it was crossed.
public struct WireJSONLimits: Sendable, Equatable {
    /// Arrays and objects nested deeper than this are refused (the top-level value is depth 1).
    public var maxDepth: Int
    /// A number longer than this many bytes of text is refused.
    public var maxNumberLength: Int
    /// A string (or key) longer than this many bytes of text, escapes as written, is refused.
    public var maxStringLength: Int

    /// Limits of your own; each must be at least 1.
    public init(maxDepth: Int = 64, maxNumberLength: Int = 100, maxStringLength: Int = 1 << 20) {
        precondition(maxDepth >= 1 && maxNumberLength >= 1 && maxStringLength >= 1, "WireJSONLimits must be positive")
        self.maxDepth = maxDepth
        self.maxNumberLength = maxNumberLength
        self.maxStringLength = maxStringLength
    }

    /// What the wire uses: depth 64, numbers of 100 bytes, strings of 1 MiB. No Tickwire message comes
    /// near them (the deepest nests 5 levels, the longest string is a product name or an icon's URL).
    public static let `default` = WireJSONLimits()

    /// Which limit a text crossed, and its value.
    public enum Limit: Sendable, Equatable, CustomStringConvertible {
        case depth(Int)
        case numberLength(Int)
        case stringLength(Int)

        public var description: String {
            switch self {
            case .depth(let maximum): "nested deeper than the depth limit of \(maximum)"
            case .numberLength(let maximum): "a number longer than the limit of \(maximum) bytes"
            case .stringLength(let maximum): "a string longer than the limit of \(maximum) bytes"
            }
        }
    }
}
