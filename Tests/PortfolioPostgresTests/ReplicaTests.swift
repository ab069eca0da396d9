import BusContract
import Foundation
import PortfolioEngine
@testable import PortfolioPostgres
import PostgresNIO
import Testing
import TickwireContract

@Suite("PostgreSQL store: replicas and outages")
struct ReplicaTests {
    /// Two replicas (two clients, two stores) start at once on one database and take concurrent writes, each request
    /// sent three times to alternating replicas: every requestId is added once and every attempt answers that activity.
    @Test func twoReplicasAddEachRequestOnce() async throws {
        let url = try await TestPostgres.shared.value
        let schema = TestPostgres.schema()
        try await TestPostgres.withClient(url: url, schema: schema) { first in
            try await TestPostgres.withClient(url: url, schema: schema) { second in
                // 120 writes at once queue for 20 connections a client and one write lock: on a loaded machine the last
                // wait longer than the default cap of a connection wait (6 s), which is not what this test is about.
                async let one = PortfolioStore.postgres(client: first, logger: quiet, leaseTimeout: .seconds(15))
                async let two = PortfolioStore.postgres(client: second, logger: quiet, leaseTimeout: .seconds(15))
                let stores = try await [one, two]
                let answers = try await withThrowingTaskGroup(of: (String, Trade).self) { group in
                    for request in 0..<40 {
                        for attempt in 0..<3 {
                            let store = stores[(request + attempt) % 2]
                            group.addTask {
                                let add = try tradeRequest("BTC", amount: "0.\(request + 1)", price: "100", requestId: "r-\(request)")
                                let trade = try await store.addTrade(add, "t-\(request)-\(attempt)", now, "replica") {
                                    try ActivityLedger.check($0, changed: "t-\(request)-\(attempt)")
                                }
                                return ("r-\(request)", trade)
                            }
                        }
                    }
                    var answers: [String: [Trade]] = [:]
                    for try await (requestId, trade) in group { answers[requestId, default: []].append(trade) }
                    return answers
                }
                #expect(answers.count == 40)
                #expect(answers.values.allSatisfy { $0.count == 3 && Set($0.map(\.id)).count == 1 })
                let trades = try await stores[0].trades()
                #expect(trades.count == 40)
                #expect(Set(trades.map(\.id)) == Set(answers.values.map { $0[0].id }))
                #expect(try await stores[1].trades() == trades)
                #expect(try await stores[1].tradeHistory(nil).count == 40)
            }
        }
    }

    /// Sells sent at once to two replicas are checked against every committed activity: of ten sells of 0.3 against a
    /// buy of 1, three are added and seven refused, whichever replica took them.
    @Test func concurrentSellsNeverTakeMoreThanIsHeld() async throws {
        let url = try await TestPostgres.shared.value
        let schema = TestPostgres.schema()
        try await TestPostgres.withClient(url: url, schema: schema) { first in
            try await TestPostgres.withClient(url: url, schema: schema) { second in
                let stores = [try await PortfolioStore.postgres(client: first, logger: quiet),
                              try await PortfolioStore.postgres(client: second, logger: quiet)]
                _ = try await stores[0].add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "buy"), "buy", now)
                let results = await withTaskGroup(of: Bool.self) { group in
                    for sell in 0..<10 {
                        group.addTask {
                            let request = try? tradeRequest("BTC", amount: "0.3", price: "120", kind: .sell, date: now, requestId: "sell-\(sell)")
                            guard let request else { return false }
                            return (try? await stores[sell % 2].addTrade(request, "sell-\(sell)", now, "replica") {
                                try ActivityLedger.check($0, changed: "sell-\(sell)")
                            }) != nil
                        }
                    }
                    return await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(results.filter { $0 }.count == 3)
                #expect(try await stores[1].trades().filter { $0.kind == .sell }.count == 3)
            }
        }
    }

    /// A server stopped in the middle of a write (its transaction open, waiting for the write lock another connection
    /// holds) answers -32000 with the retry hint and records nothing; while it is down, reads and writes answer the
    /// same within the lease timeout; once it is back, the same client reconnects and the retried request is added once.
    /// The test's own server is stopped and its folder removed afterwards, whether the test passed or not.
    @Test func aDatabaseThatGoesAwayIsUnavailableThenRecovers() async throws {
        let server = ["TICKWIRE_POSTGRES_DIR": "/tmp/tickwire-postgres-outage", "TICKWIRE_POSTGRES_PORT": "25433"]
        let url = try await TestPostgres.script("start", environment: server)
        do {
            try await Self.outage(url, server)
        } catch {
            await Self.remove(server)
            throw error
        }
        await Self.remove(server)
    }

    /// Stops the server of `server`'s folder and removes the folder.
    static func remove(_ server: [String: String]) async {
        _ = try? await TestPostgres.script("stop", environment: server)
        if let folder = server["TICKWIRE_POSTGRES_DIR"] { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// The outage of ``aDatabaseThatGoesAwayIsUnavailableThenRecovers()`` on the server at `url`.
    static func outage(_ url: String, _ server: [String: String]) async throws {
        let schema = TestPostgres.schema()
        try await TestPostgres.withClient(url: url, schema: schema) { client in
            let store = try await PortfolioStore.postgres(client: client, logger: quiet)
            let buy = try await store.add(try tradeRequest("BTC", amount: "1", price: "100", requestId: "r-1"), "t-1", now)
            let request = try tradeRequest("BTC", amount: "2", price: "100", requestId: "r-2")
            // The server stops while this write's transaction is open: it waits for the write lock the holder took.
            // The holder's client leaves the schema to the store's, whose server is stopped when it ends.
            let write = try await TestPostgres.withClient(url: url, schema: schema, drops: false) { other in
                try await other.withConnection { holder in
                    try await holder.query("SELECT pg_advisory_lock(\(PostgresSchema.writeLock), hashtext(current_schema()))", logger: quiet)
                    let write = Task { try await store.addTrade(request, "t-2", now, "x") { _ in } }
                    try await TimeoutTests.untilAWriteWaits(holder)
                    try await TestPostgres.script("stop", environment: server)
                    return write
                }
            }
            let midWrite = await #expect(throws: PostgresStoreError.self) { try await write.value }
            let answer = RPCError(answering: try #require(midWrite))
            #expect(answer.code == RPCError.Code.unavailable)
            #expect(answer.message.contains("cannot reach its PostgreSQL database") && answer.message.contains("retry later with the same requestId"))

            let started = ContinuousClock.now
            await #expect(throws: PostgresStoreError.self) { try await store.trades() }
            await #expect(throws: PostgresStoreError.self) { try await store.add(request, "t-3", now) }
            #expect(ContinuousClock.now - started < .seconds(5), "each answered within the lease timeout")

            try await TestPostgres.script("start", environment: server)
            var retried: Trade?
            for _ in 0..<100 where retried == nil {
                do {
                    retried = try await store.add(request, "t-4", now)
                } catch is PostgresStoreError {
                    try await Task.sleep(for: .milliseconds(100))
                }
            }
            #expect(retried?.id == "t-4", "the write cut off was rolled back, so the retry adds it")
            #expect(try await store.add(request, "t-5", now) == retried)
            #expect(try await store.trades().map(\.id) == [buy.id, "t-4"])
        }
    }
}
