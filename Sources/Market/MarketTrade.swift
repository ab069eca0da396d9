import Foundation
import Money

/// The side of the order that took liquidity in a trade.
public enum TradeSide: String, Sendable, Hashable, Codable, CaseIterable {
    /// A buyer lifted an ask.
    case buy
    /// A seller hit a bid.
    case sell
}

/// One trade on an exchange: the `trade.<feed>.<BASE>-<QUOTE>` stream.
public struct MarketTrade: Sendable, Hashable, Codable {
    /// The feed that saw it, e.g. `bitso-ws`.
    public var source: String
    /// The market, e.g. BTC-MXN.
    public var market: MarketPair
    /// The exchange's id of the trade.
    public var id: String
    /// The price, in the market's quote currency.
    public var price: ExactDecimal
    /// The amount traded, in the base currency; positive.
    public var size: ExactDecimal
    /// The taker's side, where the exchange says.
    public var side: TradeSide?
    /// When the exchange matched it.
    public var time: Date

    /// A trade.
    public init(source: String, market: MarketPair, id: String, price: ExactDecimal, size: ExactDecimal, side: TradeSide? = nil, time: Date) {
        self.source = source
        self.market = market
        self.id = id
        self.price = price
        self.size = size
        self.side = side
        self.time = time
    }
}
