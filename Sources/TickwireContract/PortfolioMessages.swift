import Foundation
import Market
import Money

/// What an activity of the portfolio does (Ghostfolio's `BUY`, `SELL`, `FEE`, lower-case; Ghostfolio has no transfers).
///
/// On the wire: `buy`, `sell`, `fee`, `transfer_in`, `transfer_out`. A trade recorded without a kind is a buy.
public enum ActivityKind: String, Codable, Sendable, Equatable, CaseIterable {
    /// Units bought at `price`: a new lot whose cost is `amount × price` plus its fee.
    case buy
    /// Units sold at `price`: realizes the gain over the cost of the lots it takes; its fee reduces the proceeds.
    case sell
    /// A cost of an asset paid in any currency (`fee`); changes no quantity, reduces the asset's realized gain.
    case fee
    /// Units moved in from elsewhere: a lot at `price` per unit (zero cost when `price` is left out); realizes nothing.
    case transferIn = "transfer_in"
    /// Units moved out: takes lots like a sell (their cost basis goes with them) but realizes nothing.
    case transferOut = "transfer_out"

    /// Whether it takes units out of the holding (and so may not exceed what is held at its date).
    public var reducesHolding: Bool { self == .sell || self == .transferOut }
}

/// One activity of the user's portfolio (called a trade since the portfolio recorded buys only): a buy, sell,
/// fee or transfer. Its JSON without `kind` (written before activities) is a buy; without `portfolio` (written before
/// several portfolios) it belongs to `main`.
public struct Trade: Codable, Sendable, Equatable {
    /// The name of the portfolio every activity belongs to unless it names another.
    public static let mainPortfolio = "main"

    /// The trade's id.
    public var id: String
    /// The portfolio (a named account) it belongs to; `main` when absent.
    public var portfolio: String
    /// What it does; `buy` when absent.
    public var kind: ActivityKind
    /// The asset concerned.
    public var asset: String
    /// Units of the asset (zero for a fee).
    public var amount: ExactDecimal
    /// Price per unit, in `currency` (zero for a fee and a transfer out, and for a transfer in at no cost).
    public var price: ExactDecimal
    /// The currency of `price` (a fee's: the fee's currency).
    public var currency: String
    /// The fee paid: on a buy or sell, or the amount of a fee activity.
    public var fee: CurrencyAmount?
    /// When the trade happened.
    public var date: Date
    /// When it was first recorded (an edit keeps it; the history says when it changed).
    public var recordedAt: Date

    /// A trade (of the `main` portfolio unless `portfolio` names another).
    public init(
        id: String, kind: ActivityKind = .buy, asset: String, amount: ExactDecimal, price: ExactDecimal, currency: String,
        fee: CurrencyAmount? = nil, date: Date, recordedAt: Date, portfolio: String = Trade.mainPortfolio
    ) {
        self.id = id
        self.portfolio = portfolio
        self.kind = kind
        self.asset = asset
        self.amount = amount
        self.price = price
        self.currency = currency
        self.fee = fee
        self.date = date
        self.recordedAt = recordedAt
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        portfolio = try container.decodeIfPresent(String.self, forKey: .portfolio) ?? Trade.mainPortfolio
        kind = try container.decodeIfPresent(ActivityKind.self, forKey: .kind) ?? .buy
        asset = try container.decode(String.self, forKey: .asset)
        amount = try container.decode(ExactDecimal.self, forKey: .amount)
        price = try container.decode(ExactDecimal.self, forKey: .price)
        currency = try container.decode(String.self, forKey: .currency)
        fee = try container.decodeIfPresent(CurrencyAmount.self, forKey: .fee)
        date = try container.decode(Date.self, forKey: .date)
        recordedAt = try container.decode(Date.self, forKey: .recordedAt)
    }
}

/// `trades.add`: records an activity once per `requestId`.
///
/// `kind` defaults to `buy`. A `fee` needs only `asset`, `fee`, `date` and `requestId` (`amount` and `price` are
/// zero, `currency` the fee's); a transfer's `price` defaults to zero.
public struct AddTradeRequest: Codable, Sendable, Equatable {
    /// What it does; `buy` when absent.
    public var kind: ActivityKind
    /// The asset, e.g. `BTC`.
    public var asset: String
    /// Units bought, sold or moved; must be positive (zero for a fee).
    public var amount: ExactDecimal
    /// Price per unit; must not be negative.
    public var price: ExactDecimal
    /// The currency of `price`.
    public var currency: String
    /// The fee paid on a buy or sell (added to the lot's cost, or taken from the proceeds); a fee activity's amount.
    public var fee: CurrencyAmount?
    /// When the trade happened; not in the future.
    public var date: Date
    /// A client-chosen id; a retried request with the same id returns the first result.
    public var requestId: String
    /// Who records it, as the caller names itself (not authenticated: the bus does not tell handlers the caller's key);
    /// kept in the audit history, `anonymous` when absent.
    public var by: String?
    /// The portfolio it belongs to: `main` when absent on `trades.add`; on `trades.edit`, absent keeps the activity
    /// where it is, a name moves it there.
    public var portfolio: String?

