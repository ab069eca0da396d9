import Bus
import Feeds
import Market
@testable import RatesFetcherEngine
import Synchronization
import Testing
import TickwireContract

@testable import RatesFetcherCore
import BusContract

/// How often a client was called.
private final class Calls: Sendable {
    let count = Mutex(0)
}

/// `rates.history`: checked spans, cached answers, and a failing source as a clear error.
@Suite struct FiatHistoryCacheTests {
    /// The error code `body` fails with.
    private func failure(_ body: () async throws -> some Any) async -> RPCError? {
        do {
            _ = try await body()
            Issue.record("expected an RPCError, got a value")
        } catch let error as RPCError {
            return error
        } catch {
            Issue.record("expected an RPCError, got \(error)")
        }
        return nil
    }

    /// The recorded series, once per span however often it is asked.
    @Test func cachedPerSpan() async throws {
        let calls = Calls()
        let cache = FiatHistoryCache(client: FiatHistoryClient { start, end in
            calls.count.withLock { $0 += 1 }
            return try await FiatHistoryClient.test.history(start, end)
        })
        let request = RatesHistoryRequest(start: "2026-09-30", end: "2026-10-04")
        let first = try await cache.history(request)
        #expect(first.days.map(\.date) == ["2026-09-30", "2026-10-01", "2026-10-02"])
        #expect(try await cache.history(request) == first)
        #expect(calls.count.withLock { $0 } == 1)
        _ = try await cache.history(RatesHistoryRequest(start: "2026-10-01", end: "2026-10-04"))
        #expect(calls.count.withLock { $0 } == 2)
    }

    /// Days that are not days, a span backwards or longer than a year are invalid params, and the source is not asked.
    @Test(arguments: [("nope", "2026-10-04"), ("2026-09-30", "2026-02-30"), ("2026-10-04", "2026-09-30"), ("2025-01-01", "2026-10-04")])
    func invalidSpans(start: String, end: String) async throws {
        let cache = FiatHistoryCache(client: .failing(.notInFixtures("must not be asked")))
        let error = await failure { try await cache.history(RatesHistoryRequest(start: start, end: end)) }
        #expect(error?.code == RPCError.Code.invalidParams, "\(String(describing: error))")
    }

    /// An upstream 500 or garbage is "unavailable" naming the span and what the source did; nothing is cached.
    @Test(arguments: [
        FeedError.httpStatus(code: 500, url: "https://api.frankfurter.app/2026-09-30..2026-10-04?from=EUR", body: "oops"),
        FeedError.malformed(url: "https://api.frankfurter.app/2026-09-30..2026-10-04?from=EUR", reason: "not a day: x", body: "{}"),
    ])
    func failingSource(error: FeedError) async throws {
        let cache = FiatHistoryCache(client: .failing(error))
        let request = RatesHistoryRequest(start: "2026-09-30", end: "2026-10-04")
        let failure = await failure { try await cache.history(request) }
        #expect(failure?.code == RPCError.Code.unavailable)
        #expect(failure?.message == "the daily fiat rates from 2026-09-30 to 2026-10-04 could not be had: \(error)")
    }
}
