import Foundation
import Money

/// A price as the portfolio keeps it for offline valuation.
public struct StoredPrice: Codable, Sendable, Equatable {
    /// The asset.
    public var asset: String
    /// The currency of `price`.
    public var currency: String
    /// One unit of the asset in `currency`.
    public var price: ExactDecimal
    /// The 24 h change in percent, if known.
    public var changePercent24h: ExactDecimal?
    /// When the portfolio received it.
    public var updatedAt: Date

    /// A stored price.
    public init(asset: String, currency: String, price: ExactDecimal, changePercent24h: ExactDecimal?, updatedAt: Date) {
        self.asset = asset
        self.currency = currency
        self.price = price
        self.changePercent24h = changePercent24h
        self.updatedAt = updatedAt
    }
}
