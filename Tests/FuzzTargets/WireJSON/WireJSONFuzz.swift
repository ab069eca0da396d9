import Bus
import BusContract
import ContractWire
import Foundation
import Market
import Money
import TickwireContract
import WireJSON
import WireJSONTesting

/// The WireJSON decoder against Foundation's `JSONDecoder` on one input: both must accept or both refuse
/// (WireJSON may refuse more: invalid UTF-8, raw control characters, its limits), and what both accept
/// must decode to the same value. Read as any JSON value, as a quote (the hand-written fast path), and as each
/// streaming type through its direct codec (``WireJSONDecoder/decodeDirect(_:from:)``), which must also agree
/// with the tape alone (``directAgreesWithTape(_:)``).
public enum WireJSONFuzz {
    private static let decoder = WireJSONDecoder(userInfo: [ExactDecimal.stringsOnly: true])

    /// How the decoders disagree on `input`; empty when they agree.
    public static func check(_ input: Data) -> [String] {
        let bytes = Array(input)
        return [
            disagreement(bytes, as: JSONValue.self) { try decoder.decode(JSONValue.self, from: $0) },
            disagreement(bytes, as: Quote.self) { try decoder.decode(Quote.self, from: $0) },
            disagreement(bytes, as: Envelope<Quote>.self) { try direct(Envelope<Quote>.self, $0) },
            disagreement(bytes, as: Envelope<AssetPrice>.self) { try direct(Envelope<AssetPrice>.self, $0) },
            disagreement(bytes, as: Heartbeat.self) { try direct(Heartbeat.self, $0) },
            disagreement(bytes, as: ExchangeRate.self) { try direct(ExchangeRate.self, $0) },
            disagreement(bytes, as: BookDepth.self) { try direct(BookDepth.self, $0) },
        ].compactMap { $0 } + directAgreesWithTape(bytes)
    }

    /// How each streaming type's direct decode (its fast path, else the tape) and the tape alone disagree on
    /// `bytes`: the fast path must read a strict subset of what the tape reads, to the same values, and leave
    /// everything else to the tape, errors word for word. Empty when they agree.
    public static func directAgreesWithTape(_ bytes: [UInt8]) -> [String] {
        [
            directDisagreement(bytes, as: Envelope<Quote>.self, decoder: decoder),
            directDisagreement(bytes, as: Envelope<AssetPrice>.self, decoder: decoder),
            directDisagreement(bytes, as: Envelope<Heartbeat>.self, decoder: decoder),
            directDisagreement(bytes, as: Envelope<ExchangeRate>.self, decoder: decoder),
            directDisagreement(bytes, as: Envelope<BookDepth>.self, decoder: decoder),
            directDisagreement(bytes, as: Quote.self, decoder: decoder),
            directDisagreement(bytes, as: AssetPrice.self, decoder: decoder),
            directDisagreement(bytes, as: Heartbeat.self, decoder: decoder),
            directDisagreement(bytes, as: ExchangeRate.self, decoder: decoder),
            directDisagreement(bytes, as: BookDepth.self, decoder: decoder),
        ].compactMap { $0 }
    }

    /// `T` from `data` through its direct codec.
    private static func direct<T: DirectWireDecodable>(_ type: T.Type, _ data: Data) throws -> T {
        try data.withUnsafeBytes { try decoder.decodeDirect(T.self, from: $0) }
    }
}
