import Foundation
import Market
import Money
import TickwireContract
import WireJSON

// `price.*` streams carry one `AssetPrice` per asset and display currency on every repricing:
// the wire codes them member by member.

extension AssetPrice: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(asset, forKey: "asset")
        try object.encode(currency, forKey: "currency")
        try object.encode(price, forKey: "price")
        try object.encodeIfPresent(changePercent24h, forKey: "changePercent24h")
        try object.encode(path, forKey: "path")
        try object.encodeIfPresent(quoteTime, forKey: "quoteTime")
        try object.encodeIfPresent(source, forKey: "source")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        try self.init(
            asset: object.decode(forKey: "asset"), currency: object.decode(forKey: "currency"), price: object.decode(forKey: "price"),
            changePercent24h: object.decodeIfPresent(forKey: "changePercent24h"), path: object.decode(forKey: "path"),
            quoteTime: object.decodeIfPresent(forKey: "quoteTime"), source: object.decodeIfPresent(forKey: "source"))
    }
}
