import BusContract
import PortfolioEngine
@testable import PortfolioPostgres
import PostgresNIO
import Testing

@Suite("PostgreSQL store: requests that get no answer")
struct TimeoutTests {
    /// Holds the write lock of `client`'s schema on one of its connections while `body` runs: the store's writes wait.
    static func holdingTheWriteLock<T: Sendable>(
        _ client: PostgresClient, _ body: @Sendable (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await client.withConnection { holder in
            try await holder.query("SELECT pg_advisory_lock(\(PostgresSchema.writeLock), hashtext(current_schema()))", logger: quiet)
            do {
                let value = try await body(holder)
                try await holder.query("SELECT pg_advisory_unlock(\(PostgresSchema.writeLock), hashtext(current_schema()))", logger: quiet)
                return value
            } catch {
                _ = try? await holder.query("SELECT pg_advisory_unlock(\(PostgresSchema.writeLock), hashtext(current_schema()))", logger: quiet)
                throw error
            }
        }
    }

    /// Waits until a write of the holder's schema waits for its lock.
    static func untilAWriteWaits(_ holder: PostgresConnection) async throws {
        for _ in 0..<200 {
            let rows = try await holder.query("""
                SELECT count(*)::int FROM pg_locks WHERE locktype = 'advisory' AND NOT granted AND classid = \(PostgresSchema.writeLock)
                    AND objid::bigint = (hashtext(current_schema())::bigint & 4294967295)
                """, logger: quiet)
            for try await waiting in rows.decode(Int.self) where waiting > 0 { return }
            try await Task.sleep(for: .milliseconds(20))
        }
        Issue.record("no write waited for the lock")
    }

    /// A write that gets no answer within the request timeout (here it waits for a lock held elsewhere, as it would on a
    /// half-open connection) answers -32000, its connection closed; reads go on meanwhile, and the retry is added once.
    @Test func aRequestWithoutAnswerIsCutOffAndOthersGoOn() async throws {
        let url = try await TestPostgres.shared.value
        try await TestPostgres.withClient(url: url, schema: TestPostgres.schema()) { client in
            // Migrated first with the default timeout: a loaded machine may take a second to create the tables. The read
            // and the writes after the cut-off go through this one too: on a loaded machine they may take over 2 s.
            let patient = try await PortfolioStore.postgres(client: client, logger: quiet)
            let store = try await PortfolioStore.postgres(client: client, logger: quiet, requestTimeout: .seconds(2))
            let request = try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1")
            try await Self.holdingTheWriteLock(client) { _ in
                let started = ContinuousClock.now
                let cut = await #expect(throws: PostgresStoreError.self) { try await store.add(request, "t-1", now) }
                let waited = ContinuousClock.now - started
                #expect(waited >= .seconds(2) && waited < .seconds(6), "cut off after the request timeout, not \(waited)")
                let answer = RPCError(answering: try #require(cut))
                #expect(answer.code == RPCError.Code.unavailable)
                #expect(answer.message.contains("no answer within") && answer.message.contains("may not have been recorded"))
                #expect(try await patient.trades().isEmpty, "a read is answered while the cut-off write's lock is held")
            }
            #expect(try await patient.add(request, "t-2", now).id == "t-2", "the write cut off was rolled back")
            #expect(try await patient.add(request, "t-3", now).id == "t-2")
            #expect(try await patient.trades().map(\.id) == ["t-2"])
        }
    }

    /// While every connection is held (the pool's only one, by a write waiting for a lock), another request waits four
    /// lease timeouts at most, then answers -32000; the held write still goes through once the lock is free.
    @Test func aBusyPoolIsWaitedForAFewLeaseTimeoutsAtMost() async throws {
        let url = try await TestPostgres.shared.value
        let schema = TestPostgres.schema()
        try await TestPostgres.withClient(url: url, schema: schema, maximumConnections: 1) { client in
            let store = try await PortfolioStore.postgres(client: client, logger: quiet, leaseTimeout: .milliseconds(250))
            try await TestPostgres.withClient(url: url, schema: schema) { other in
                let held = try await Self.holdingTheWriteLock(other) { holder in
                    let held = Task { try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1"), "t-1", now) }
                    try await Self.untilAWriteWaits(holder)
                    let started = ContinuousClock.now
                    let refused = await #expect(throws: PostgresStoreError.self) { try await store.trades() }
                    let waited = ContinuousClock.now - started
                    #expect(waited >= .milliseconds(900) && waited < .seconds(3), "waited four lease timeouts, not \(waited)")
                    #expect(RPCError(answering: try #require(refused)).message.contains("no connection within"))
                    return held
                }
                #expect(try await held.value.id == "t-1")
                #expect(try await store.trades().map(\.id) == ["t-1"])
            }
        }
    }

    /// A write whose caller gives up (its task cancelled) while it waits in its transaction records nothing, and the
    /// pool's one connection serves the next request cleanly (the one left with a query is closed, not reused).
    @Test func aCancelledWriteLeavesNothingForTheNextRequest() async throws {
        let url = try await TestPostgres.shared.value
        let schema = TestPostgres.schema()
        try await TestPostgres.withClient(url: url, schema: schema, maximumConnections: 1) { client in
            let store = try await PortfolioStore.postgres(client: client, logger: quiet)
            try await TestPostgres.withClient(url: url, schema: schema) { other in
                try await Self.holdingTheWriteLock(other) { holder in
                    let cancelled = Task { try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1"), "t-1", now) }
                    try await Self.untilAWriteWaits(holder)
                    cancelled.cancel()
                    await #expect(throws: (any Error).self) { try await cancelled.value }
                }
                #expect(try await store.add(try tradeRequest("ETH", amount: "2", price: "10", requestId: "r-2"), "t-2", now).id == "t-2")
                #expect(try await store.trades().map(\.id) == ["t-2"])
                #expect(try await store.tradeHistory(nil).map(\.tradeId) == ["t-2"])
            }
        }
    }
}
