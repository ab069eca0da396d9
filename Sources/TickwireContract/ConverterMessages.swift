import Foundation
import Market
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
    /// The feed of the quote the price's first step comes from, e.g. `coingecko`; after a fallback the feed and
    /// the higher-ranked one it stands in for, e.g. `bitso (kraken stale)` (absent from an older converter).
    public var source: String?

    /// A price.
    public init(
        asset: String, currency: String, price: ExactDecimal, changePercent24h: ExactDecimal?, path: [String], quoteTime: Date?,
        source: String? = nil
    ) {
        self.asset = asset
        self.currency = currency
        self.price = price
        self.changePercent24h = changePercent24h
        self.path = path
        self.quoteTime = quoteTime
        self.source = source
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

/// `convert.series {history, to}`: a price history in another currency, each point at the daily rate of its
/// day (UTC) where the daily source has one, else at today's rate.
public struct ConvertSeriesRequest: Codable, Sendable, Equatable {
    /// The history, in its own currency.
    public var history: PriceHistory
    /// The currency wanted.
    public var to: String

    /// A series conversion request.
    public init(history: PriceHistory, to: String) {
        self.history = history
        self.to = to
    }
}

/// Which rates a converted series used.
public enum SeriesRateKind: String, Codable, Sendable, Equatable {
    /// Every point at the daily rate of its day (a weekend's or holiday's: the last published day's before it).
    case daily
    /// Every point at today's rate.
    case today
    /// Some points at their day's rate, the others at today's.
    case mixed
}

/// The answer to `convert.series`.
public struct ConvertSeriesResult: Codable, Sendable, Equatable {
    /// The rate used for the points of one day.
    public struct DayRate: Codable, Sendable, Equatable {
        /// The points' day, "YYYY-MM-DD" (UTC).
        public var day: String
        /// The day whose published rate was used (the day itself, or the last published day before it);
        /// nil when today's rate was used.
        public var rateDay: String?
        /// The derived rate, to 18 places.
        public var rate: ExactDecimal
        /// The currencies it was derived through.
        public var path: [String]

        /// A day's rate.
        public init(day: String, rateDay: String?, rate: ExactDecimal, path: [String]) {
            self.day = day
            self.rateDay = rateDay
            self.rate = rate
            self.path = path
        }
    }

    /// The history in the wanted currency, each price rounded half-even to 8 places.
    public var history: PriceHistory
    /// Which rates were used.
    public var kind: SeriesRateKind
    /// The daily rates' source (e.g. "ecb") when any point used one, else today's rate's source.
    public var source: String
    /// One rate per day of the points, oldest first.
    public var days: [DayRate]
    /// Why points are at today's rate (nil when none is).
    public var reason: String?

    /// A converted series.
    public init(history: PriceHistory, kind: SeriesRateKind, source: String, days: [DayRate], reason: String? = nil) {
        self.history = history
        self.kind = kind
        self.source = source
        self.days = days
        self.reason = reason
    }
}
