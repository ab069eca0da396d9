import Foundation
import Market
import Money
import TickwireContract

/// The converter's rate from a source's currency into the display currency, and how to say where it came from:
/// what turns CoinGecko's USD or Bitso's MXN figures into the reader's currency.
public struct DisplayRate: Sendable, Equatable {
    /// The source's currency, e.g. "MXN".
    public var from: String
    /// The display currency, e.g. "USD".
    public var to: String
    /// One `from` in `to`, as the converter derived it.
    public var rate: ExactDecimal
    /// The currencies the rate was derived through, from `from` to `to`.
    public var path: [String]
    /// The converter's rate source, e.g. "ecb".
    public var source: String
    /// When the rate source's rates last arrived, if known.
    public var asOf: Date?

    /// Places every converted figure keeps, as the converter's prices do.
    public static let scale = 8

    /// A rate.
    public init(from: String, to: String, rate: ExactDecimal, path: [String], source: String, asOf: Date? = nil) {
        self.from = from
        self.to = to
        self.rate = rate
        self.path = path
        self.source = source
        self.asOf = asOf
    }

    /// The rate in the converter's answer to `convert {amount: 1, from, to}`.
    public init(_ result: ConvertResult, from: String, asOf: Date? = nil) {
        self.init(from: from, to: result.currency, rate: result.rate, path: result.path, source: result.source, asOf: asOf)
    }

    /// The path in words, e.g. "MXN → USD via ECB rate of 2026-11-24", or "BTC → USD → SEK via market rates"
    /// (the converter's `market` source: the live crypto quotes with the fiat rates).
    public var explanation: String {
        let route = path.count > 1 ? path.joined(separator: " → ") : "\(from) → \(to)"
        guard source != "market" else { return "\(route) via market rates" }
        let day = asOf.map { " of \(DisplayDate.isoDay($0))" } ?? ""
        return "\(route) via \(source.uppercased()) rate\(day)"
    }

    /// `value` in the display currency: multiplied exactly, then rounded half-even to ``scale`` places.
    public func convert(_ value: ExactDecimal) throws(MoneyError) -> ExactDecimal {
        try (value * rate).rounded(scale: Self.scale)
    }

    /// Like ``convert(_:)``, for an optional value.
    public func convertIfPresent(_ value: ExactDecimal?) throws(MoneyError) -> ExactDecimal? {
        guard let value else { return nil }
        return try convert(value)
    }

    /// `quote` with every money field in the display currency; the units traded, supplies, ranks and
    /// percentages stay as they are.
    public func convert(_ quote: Quote) throws(MoneyError) -> Quote {
        var converted = quote
        converted.market = MarketPair(base: quote.market.base, quote: to)
        converted.last = try convert(quote.last)
        converted.open = try convertIfPresent(quote.open)
        converted.high = try convertIfPresent(quote.high)
        converted.low = try convertIfPresent(quote.low)
        converted.vwap = try convertIfPresent(quote.vwap)
        converted.ask = try convertIfPresent(quote.ask)
        converted.bid = try convertIfPresent(quote.bid)
        converted.change24h = try convertIfPresent(quote.change24h)
        converted.marketCap = try convertIfPresent(quote.marketCap)
        converted.quoteVolume = try convertIfPresent(quote.quoteVolume)
        converted.allTimeHigh = try convertIfPresent(quote.allTimeHigh)
        return converted
    }

    /// `history` with every point in the display currency.
    public func convert(_ history: PriceHistory) throws(MoneyError) -> PriceHistory {
        var points: [PricePoint] = []
        points.reserveCapacity(history.points.count)
        for point in history.points {
            points.append(PricePoint(time: point.time, price: try convert(point.price)))
        }
        return PriceHistory(asset: history.asset, currency: to, points: points)
    }
}

extension PriceHistory {
    /// The change in percent over the last 24 hours: the last point against the newest point at least
    /// 24 hours older, rounded half-even to 2 places; nil when the history does not reach back a day or
    /// that point is zero.
    public var changePercent24h: ExactDecimal? {
        guard let last = points.last else { return nil }
        let dayBefore = last.time.addingTimeInterval(-86_400)
        guard let then = points.last(where: { $0.time <= dayBefore }), !then.price.isZero else { return nil }
        guard let difference = try? last.price - then.price, let hundredfold = try? difference * ExactDecimal(100) else { return nil }
        return try? hundredfold.divided(by: then.price, scale: 2)
    }
}
