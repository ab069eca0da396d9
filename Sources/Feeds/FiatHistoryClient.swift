import Foundation
import Market
import Money

/// Daily fiat rates over a span of days, from one base currency: what converts a history point by point
/// at the rate of its day.
public struct FiatHistoryClient: Sendable {
    /// Every day's rates the source published from `start` to `end` (it may add the last day before `start`).
    public var history: @Sendable (_ start: CalendarDay, _ end: CalendarDay) async throws -> FiatRateHistory

    /// A client from its endpoint.
    public init(history: @escaping @Sendable (_ start: CalendarDay, _ end: CalendarDay) async throws -> FiatRateHistory) {
        self.history = history
    }
}

extension FiatHistoryClient {
    /// The recorded Frankfurter (ECB) series from EUR, 2026-09-30 to 2026-10-02, cut to the days asked for
    /// and the last published day before them.
    public static let test = Self(history: { start, end in
        let fixture = FeedFixture.frankfurterTimeSeriesEUR
        return try FiatHistoryWire.frankfurter(from: fixture.data(), origin: fixture.origin, base: "EUR").cut(start, end)
    })

    /// Alive without the network: the recorded ECB rates from USD of ``FiatClient/test`` on every weekday
    /// (see ``FiatRateHistory/walked(from:start:end:seed:)``), deterministic for `seed`.
    public static func mock(seed: UInt64) -> Self {
        Self(history: { start, end in try FiatRateHistory.walked(from: FiatClient.fixtureRates(), start: start, end: end, seed: seed) })
    }

    /// Every call throws `error`: a source that is down.
    public static func failing(_ error: FeedError) -> Self {
        Self(history: { _, _ in throw error })
    }
}

extension FiatRateHistory {
    /// Only the days from `start` to `end`, and the last published day before `start` (for a `start` on a
    /// weekend or holiday), with `start` and `end` as asked.
    func cut(_ start: CalendarDay, _ end: CalendarDay) -> FiatRateHistory {
        var cut = self
        let within = days.filter { CalendarDay(iso: $0.date).map { $0 >= start && $0 <= end } ?? false }
        let before = days.last { CalendarDay(iso: $0.date).map { $0 < start } ?? false }
        cut.days = (before.map { [$0] } ?? []) + within
        cut.start = start.iso
        cut.end = end.iso
        return cut
    }
}