    /// A request to add an activity (a buy unless `kind` says otherwise) to `portfolio` (`main` when nil).
    public init(
        kind: ActivityKind = .buy, asset: String, amount: ExactDecimal, price: ExactDecimal, currency: String,
        fee: CurrencyAmount? = nil, date: Date, requestId: String, by: String? = nil, portfolio: String? = nil
    ) {
        self.kind = kind
        self.asset = asset
        self.amount = amount
        self.price = price
        self.currency = currency
        self.fee = fee
        self.date = date
        self.requestId = requestId
        self.by = by
        self.portfolio = portfolio
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        by = try container.decodeIfPresent(String.self, forKey: .by)
        portfolio = try container.decodeIfPresent(String.self, forKey: .portfolio)
        kind = try container.decodeIfPresent(ActivityKind.self, forKey: .kind) ?? .buy
        asset = try container.decode(String.self, forKey: .asset)
        fee = try container.decodeIfPresent(CurrencyAmount.self, forKey: .fee)
        date = try container.decode(Date.self, forKey: .date)
        requestId = try container.decode(String.self, forKey: .requestId)
        switch kind {
        case .buy, .sell:
            amount = try container.decode(ExactDecimal.self, forKey: .amount)
            price = try container.decode(ExactDecimal.self, forKey: .price)
            currency = try container.decode(String.self, forKey: .currency)
        case .transferIn, .transferOut:
            amount = try container.decode(ExactDecimal.self, forKey: .amount)
            price = try container.decodeIfPresent(ExactDecimal.self, forKey: .price) ?? .zero
            currency = try container.decode(String.self, forKey: .currency)
        case .fee:
            amount = try container.decodeIfPresent(ExactDecimal.self, forKey: .amount) ?? .zero
            price = try container.decodeIfPresent(ExactDecimal.self, forKey: .price) ?? .zero
            guard let currency = try container.decodeIfPresent(String.self, forKey: .currency) ?? fee?.currency else {
                throw DecodingError.keyNotFound(CodingKeys.fee, .init(codingPath: container.codingPath, debugDescription: "a fee needs its fee"))
            }
            self.currency = currency
        }
    }
}

/// `trades.edit`: replaces an activity's fields, once per `requestId`; the change is kept in its history.
///
/// On the wire its members are flat: `id` beside every member of ``AddTradeRequest`` (whose `requestId` names the edit).
public struct EditTradeRequest: Codable, Sendable, Equatable {
    /// The trade's id.
    public var id: String
    /// Its new fields, with the `requestId` of this edit and who edits.
    public var activity: AddTradeRequest

    /// A request to give trade `id` the fields of `activity`.
    public init(id: String, activity: AddTradeRequest) {
        self.id = id
        self.activity = activity
    }

    private enum Keys: String, CodingKey { case id }

    public init(from decoder: any Decoder) throws {
        id = try decoder.container(keyedBy: Keys.self).decode(String.self, forKey: .id)
        activity = try AddTradeRequest(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try activity.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(id, forKey: .id)
    }
}

/// `trades.remove`: removes an activity; the removal is kept in its history.
public struct RemoveTradeRequest: Codable, Sendable, Equatable {
    /// The trade's id.
    public var id: String
    /// A client-chosen id: a retried removal with the same id answers `true` again instead of "not found".
    public var requestId: String?
    /// Who removes, as the caller names itself (not authenticated); `anonymous` when absent.
    public var by: String?

    /// A request to remove a trade.
    public init(id: String, requestId: String? = nil, by: String? = nil) {
        self.id = id
        self.requestId = requestId
        self.by = by
    }
}

/// `trades.list {portfolio?}`: the activities of one portfolio.
public struct TradesRequest: Codable, Sendable, Equatable {
    /// The portfolio; `main` when absent.
    public var portfolio: String?

