import Foundation
import Market
import Money

/// Frankfurter's time series: `{"amount": 1.0, "base", "start_date", "end_date", "rates": {"2026-10-01":
/// {"USD": 1.1298, ...}, ...}}`, numbers as JSON numbers read exactly, days of no rates left out.
enum FiatHistoryWire {
    private struct Series: Decodable {
        let base: String
        let startDate: String
        let endDate: String
        let rates: [String: [String: ExactDecimal]]

        enum CodingKeys: String, CodingKey {
            case base, rates
            case startDate = "start_date"
            case endDate = "end_date"
        }
    }

    /// The series from `base`; every key of `rates` must be a day, every rate positive.
    static func frankfurter(from data: Data, origin: String, base: String) throws(FeedError) -> FiatRateHistory {
        let series = try Wire.decode(Series.self, from: data, origin: origin)
        guard series.base == base else {
            throw Wire.malformed(origin, reason: "asked for rates from \(base), got \(series.base)", data)
        }
        var days: [(CalendarDay, FiatRates)] = []
        for (text, dayRates) in series.rates {
            guard let day = CalendarDay(iso: text) else { throw Wire.malformed(origin, reason: "not a day: \(text)", data) }
            if let bad = dayRates.first(where: { $0.value.mantissa <= 0 }) {
                throw Wire.malformed(origin, reason: "rate of \(bad.key) on \(text) is not positive: \(bad.value)", data)
            }
            let rates = dayRates.filter { $0.key != base }
                .map { ExchangeRate(from: base, to: $0.key, rate: $0.value) }
                .sorted { $0.to < $1.to }
            days.append((day, FiatRates(source: "ecb", base: base, date: day.iso, rates: rates)))
        }
        return FiatRateHistory(
            source: "ecb", base: base, start: series.startDate, end: series.endDate,
            days: days.sorted { $0.0 < $1.0 }.map(\.1))
    }
}
