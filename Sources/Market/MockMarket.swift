import Foundation
import Money

/// The one price per asset that every mock market walks around, so that mock feeds agree with one another.
///
/// Each asset has a reference price in USD (CoinGecko's recorded prices), which drifts with the wall clock by a
/// seeded, smooth function of time (at most ``limit`` basis points), so two processes asking at the same instant get
/// the same price without talking to each other. A market's reference is the asset's in USD converted into the
/// market's currency with the recorded fiat rates (Frankfurter's rates from USD), or divided by the quote asset's own
/// reference for a crypto-quoted market. Mock feeds add a small walk of their own on top.
public enum MockMarket {
    /// Farthest the reference drifts from its USD price, in basis points (3.5 %).
    public static let limit = 350

    /// Reference prices in USD by asset code: CoinGecko's recorded prices (`coingecko/coins_markets.json` for BTC,
    /// `coingecko/coins_markets_top17.json` for the others); BCH and EOS, which neither recording has, at their
    /// recorded price in BTC (Bitso's `bch_btc`, 0.1001) and in INR against BTC's (WazirX, 102.94 / 2,590,224) times
    /// BTC's.
    public static let usdPrices: [String: String] = [
        "BTC": "70187", "ETH": "2301.14", "USDT": "1.001", "BNB": "310.5", "SOL": "104.6", "XRP": "0.619553",
        "USDC": "1", "STETH": "2298.57", "ADA": "0.600832", "AVAX": "39.59", "DOGE": "0.090842", "DOT": "8.29",
        "TRX": "0.106931", "MATIC": "0.9844", "LINK": "15.2", "TON": "2.27", "WBTC": "42424",
        "BCH": "7025.72", "EOS": "2.7893",
    ]

    /// Fiat rates from USD by currency code: Frankfurter's (ECB) recorded rates of 2025-12-17
    /// (`fiat/frankfurter-latest-from-USD.json`).
    public static let usdRates: [String: String] = [
        "AUD": "1.5103", "BGN": "1.6685", "BRL": "5.5023", "CAD": "1.379", "CHF": "0.79611", "CNY": "7.0439",
        "CZK": "20.769", "DKK": "6.3742", "EUR": "0.8531", "GBP": "0.74945", "HKD": "7.7808", "HUF": "330.28",
        "IDR": "16692", "ILS": "3.2235", "INR": "90.37", "ISK": "126.26", "JPY": "155.59", "KRW": "1479.38",
        "MXN": "17.9858", "MYR": "4.0885", "NOK": "10.225", "NZD": "1.7313", "PHP": "58.669", "PLN": "3.5915",
        "RON": "4.3441", "SEK": "9.3295", "SGD": "1.2918", "THB": "31.515", "TRY": "42.724", "ZAR": "16.7333",
    ]

    /// Assets that do not drift (stablecoins), and assets that drift with another one (a wrapped or staked coin).
    private static let driftsWith: [String: String?] = ["USDT": nil, "USDC": nil, "STETH": "ETH", "WBTC": "BTC"]

    /// The reference price of one unit of `asset` in `currency` at `time`, with at least eight significant digits;
    /// nil when either code has no reference (an unknown asset, a currency with no recorded rate).
    public static func reference(asset: String, currency: String, at time: Date) throws(MoneyError) -> ExactDecimal? {
        let asset = asset.uppercased(), currency = currency.uppercased()
        guard let usd = try usdPrice(of: asset, at: time) else { return nil }
        if currency == "USD" { return rounded(usd) }
        if let rate = usdRates[currency] { return rounded(try usd * ExactDecimal(rate)) }
        guard let quote = try usdPrice(of: currency, at: time) else { return nil }
        return try usd.divided(by: quote, scale: scale(forSignificantDigitsOf: try usd.divided(by: quote, scale: 20)))
    }

