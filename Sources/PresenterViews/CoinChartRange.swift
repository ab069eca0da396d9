import BusContract
import Foundation
import Market
import TickwireContract

/// The span a coin's chart covers (the `range` of the `coin` screen), and the candles it is drawn from.
public enum CoinChartRange: String, Sendable, CaseIterable {
    /// The last day, from 5-minute candles.
    case oneDay = "1D"
    /// The last 7 days, from hourly candles.
    case sevenDays = "7D"
    /// The last 30 days, from hourly candles.
    case thirtyDays = "30D"
    /// The last year, from daily candles.
    case oneYear = "1Y"

    /// The range shown unless one is asked for.
    public static let standard = Self.thirtyDays

    /// The range `parameter` names (1D, 7D, 30D or 1Y, any case); ``standard`` for none; invalid params otherwise.
    public init(parameter: String?) throws {
        guard let parameter else {
            self = .standard
            return
        }
        guard let range = Self(rawValue: parameter.uppercased()) else {
            throw RPCError.invalidParams("range must be 1D, 7D, 30D or 1Y, got \"\(parameter)\"")
        }
        self = range
    }

    /// The candles it is drawn from, coarsest first, each finer one after the last of the coarser ones, or instead of
    /// them while they are fewer than ``fewestCoarse`` (and the finer more): 1D from 5-minute candles, then 1-minute
    /// ones, so the last minutes show too and a few minutes of a replay draw a line; 7D and 30D from hourly candles;
    /// 1Y from daily ones.
    public var intervals: [CandleInterval] {
        switch self {
        case .oneDay: [.fiveMinutes, .oneMinute]
        case .sevenDays, .thirtyDays: [.oneHour]
        case .oneYear: [.oneDay]
        }
    }

    /// Coarser candles than this many (an hour of 5-minute ones) give way to the finer ones of the whole range.
    static let fewestCoarse = 12

    /// Its length in days.
    public var days: Int {
        switch self {
        case .oneDay: 1
        case .sevenDays: 7
        case .thirtyDays: 30
        case .oneYear: 365
        }
    }

    /// Its length in words: "1 day", "7 days", "30 days", "1 year".
    public var title: String {
        switch self {
        case .oneDay: "1 day"
        case .sevenDays: "7 days"
        case .thirtyDays: "30 days"
        case .oneYear: "1 year"
        }
    }

    /// `symbol`'s prices in `currency` over this range up to `now`: the close of each stored candle of the market
    /// `SYMBOL-CURRENCY` (rates-fetcher's `candles`) at the candle's end, of each of ``intervals`` in turn (after the
    /// coarser ones' last, or instead of too few of them; all of the first feed that has any), and before the first of them (or without any) the
    /// points of rates-fetcher's `history` of the range's days (CoinGecko's, as it gives them), with a note saying
    /// where the candles came from, and the time of the first candle's point when history points come before it (the
    /// join the chart marks: recorded candles and a backfilled or mock history may not meet at the same price).
    /// Throws the history's error when neither has a point in the range.
    func history(of symbol: String, in currency: String, sources: ViewSources, now: Date) async throws
        -> (history: PriceHistory, note: String?, candlesFrom: Date?) {
        let since = now.addingTimeInterval(-TimeInterval(days) * 86_400)
        var candles: [PricePoint] = []
        var source: String?
        var drawn: [CandleInterval] = []
        for interval in intervals {
            let length = TimeInterval(interval.seconds)
            // Fewer coarser candles than that: the finer ones of the whole range instead, if they are more.
            let few = candles.count < Self.fewestCoarse
            let after = few ? nil : candles.last?.time
            let request = CandlesRequest(market: "\(symbol)-\(currency)", interval: interval, source: source,
                                         start: (after ?? since).addingTimeInterval(-length))
            guard let series = try? await sources.candles(request) else { continue }
            let points = series.candles.map { PricePoint(time: $0.start.addingTimeInterval(length), price: $0.close) }
                .filter { point in point.time <= now && after.map { point.time > $0 } ?? (point.time >= since) }
            guard points.count > (few ? candles.count : 0) else { continue }
            candles = few ? points : candles + points
            drawn = few ? [interval] : drawn + [interval]
            source = source ?? series.source
        }
        var earlier: [PricePoint] = []
        var failure: (any Error)?
        let firstCandle = candles.first?.time
        let firstLength = TimeInterval((drawn.first ?? intervals[0]).seconds)
        if firstCandle.map({ $0 > since.addingTimeInterval(firstLength) }) ?? true {
            do {
                let backfill = try await sources.history(HistoryRequest(asset: symbol, currency: currency, days: days))
                earlier = backfill.points.filter { $0.time < (firstCandle ?? .distantFuture) }
            } catch {
                failure = error
            }
        }
        guard !earlier.isEmpty || !candles.isEmpty else {
            throw failure ?? RPCError.notFound("no candles or history of \(symbol) in \(currency) over \(title)")
        }
        var note: String?
        if let source, let firstCandle {
            let what = "\(source)'s \(drawn.map(\.rawValue).joined(separator: " and ")) candles"
            note = earlier.isEmpty ? "From \(what)." : "From \(what) since \(DisplayDate.iso(firstCandle)); before, rates-fetcher's price history."
        }
        return (PriceHistory(asset: symbol, currency: currency, points: earlier + candles), note, earlier.isEmpty ? nil : firstCandle)
    }
}
