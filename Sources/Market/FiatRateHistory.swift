import Money

/// A source's daily fiat rates from one base currency over a span of days: one ``FiatRates`` per day it
/// published (the ECB publishes none on weekends and TARGET holidays), oldest first.
public struct FiatRateHistory: Sendable, Hashable, Codable {
    /// Who published them, e.g. "ecb".
    public var source: String
    /// The currency every rate starts from, e.g. "EUR".
    public var base: String
    /// The first day asked for, "YYYY-MM-DD" (a source may add the last published day before it).
    public var start: String
    /// The last day asked for.
    public var end: String
    /// The published days, oldest first; each one's `date` is its day.
    public var days: [FiatRates]

    /// A history.
    public init(source: String, base: String, start: String, end: String, days: [FiatRates]) {
        self.source = source
        self.base = base
        self.start = start
        self.end = end
        self.days = days
    }
}

extension FiatRateHistory {
    /// A made-up history for demos and mocks: `rates` (their source and base) on every weekday from `start`
    /// to `end`, and on the last weekday before `start`, none on weekends (as the ECB); each rate of each day
    /// moved by its own offset of at most 2 %, the same for the same `seed`, pair and day whenever asked.
    public static func walked(from rates: FiatRates, start: CalendarDay, end: CalendarDay, seed: UInt64) throws(MoneyError) -> FiatRateHistory {
        var days: [FiatRates] = []
        var day = start.adding(days: -1)
        while day.isWeekend { day = day.adding(days: -1) }
        while day <= end {
            defer { day = day.adding(days: 1) }
            if day.isWeekend { continue }
            var dayRates = rates
            dayRates.date = day.iso
            for index in dayRates.rates.indices {
                let rate = dayRates.rates[index]
                var generator = SeededGenerator(seed: seed, stream: "fiat-day:\(rate.from)-\(rate.to):\(day.iso)")
                dayRates.rates[index].rate = try PriceWalk.scale(rate.rate, by: generator.int(in: -200...200))
            }
            days.append(dayRates)
        }
        return FiatRateHistory(source: rates.source, base: rates.base, start: start.iso, end: end.iso, days: days)
    }
}
