import ContractWire
import Foundation
import Market
import Money
import WireJSON
import WireJSONTesting

/// The WireJSON decoder against Foundation's `JSONDecoder` on one input: both must accept or both refuse
/// (WireJSON may refuse more: invalid UTF-8, raw control characters, its limits), and what both accept
/// must decode to the same value. Read as any JSON value and as a quote (the hand-written fast path).
public enum WireJSONFuzz {
    private static let decoder = WireJSONDecoder(userInfo: [ExactDecimal.stringsOnly: true])

    /// How the decoders disagree on `input`; empty when they agree.
    public static func check(_ input: Data) -> [String] {
        let bytes = Array(input)
        return [
            disagreement(bytes, as: JSONValue.self) { try decoder.decode(JSONValue.self, from: $0) },
            disagreement(bytes, as: Quote.self) { try decoder.decode(Quote.self, from: $0) },
        ].compactMap { $0 }
    }
}
