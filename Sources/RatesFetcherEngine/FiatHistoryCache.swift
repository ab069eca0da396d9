import Bus
import Feeds
import Foundation
import Market
import TickwireContract
import BusContract

/// `rates.history`: the fiat source's daily rates, kept for an hour per span asked (published days do not
/// change; today's arrive in the afternoon), so each chart shown does not ask the source again.
actor FiatHistoryCache {
    /// The longest span answered, in days.
    static let maximumDays = 366

    private let client: FiatHistoryClient
    private var entries: [String: (history: FiatRateHistory, fetched: ContinuousClock.Instant)] = [:]
    private let lifetime: Duration = .seconds(3600)

    init(client: FiatHistoryClient) {
        self.client = client
    }

    func history(_ request: RatesHistoryRequest) async throws -> FiatRateHistory {
        guard let start = CalendarDay(iso: request.start) else { throw RPCError.invalidParams("start must be a day such as 2026-11-24, got \"\(request.start)\"") }
        guard let end = CalendarDay(iso: request.end) else { throw RPCError.invalidParams("end must be a day such as 2026-11-24, got \"\(request.end)\"") }
        guard start <= end else { throw RPCError.invalidParams("start \(start) is after end \(end)") }
        let days = end.daysSince1970 - start.daysSince1970 + 1
        guard days <= Self.maximumDays else { throw RPCError.invalidParams("at most \(Self.maximumDays) days, got \(days)") }
        let key = "\(start)|\(end)"
        if let cached = entries[key], ContinuousClock.now - cached.fetched < lifetime { return cached.history }
        entries = entries.filter { ContinuousClock.now - $0.value.fetched < lifetime }
        let history: FiatRateHistory
        do {
            history = try await client.history(start, end)
        } catch let error as FeedError {
            throw RPCError.unavailable("the daily fiat rates from \(start) to \(end) could not be had: \(error)")
        }
        entries[key] = (history, ContinuousClock.now)
        return history
    }
}
