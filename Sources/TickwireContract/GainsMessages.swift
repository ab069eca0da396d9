import Foundation
import Money

/// How the cost of units sold (or moved out) is taken from the lots held.
public enum CostBasisMethod: String, Codable, Sendable, Equatable, CaseIterable {
    /// First in, first out: a sell takes the oldest lots first.
    case fifo
    /// Average cost: every unit held costs the same, the pool's cost over its quantity.
    case average
}

/// `gains {currency?, method?, portfolio?}`: realized and unrealized gains per asset and in total.
public struct GainsRequest: Codable, Sendable, Equatable {
    /// The display currency (USD by default).
    public var currency: String?
    /// The cost basis method; the service's `--cost-basis` (FIFO by default) when absent.
    public var method: CostBasisMethod?
    /// The portfolio; `main` when absent.
    public var portfolio: String?

    /// A request for the gains of `portfolio` (`main` when nil) in `currency` by `method`.
    public init(currency: String? = nil, method: CostBasisMethod? = nil, portfolio: String? = nil) {
        self.currency = currency
        self.method = method
        self.portfolio = portfolio
    }
}

/// One asset's gains, in the display currency; a figure that needs a conversion the converter could not make is absent.
public struct AssetGains: Codable, Sendable, Equatable {
    /// The asset.
    public var asset: String
    /// Units held now.
    public var quantity: ExactDecimal
    /// How many activities concern it.
    public var activities: Int
    /// What the units held cost (their lots, buy fees included).
    public var costBasis: ExactDecimal?
    /// The current price per unit, if known.
    public var price: ExactDecimal?
    /// `quantity × price`, rounded to the currency's minor units, if the price is known.
    public var value: ExactDecimal?
    /// Sells' proceeds (less their fees) over the cost of the units sold, less fee activities.
    public var realizedGain: ExactDecimal?
    /// `value − costBasis`.
    public var unrealizedGain: ExactDecimal?
    /// Every fee paid for it: on buys and sells, and fee activities.
    public var fees: ExactDecimal?
    /// When the price was last updated.
    public var priceTime: Date?

    /// An asset's gains.
    public init(
        asset: String, quantity: ExactDecimal, activities: Int, costBasis: ExactDecimal?, price: ExactDecimal?, value: ExactDecimal?,
        realizedGain: ExactDecimal?, unrealizedGain: ExactDecimal?, fees: ExactDecimal?, priceTime: Date?
    ) {
        self.asset = asset
        self.quantity = quantity
        self.activities = activities
        self.costBasis = costBasis
        self.price = price
        self.value = value
        self.realizedGain = realizedGain
        self.unrealizedGain = unrealizedGain
        self.fees = fees
        self.priceTime = priceTime
    }
}

/// The answer to `gains`: every asset with an activity, and the totals of what is known.
public struct PortfolioGains: Codable, Sendable, Equatable {
    /// The display currency.
    public var currency: String
    /// The cost basis method used.
    public var method: CostBasisMethod
    /// One entry per asset with an activity (sold out ones included), sorted by asset.
    public var assets: [AssetGains]
    /// The sum of the known cost bases.
    public var totalCostBasis: ExactDecimal
    /// The sum of the known values.
    public var totalValue: ExactDecimal
    /// The sum of the known realized gains.
    public var totalRealizedGain: ExactDecimal
    /// The sum of the known unrealized gains.
    public var totalUnrealizedGain: ExactDecimal
    /// `totalRealizedGain + totalUnrealizedGain`.
    public var totalGain: ExactDecimal
    /// The sum of the known fees.
    public var totalFees: ExactDecimal
    /// The oldest price used.
    public var pricesAsOf: Date?
    /// Whether the converter's price stream is down, so stored prices were used.
    public var offline: Bool
    /// What could not be worked out, and why.
    public var warnings: [String]

    /// A portfolio's gains.
    public init(
        currency: String, method: CostBasisMethod, assets: [AssetGains], totalCostBasis: ExactDecimal, totalValue: ExactDecimal,
        totalRealizedGain: ExactDecimal, totalUnrealizedGain: ExactDecimal, totalGain: ExactDecimal, totalFees: ExactDecimal,
        pricesAsOf: Date?, offline: Bool, warnings: [String]
    ) {
        self.currency = currency
        self.method = method
        self.assets = assets
        self.totalCostBasis = totalCostBasis
        self.totalValue = totalValue
        self.totalRealizedGain = totalRealizedGain
        self.totalUnrealizedGain = totalUnrealizedGain
        self.totalGain = totalGain
        self.totalFees = totalFees
        self.pricesAsOf = pricesAsOf
        self.offline = offline
        self.warnings = warnings
    }
}
