import Foundation
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
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        asset = try object.decode(forKey: "asset")
        currency = try object.decode(forKey: "currency")
        price = try object.decode(forKey: "price")
        changePercent24h = try object.decodeIfPresent(forKey: "changePercent24h")
        path = try object.decode(forKey: "path")
        quoteTime = try object.decodeIfPresent(forKey: "quoteTime")
    }
}
