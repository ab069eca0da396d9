import BusContract
import Foundation
import Market
import Money
import TickwireContract

/// `convert.series`: a price history converted point by point at the rate of each point's day.
public enum SeriesConversion {
    /// How many days back a day without published rates (weekend, holiday, today before the ECB's
    /// afternoon publication) may take the last published day's rates: Easter Monday takes Thursday's.
    public static let maximumRateAge = 4

    /// The span of days whose daily rates `history` needs: from `maximumRateAge` days before its first point
    /// to its last point's day; nil for an empty history.
    public static func span(of history: PriceHistory) -> RatesHistoryRequest? {
        guard let first = history.points.first, let last = history.points.last else { return nil }
        return RatesHistoryRequest(start: CalendarDay(first.time).adding(days: -maximumRateAge).iso, end: CalendarDay(last.time).iso)
    }

    /// Converts `request`'s history with `daily`'s rates where it has the day (or a published day at most
    /// ``maximumRateAge`` days before), else with today's rate from `book`; `dailyProblem` says why there are
    /// no daily rates when `daily` is nil. A series from or to a crypto asset is at today's (market) rate. Every
    /// price is multiplied exactly and rounded half-even to 8 places.
    ///
    /// Points of `today` are at today's rate, the one the live prices use (the day's reference rate, if
    /// already published, is the fixing of one moment): so a chart ends where the price stands. They
    /// count as daily, without a reason; their `rateDay` is nil.
    public static func convert(
        _ request: ConvertSeriesRequest, daily: FiatRateHistory?, dailyProblem: String?, in book: inout RateBook,
        today currentDay: CalendarDay = CalendarDay(Date())
    ) throws -> ConvertSeriesResult {
        let from = try Currency(code: request.history.currency).code
        let to = try Currency(code: request.to).code
        let fiatProblem = notFiat(from, to)
        let usable = fiatProblem == nil ? daily : nil
        // A day whose rates do not make a graph counts as not published.
        let dayGraphs = (usable?.days ?? []).compactMap { rates -> (CalendarDay, RateGraph)? in
            guard let day = CalendarDay(iso: rates.date), let graph = try? RateGraph(rates.rates) else { return nil }
            return (day, graph)
        }.sorted { $0.0 < $1.0 }
        let dailySource = usable?.source ?? "ecb"

        var today: (rate: DerivedRate, source: String)?
        func todayRate() throws -> (rate: DerivedRate, source: String) {
            if let today { return today }
            let source = book.defaultSource(for: [from, to])
            let found = (try book.graph(for: source).rate(from: from, to: to), source)
            today = found
            return found
        }

        var reasons: [String] = []
        if usable == nil { reasons.append(fiatProblem ?? dailyProblem ?? "no daily rate source") }
        var rateOfDay: [CalendarDay: (rate: DerivedRate, rateDay: CalendarDay?)] = [:]
        var days: [ConvertSeriesResult.DayRate] = []
        var points: [PricePoint] = []
        points.reserveCapacity(request.history.points.count)
        var dailyCount = 0
        var currentDays: Set<CalendarDay> = []
        var unpublished: [String] = []
        for point in request.history.points {
            let day = CalendarDay(point.time)
            if rateOfDay[day] == nil {
                let chosen: (rate: DerivedRate, rateDay: CalendarDay?)
                if usable != nil, day == currentDay, let current = try? todayRate().rate {
                    chosen = (current, nil)
                    currentDays.insert(day)
                } else if usable != nil, let published = dayGraphs.last(where: { $0.0 <= day }), day.daysSince1970 - published.0.daysSince1970 <= maximumRateAge {
                    do {
                        chosen = (try published.1.rate(from: from, to: to), published.0)
                    } catch {
                        chosen = (try todayRate().rate, nil)
                        reasons.append("the \(dailySource.uppercased()) rates have no \(from) → \(to)")
                    }
                } else {
                    chosen = (try todayRate().rate, nil)
                    if usable != nil { unpublished.append(day.iso) }
                }
                rateOfDay[day] = chosen
                days.append(.init(day: day.iso, rateDay: chosen.rateDay?.iso, rate: chosen.rate.decimal(scale: 18), path: chosen.rate.path))
            }
            guard let chosen = rateOfDay[day] else { continue }
            if chosen.rateDay != nil || currentDays.contains(day) { dailyCount += 1 }
            points.append(PricePoint(time: point.time, price: try chosen.rate.convert(point.price, scale: Pricing.priceScale)))
        }
        let kind: SeriesRateKind = dailyCount == points.count ? .daily : dailyCount == 0 ? .today : .mixed
        if let first = unpublished.first, let last = unpublished.last {
            let days = unpublished.count == 1 ? "on \(first)" : "on \(unpublished.count) days (\(first) to \(last))"
            reasons.append("no \(dailySource.uppercased()) rate published \(days) or the \(maximumRateAge) days before")
        }
        let unique = reasons.reduce(into: [String]()) { if !$0.contains($1) { $0.append($1) } }
        let source = kind == .today ? try todayRate().source : dailySource
        return ConvertSeriesResult(
            history: PriceHistory(asset: request.history.asset, currency: to, points: points), kind: kind, source: source, days: days,
            reason: kind == .daily ? nil : unique.joined(separator: "; "))
    }

    /// Why daily fiat rates cannot convert `from` into `to` (one is not an ISO currency, e.g. BTC), or nil.
    static func notFiat(_ from: String, _ to: String) -> String? {
        let other = [from, to].first { Currency.iso($0) == nil }
        return other.map { "\($0) is not a currency with daily reference rates" }
    }

    /// `request`'s daily rates from `fetch`, or nil and the reason there are none; not asked for a series
    /// from or to a crypto asset.
    public static func dailyRates(
        for request: ConvertSeriesRequest, fetch: (@Sendable (RatesHistoryRequest) async throws -> FiatRateHistory)?
    ) async -> (rates: FiatRateHistory?, problem: String?) {
        if let reason = notFiat(request.history.currency.uppercased(), request.to.uppercased()) { return (nil, reason) }
        guard let fetch else { return (nil, "no daily rate source") }
        guard let span = span(of: request.history) else { return (nil, nil) }
        do {
            return (try await fetch(span), nil)
        } catch let error as RPCError {
            return (nil, error.message)
        } catch {
            return (nil, "\(error)")
        }
    }
}