    /// A request for the activities of `portfolio` (`main` when nil).
    public init(portfolio: String? = nil) { self.portfolio = portfolio }
}

/// `trades.history {id?, portfolio?}`: the audit history of one activity, or of all, or of those of one portfolio.
public struct TradeHistoryRequest: Codable, Sendable, Equatable {
    /// The trade's id; every trade's history when absent.
    public var id: String?
    /// Only the revisions of activities in this portfolio (before or after the change); every portfolio's when absent.
    public var portfolio: String?

    /// A request for the history of trade `id` (all when nil), of the activities of `portfolio` (any when nil).
    public init(id: String? = nil, portfolio: String? = nil) {
        self.id = id
        self.portfolio = portfolio
    }
}

/// One change of an activity, as its audit history keeps it.
public struct TradeRevision: Codable, Sendable, Equatable {
    /// What was done to it.
    public enum Action: String, Codable, Sendable, Equatable, CaseIterable {
        /// Recorded (`trades.add`).
        case added
        /// Its fields replaced (`trades.edit`).
        case edited
        /// Removed (`trades.remove`).
        case removed
    }

    /// The revision's number, increasing over the whole portfolio.
    public var seq: Int
    /// The trade's id.
    public var tradeId: String
    /// What was done.
    public var action: Action
    /// Who did it: the name the caller gave, or `anonymous`.
    public var by: String
    /// When.
    public var at: Date
    /// The request's id, if it had one.
    public var requestId: String?
    /// The activity before (nil when added).
    public var before: Trade?
    /// The activity after (nil when removed).
    public var after: Trade?

    /// A revision.
    public init(seq: Int, tradeId: String, action: Action, by: String, at: Date, requestId: String?, before: Trade?, after: Trade?) {
        self.seq = seq
        self.tradeId = tradeId
        self.action = action
        self.by = by
        self.at = at
        self.requestId = requestId
        self.before = before
        self.after = after
    }
}

/// `holdings {currency?, portfolio?}` (USD and `main` by default).
public struct HoldingsRequest: Codable, Sendable, Equatable {
    /// The valuation currency.
    public var currency: String?
    /// The portfolio valued; `main` when absent.
    public var portfolio: String?

    /// A request for the holdings of `portfolio` (`main` when nil) valued in `currency`.
    public init(currency: String? = nil, portfolio: String? = nil) {
        self.currency = currency
        self.portfolio = portfolio
    }
}

/// What the user holds of one asset, valued in one currency.
public struct Holding: Codable, Sendable, Equatable {
    /// The asset.
    public var asset: String
    /// Units held now (bought and moved in, less sold and moved out).
    public var amount: ExactDecimal
    /// How many activities of the asset make it up.
    public var trades: Int
    /// The price per unit used, if known.
    public var price: ExactDecimal?
    /// `amount × price`, rounded to the currency's minor units, if the price is known.
    public var value: ExactDecimal?
    /// The cost basis of the units held (by the service's method), in the valuation currency, if every amount could be converted.
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

/// `portfolios.list`: one portfolio and how many activities it has.
public struct PortfolioSummary: Codable, Sendable, Equatable {
    /// Its name.
    public var name: String
    /// How many activities belong to it.
    public var activities: Int

    /// A portfolio's summary.
    public init(name: String, activities: Int) {
        self.name = name
        self.activities = activities
    }
}

/// The answer to `portfolios.list`: every portfolio with an activity, and `main` always; `main` first, then by name.
public struct PortfolioList: Codable, Sendable, Equatable {
    /// The portfolios.
    public var portfolios: [PortfolioSummary]

    /// A list of portfolios.
    public init(portfolios: [PortfolioSummary]) { self.portfolios = portfolios }
}

/// The payload of `portfolio.changed`.
public struct PortfolioChange: Codable, Sendable, Equatable {
    /// What changed: `trade.added`, `trade.edited`, `trade.removed`, `trades.imported`, `watchlist.added`, `watchlist.removed`.
    public var reason: String
    /// The trade id or asset concerned; for `trades.imported`, how many activities the import added.
    public var subject: String
    /// The portfolio the change is about (an edit that moves an activity: the one it moved to); absent for the watch
    /// list, which all portfolios share.
    public var portfolio: String?

    /// A change event, about `portfolio` when it names one.
    public init(reason: String, subject: String, portfolio: String? = nil) {
        self.reason = reason
        self.subject = subject
        self.portfolio = portfolio
    }
}
