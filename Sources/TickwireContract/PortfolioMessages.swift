import Foundation
import Market
import Money

/// One trade of the user's portfolio.
public struct Trade: Codable, Sendable, Equatable {
    /// The trade's id.
    public var id: String
    /// The asset bought (positive amount).
    public var asset: String
    /// Units of the asset.
    public var amount: ExactDecimal
    /// Price paid per unit, in `currency`.
    public var price: ExactDecimal
    /// The currency of `price`.
    public var currency: String
    /// When the trade happened.
    public var date: Date
    /// When it was recorded.
    public var recordedAt: Date

    /// A trade.
    public init(id: String, asset: String, amount: ExactDecimal, price: ExactDecimal, currency: String, date: Date, recordedAt: Date) {
        self.id = id
        self.asset = asset
        self.amount = amount
        self.price = price
        self.currency = currency
        self.date = date
        self.recordedAt = recordedAt
    }
}

/// `trades.add`: records a trade once per `requestId`.
public struct AddTradeRequest: Codable, Sendable, Equatable {
    /// The asset, e.g. `BTC`.
    public var asset: String
    /// Units bought; must be positive.
    public var amount: ExactDecimal
    /// Price per unit; must not be negative.
    public var price: ExactDecimal
    /// The currency of `price`.
    public var currency: String
    /// When the trade happened; not in the future.
    public var date: Date
    /// A client-chosen id; a retried request with the same id returns the first result.
    public var requestId: String

    /// A request to add a trade.
    public init(asset: String, amount: ExactDecimal, price: ExactDecimal, currency: String, date: Date, requestId: String) {
        self.asset = asset
        self.amount = amount
        self.price = price
        self.currency = currency
        self.date = date
        self.requestId = requestId
    }
}

/// `trades.remove`.
public struct RemoveTradeRequest: Codable, Sendable, Equatable {
    /// The trade's id.
    public var id: String

    /// A request to remove a trade.
    public init(id: String) { self.id = id }
}

/// `holdings {currency?}` (USD by default).
public struct HoldingsRequest: Codable, Sendable, Equatable {
    /// The valuation currency.
    public var currency: String?

    /// A request for the holdings valued in `currency`.
    public init(currency: String? = nil) { self.currency = currency }
}

/// What the user holds of one asset, valued in one currency.
public struct Holding: Codable, Sendable, Equatable {
    /// The asset.
    public var asset: String
    /// Units held.
    public var amount: ExactDecimal
    /// How many trades make it up.
    public var trades: Int
    /// The price per unit used, if known.
    public var price: ExactDecimal?
    /// `amount × price`, rounded to the currency's minor units, if the price is known.
    public var value: ExactDecimal?
    /// What the trades cost, in the valuation currency, if every trade could be converted.
    public var cost: ExactDecimal?
    /// `value − cost`, when both are known.
    public var gain: ExactDecimal?
    /// When the price was last updated.
    public var priceTime: Date?

    /// A holding.
    public init(asset: String, amount: ExactDecimal, trades: Int, price: ExactDecimal?, value: ExactDecimal?, cost: ExactDecimal?, gain: ExactDecimal?, priceTime: Date?) {
        self.asset = asset
        self.amount = amount
        self.trades = trades
        self.price = price
        self.value = value
        self.cost = cost
        self.gain = gain
        self.priceTime = priceTime
    }
}

/// The whole portfolio valued in one currency: the answer to `holdings`.
public struct Valuation: Codable, Sendable, Equatable {
    /// The valuation currency.
    public var currency: String
    /// One entry per asset held, sorted by asset.
    public var holdings: [Holding]
    /// The sum of the known values.
    public var totalValue: ExactDecimal
    /// The sum of the known costs.
    public var totalCost: ExactDecimal
    /// `totalValue − totalCost` over holdings where both are known.
    public var totalGain: ExactDecimal
    /// The oldest price used.
    public var pricesAsOf: Date?
    /// Seconds since `pricesAsOf`.
    public var priceAgeSeconds: Int?
    /// Whether the converter's price stream is down, so stored prices were used.
    public var offline: Bool
    /// What could not be valued, and why.
    public var warnings: [String]

