import Foundation
import Money

/// A price at a moment.
public struct PricePoint: Sendable, Hashable, Codable {
    /// When.
    public var time: Date
    /// The price then.
    public var price: ExactDecimal

    /// A point.
    public init(time: Date, price: ExactDecimal) {
        self.time = time
        self.price = price
    }
}

/// An asset's price over time, oldest point first.
public struct PriceHistory: Sendable, Hashable, Codable {
    /// The asset, as its source names it (e.g. CoinGecko's "bitcoin").
    public var asset: String
    /// The currency prices are in, e.g. "USD".
    public var currency: String
    /// The prices, oldest first.
    public var points: [PricePoint]

    /// A history.
    public init(asset: String, currency: String, points: [PricePoint]) {
        self.asset = asset
        self.currency = currency
        self.points = points
    }
}
