import Foundation
import Money

/// `convert {amount, from, to, source?}`.
public struct ConvertRequest: Codable, Sendable, Equatable {
    /// The amount to convert.
    public var amount: ExactDecimal
    /// Its currency.
    public var from: String
    /// The currency wanted.
    public var to: String
    /// The rate source (`ecb`, `fixer`, `gnb`, `market`); default: see the protocol.
    public var source: String?

    /// A conversion request.
    public init(amount: ExactDecimal, from: String, to: String, source: String? = nil) {
        self.amount = amount
        self.from = from
        self.to = to
        self.source = source
    }
}

/// The answer to `convert`.
public struct ConvertResult: Codable, Sendable, Equatable {
    /// The converted amount, rounded half-even to the target currency's minor units.
    public var amount: ExactDecimal
    /// The target currency.
    public var currency: String
    /// The derived rate as a decimal (exact when it terminates within 18 places).
    public var rate: ExactDecimal
    /// Whether `rate` is exact (an inverse such as 1/3 is not).
    public var rateExact: Bool
    /// The currencies the rate was derived through, from source to target.
    public var path: [String]
    /// The rate source used.
    public var source: String

    /// A conversion result.
    public init(amount: ExactDecimal, currency: String, rate: ExactDecimal, rateExact: Bool, path: [String], source: String) {
        self.amount = amount
        self.currency = currency
        self.rate = rate
        self.rateExact = rateExact
        self.path = path
        self.source = source
    }
}

/// `total {items, to, source?}`: the GNB rule over many amounts.
public struct TotalRequest: Codable, Sendable, Equatable {
    /// The amounts to add up.
    public var items: [CurrencyAmount]
    /// The currency of the total.
    public var to: String
    /// The rate source; default: see the protocol.
    public var source: String?

    /// A total request.
    public init(items: [CurrencyAmount], to: String, source: String? = nil) {
        self.items = items
        self.to = to
        self.source = source
    }
}

/// The answer to `total`.
public struct TotalResult: Codable, Sendable, Equatable {
    /// One converted item.
    public struct Item: Codable, Sendable, Equatable {
        /// The amount as given.
        public var amount: ExactDecimal
        /// Its currency.
        public var currency: String
        /// The amount in the target currency, rounded half-even to its minor units.
        public var converted: ExactDecimal
        /// The path of the rate used.
        public var path: [String]

        /// A converted item.
        public init(amount: ExactDecimal, currency: String, converted: ExactDecimal, path: [String]) {
            self.amount = amount
            self.currency = currency
            self.converted = converted
            self.path = path
        }
    }

    /// The sum of the rounded items.
    public var total: ExactDecimal
    /// The target currency.
    public var currency: String
    /// The rate source used.
    public var source: String
    /// Every item, in the order given.
    public var items: [Item]

    /// A total.
    public init(total: ExactDecimal, currency: String, source: String, items: [Item]) {
        self.total = total
        self.currency = currency
        self.source = source
        self.items = items
    }
}

/// `rates {base, source?}`.
public struct RatesRequest: Codable, Sendable, Equatable {
    /// The currency every rate starts from.
    public var base: String
    /// The rate source; default: see the protocol.
    public var source: String?

    /// A rates request.
    public init(base: String, source: String? = nil) {
        self.base = base
        self.source = source
    }
}

/// The answer to `rates`: every currency reachable from `base`.
public struct RatesResult: Codable, Sendable, Equatable {
    /// One reachable currency.
    public struct Entry: Codable, Sendable, Equatable {
        /// The currency.
        public var currency: String
        /// 1 base in this currency, as a decimal.
        public var rate: ExactDecimal
        /// Whether `rate` is exact.
        public var rateExact: Bool
        /// The path the rate was derived through.
        public var path: [String]

        /// An entry.
        public init(currency: String, rate: ExactDecimal, rateExact: Bool, path: [String]) {
            self.currency = currency
            self.rate = rate
            self.rateExact = rateExact
            self.path = path
        }
    }

    /// The base currency.
    public var base: String
    /// The rate source used.
    public var source: String
    /// Every reachable currency, sorted by code.
    public var rates: [Entry]

    /// A rates answer.
    public init(base: String, source: String, rates: [Entry]) {
        self.base = base
        self.source = source
        self.rates = rates
    }
}

/// The payload of `price.<ASSET>.<FIAT>`: an asset's price in a display currency.
public struct AssetPrice: Codable, Sendable, Equatable {
    /// The asset, e.g. `BTC`.
    public var asset: String
    /// The display currency, e.g. `SEK`.
    public var currency: String
    /// One unit of the asset in `currency`, rounded half-even to 8 places.
    public var price: ExactDecimal
    /// The 24 h change in percent, carried over from the quote.
    public var changePercent24h: ExactDecimal?
    /// The currencies the price was derived through.
    public var path: [String]
    /// When the underlying quote was made, if the feed said.
    public var quoteTime: Date?

    /// A price.
    public init(asset: String, currency: String, price: ExactDecimal, changePercent24h: ExactDecimal?, path: [String], quoteTime: Date?) {
        self.asset = asset
        self.currency = currency
        self.price = price
        self.changePercent24h = changePercent24h
        self.path = path
        self.quoteTime = quoteTime
    }
}

/// `sources`: the rate sources the converter holds, with their currencies.
public struct RateSourceInfo: Codable, Sendable, Equatable {
    /// The source's name.
    public var source: String
    /// How many rates it has.
    public var rates: Int
    /// Its currencies, sorted.
    public var currencies: [String]

    /// A source summary.
    public init(source: String, rates: Int, currencies: [String]) {
        self.source = source
        self.rates = rates
        self.currencies = currencies
    }
}