    /// A valuation.
    public init(currency: String, holdings: [Holding], totalValue: ExactDecimal, totalCost: ExactDecimal, totalGain: ExactDecimal, pricesAsOf: Date?, priceAgeSeconds: Int?, offline: Bool, warnings: [String]) {
        self.currency = currency
        self.holdings = holdings
        self.totalValue = totalValue
        self.totalCost = totalCost
        self.totalGain = totalGain
        self.pricesAsOf = pricesAsOf
        self.priceAgeSeconds = priceAgeSeconds
        self.offline = offline
        self.warnings = warnings
    }
}

/// `watchlist.add` / `watchlist.remove`.
public struct WatchlistRequest: Codable, Sendable, Equatable {
    /// The asset, e.g. `BTC`.
    public var asset: String

    /// A watch-list change.
    public init(asset: String) { self.asset = asset }
}

/// One wallet as the wallets screen lists it.
public struct WalletEntry: Codable, Sendable, Equatable {
    /// The wallet's id.
    public var id: String
    /// Its name.
    public var name: String
    /// Its balance.
    public var balance: ExactDecimal
    /// Whether it is the default wallet of its asset.
    public var isDefault: Bool
    /// The asset's symbol.
    public var symbol: String
    /// The asset's name.
    public var assetName: String
    /// The asset's light icon URL.
    public var iconLight: String
    /// The asset's dark icon URL.
    public var iconDark: String
    /// Fraction digits for the balance.
    public var precision: Int

    /// A wallet entry.
    public init(id: String, name: String, balance: ExactDecimal, isDefault: Bool, symbol: String, assetName: String, iconLight: String, iconDark: String, precision: Int) {
        self.id = id
        self.name = name
        self.balance = balance
        self.isDefault = isDefault
        self.symbol = symbol
        self.assetName = assetName
        self.iconLight = iconLight
        self.iconDark = iconDark
        self.precision = precision
    }
}

/// `wallets`: every non-deleted wallet, grouped and sorted by balance, largest first.
public struct WalletGroups: Codable, Sendable, Equatable {
    /// Fiat wallets.
    public var fiat: [WalletEntry]
    /// Crypto wallets.
    public var crypto: [WalletEntry]
    /// Commodity wallets.
    public var commodity: [WalletEntry]

    /// Wallet groups.
    public init(fiat: [WalletEntry], crypto: [WalletEntry], commodity: [WalletEntry]) {
        self.fiat = fiat
        self.crypto = crypto
        self.commodity = commodity
    }
}

/// One GNB product in `products`.
public struct ProductSummary: Codable, Sendable, Equatable {
    /// The SKU.
    public var sku: String
    /// How many transactions it has.
    public var transactions: Int

    /// A product summary.
    public init(sku: String, transactions: Int) {
        self.sku = sku
        self.transactions = transactions
    }
}

/// `product {sku, currency?}` (EUR by default).
public struct ProductRequest: Codable, Sendable, Equatable {
    /// The SKU.
    public var sku: String
    /// The currency of the total.
    public var currency: String?

    /// A product request.
    public init(sku: String, currency: String? = nil) {
        self.sku = sku
        self.currency = currency
    }
}

/// One product's transactions converted, and their total (the GNB rule, through the converter's `gnb` source).
public struct ProductDetail: Codable, Sendable, Equatable {
    /// The SKU.
    public var sku: String
    /// The total's currency.
    public var currency: String
    /// The sum of the rounded conversions.
    public var total: ExactDecimal
    /// Each transaction with its converted amount and the rate path used.
    public var transactions: [TotalResult.Item]

    /// A product's detail.
    public init(sku: String, currency: String, total: ExactDecimal, transactions: [TotalResult.Item]) {
        self.sku = sku
        self.currency = currency
        self.total = total
        self.transactions = transactions
    }
}

/// The payload of `portfolio.changed`.
public struct PortfolioChange: Codable, Sendable, Equatable {
    /// What changed: `trade.added`, `trade.removed`, `watchlist.added`, `watchlist.removed`.
    public var reason: String
    /// The trade id or asset concerned.
    public var subject: String

    /// A change event.
    public init(reason: String, subject: String) {
        self.reason = reason
        self.subject = subject
    }
}