    /// How far `asset`'s reference has drifted at `time`, in basis points: a slow and a fast component, each a
    /// straight line between seeded values at fixed instants (every 15 minutes and every 40 seconds).
    public static func drift(of asset: String, at time: Date) -> Int {
        let key: String
        switch driftsWith[asset.uppercased()] {
        case .some(.none): return 0
        case .some(.some(let other)): key = other
        case .none: key = asset.uppercased()
        }
        let milliseconds = Int64((time.timeIntervalSince1970 * 1_000).rounded(.down))
        return noise(key, "slow", milliseconds, period: 900_000, amplitude: 290)
            + noise(key, "fast", milliseconds, period: 40_000, amplitude: 60)
    }

    /// `asset`'s USD price at `time`, drifted.
    private static func usdPrice(of asset: String, at time: Date) throws(MoneyError) -> ExactDecimal? {
        guard let text = usdPrices[asset] else { return nil }
        return try PriceWalk.scale(ExactDecimal(text), by: drift(of: asset, at: time))
    }

    /// A value of `key` that moves in a straight line from one seeded value in `-amplitude...amplitude` to the next,
    /// one every `period` milliseconds.
    private static func noise(_ key: String, _ component: String, _ milliseconds: Int64, period: Int64, amplitude: Int) -> Int {
        let (quotient, remainder) = milliseconds.quotientAndRemainder(dividingBy: period)
        let bucket = remainder < 0 ? quotient - 1 : quotient
        let into = remainder < 0 ? remainder + period : remainder
        func value(_ bucket: Int64) -> Int {
            var generator = SeededGenerator(seed: UInt64(bitPattern: bucket), stream: "reference:\(component):\(key)")
            return generator.int(in: -amplitude...amplitude)
        }
        let from = value(bucket), to = value(bucket + 1)
        return from + Int(Int64(to - from) * into / period)
    }

    /// `value` with eight significant digits (at least two decimals).
    private static func rounded(_ value: ExactDecimal) -> ExactDecimal {
        value.rounded(scale: scale(forSignificantDigitsOf: value))
    }

    /// The decimals that give `value` eight significant digits, at least two.
    private static func scale(forSignificantDigitsOf value: ExactDecimal) -> Int {
        let digits = value.description.drop { $0 == "-" }.split(separator: ".", omittingEmptySubsequences: false)
        let integer = digits[0].drop { $0 == "0" }
        let fraction = digits.count > 1 ? digits[1] : ""
        let significant = integer.isEmpty ? fraction.prefix { $0 == "0" }.count + 8 : 8 - integer.count
        return min(max(significant, 2), ExactDecimal.maxScale)
    }
}

extension Quote {
    /// The quote with every price-like field scaled so that ``last`` becomes `price` (ratios between them, volumes
    /// in the base currency and percentage changes kept): a recorded ticker moved onto a reference price.
    public func repriced(at price: ExactDecimal) throws(MoneyError) -> Quote {
        let old = last
        func scaled(_ value: ExactDecimal?) throws(MoneyError) -> ExactDecimal? {
            guard let value else { return nil }
            return try (value * price).divided(by: old, scale: max(price.scale, 2))
        }
        var quote = self
        quote.last = price
        quote.open = try scaled(open)
        quote.high = try scaled(high)
        quote.low = try scaled(low)
        quote.vwap = try scaled(vwap)
        quote.ask = try scaled(ask)
        quote.bid = try scaled(bid)
        quote.change24h = try scaled(change24h)
        quote.marketCap = try scaled(marketCap)
        quote.quoteVolume = try scaled(quoteVolume)
        quote.allTimeHigh = try scaled(allTimeHigh)
        return quote
    }

    /// The quote moved onto its market's ``MockMarket`` reference at `time`; unchanged when the market has none.
    public func onMockReference(at time: Date) throws(MoneyError) -> Quote {
        guard let price = try MockMarket.reference(asset: market.base, currency: market.quote, at: time) else { return self }
        return try repriced(at: price)
    }
}
