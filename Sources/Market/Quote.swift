import Foundation
import Money

/// One market's latest data as one source reported it.
///
/// Prices are in the market's quote currency and volumes in its base currency;
/// every field but `last` is optional because sources differ in what they give.
public struct Quote: Sendable, Hashable, Codable {
    /// Who reported it, e.g. "bitso", "wazirx", "coingecko".
    public var source: String
    /// The pair quoted, e.g. BTC-MXN.
    public var market: MarketPair
    /// Price of the last trade.
    public var last: ExactDecimal
    /// Price 24 hours ago.
    public var open: ExactDecimal?
    /// Highest price in the last 24 hours.
    public var high: ExactDecimal?
    /// Lowest price in the last 24 hours.
    public var low: ExactDecimal?
    /// Amount of the base currency traded in the last 24 hours.
    public var volume: ExactDecimal?
    /// Value traded in the last 24 hours, in the quote currency.
    public var quoteVolume: ExactDecimal?
    /// Volume-weighted average price over the last 24 hours.
    public var vwap: ExactDecimal?
    /// Lowest price a seller asks.
    public var ask: ExactDecimal?
    /// Highest price a buyer bids.
    public var bid: ExactDecimal?
    /// Absolute price change over the last 24 hours.
    public var change24h: ExactDecimal?
    /// Price change over the last 24 hours in percent (`-1.5` is a 1.5 % fall).
    public var changePercent24h: ExactDecimal?
    /// Market capitalisation in the quote currency.
    public var marketCap: ExactDecimal?
    /// Rank by market capitalisation, 1 being the largest.
    public var marketCapRank: Int?
    /// Units of the base currency in circulation.
    public var circulatingSupply: ExactDecimal?
    /// Units of the base currency that exist.
    public var totalSupply: ExactDecimal?
    /// Units of the base currency that can ever exist.
    public var maxSupply: ExactDecimal?
    /// Highest price ever.
    public var allTimeHigh: ExactDecimal?
    /// When the source produced these numbers.
    public var time: Date?

    /// A quote; only the source, market and last price are required.
    public init(
        source: String, market: MarketPair, last: ExactDecimal,
        open: ExactDecimal? = nil, high: ExactDecimal? = nil, low: ExactDecimal? = nil,
        volume: ExactDecimal? = nil, quoteVolume: ExactDecimal? = nil, vwap: ExactDecimal? = nil,
        ask: ExactDecimal? = nil, bid: ExactDecimal? = nil,
        change24h: ExactDecimal? = nil, changePercent24h: ExactDecimal? = nil,
        marketCap: ExactDecimal? = nil, marketCapRank: Int? = nil,
        circulatingSupply: ExactDecimal? = nil, totalSupply: ExactDecimal? = nil,
        maxSupply: ExactDecimal? = nil, allTimeHigh: ExactDecimal? = nil,
        time: Date? = nil
    ) {
        self.source = source
        self.market = market
        self.last = last
        self.open = open
        self.high = high
        self.low = low
        self.volume = volume
        self.quoteVolume = quoteVolume
        self.vwap = vwap
        self.ask = ask
        self.bid = bid
        self.change24h = change24h
        self.changePercent24h = changePercent24h
        self.marketCap = marketCap
        self.marketCapRank = marketCapRank
        self.circulatingSupply = circulatingSupply
        self.totalSupply = totalSupply
        self.maxSupply = maxSupply
        self.allTimeHigh = allTimeHigh
        self.time = time
    }
}
