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
