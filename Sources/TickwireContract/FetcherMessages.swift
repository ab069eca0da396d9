import Foundation
import Market

/// `history {asset, currency?, days?}`: an asset's price history (USD and 30 days by default).
public struct HistoryRequest: Codable, Sendable, Equatable {
    /// The asset, e.g. `BTC`.
    public var asset: String
    /// The price currency.
    public var currency: String?
    /// How many days back, 1 to 365.
    public var days: Int?

    /// A history request.
    public init(asset: String, currency: String? = nil, days: Int? = nil) {
        self.asset = asset
        self.currency = currency
        self.days = days
    }
}

/// `refresh {feed}`: poll a feed now (pull-to-refresh).
public struct RefreshRequest: Codable, Sendable, Equatable {
    /// The feed's name, e.g. `bitso`.
    public var feed: String

    /// A refresh request.
    public init(feed: String) { self.feed = feed }
}

/// `rates.history {start, end}`: the fiat source's daily rates from its base, days written "YYYY-MM-DD".
public struct RatesHistoryRequest: Codable, Sendable, Equatable {
    /// The first day wanted.
    public var start: String
    /// The last day wanted, at most 366 days after `start`.
    public var end: String

    /// A request for the days from `start` to `end`.
    public init(start: String, end: String) {
        self.start = start
        self.end = end
    }
}

/// `coins.add {coin}` and `coins.remove {coin}`: one coin, by its CoinGecko id (`polkadot`), symbol (`DOT`) or
/// name (`Polkadot`), case aside.
public struct CoinRequest: Codable, Sendable, Equatable {
    /// The coin's id, symbol or name.
    public var coin: String

    /// A request naming `coin`.
    public init(coin: String) { self.coin = coin }
}

/// A CoinGecko coin: its id (what rates-fetcher polls), its symbol upper-cased (the topics' key), its name.
/// A tracked coin whose symbol and name no answer has brought yet (given by id on the command line) has neither.
public struct KnownCoin: Codable, Sendable, Equatable, Hashable {
    /// CoinGecko's id, e.g. `polkadot`.
    public var id: String
    /// The symbol, e.g. `DOT`.
    public var symbol: String?
    /// The name, e.g. `Polkadot`.
    public var name: String?

    /// A coin.
    public init(id: String, symbol: String? = nil, name: String? = nil) {
        self.id = id
        self.symbol = symbol
        self.name = name
    }
}

/// What `coins.add` and `coins.remove` answer: the coin acted on, and every coin tracked after it.
public struct CoinsChange: Codable, Sendable, Equatable {
    /// The coin added or removed.
    public var coin: KnownCoin
    /// Whether the list changed (false: it was already tracked, or already not).
    public var changed: Bool
    /// The coins tracked now, in the order they were added.
    public var coins: [KnownCoin]

    /// A change.
    public init(coin: KnownCoin, changed: Bool, coins: [KnownCoin]) {
        self.coin = coin
        self.changed = changed
        self.coins = coins
    }
}

/// `coins.known {query?, limit?}`: coins CoinGecko lists whose id, symbol or name contains `query`, for suggestions.
public struct KnownCoinsRequest: Codable, Sendable, Equatable {
    /// Text to look for, case aside; none: the first coins of the list.
    public var query: String?
    /// At most this many, 1 to 200 (default 20).
    public var limit: Int?

    /// A request.
    public init(query: String? = nil, limit: Int? = nil) {
        self.query = query
        self.limit = limit
    }
}

/// `candles {market, interval, source?, start?, end?}`: a market's stored candles of one interval in a span.
public struct CandlesRequest: Codable, Sendable, Equatable {
    /// The market, e.g. `BTC-MXN`.
    public var market: String
    /// `1m`, `5m`, `1h` or `1d`.
    public var interval: CandleInterval
    /// The feed whose candles are wanted; the first feed with candles of the market when left out.
    public var source: String?
    /// The first candle start wanted (inclusive); the store's oldest when left out.
    public var start: Date?
    /// The last candle start wanted (inclusive); now when left out.
    public var end: Date?

    /// A candles request.
    public init(market: String, interval: CandleInterval, source: String? = nil, start: Date? = nil, end: Date? = nil) {
        self.market = market
        self.interval = interval
        self.source = source
        self.start = start
        self.end = end
    }
}

/// What `candles` answers: the closed candles in the span, oldest first, and the feed they came from.
public struct CandleSeries: Codable, Sendable, Equatable {
    /// The feed the candles were built from.
    public var source: String
    /// The market.
    public var market: MarketPair
    /// The interval.
    public var interval: CandleInterval
    /// The candles, oldest first.
    public var candles: [Candle]

    /// A series.
    public init(source: String, market: MarketPair, interval: CandleInterval, candles: [Candle]) {
        self.source = source
        self.market = market
        self.interval = interval
        self.candles = candles
    }
}
