import Bus
import BusContract
import ChildProcesses
import Foundation
import Market
import Money
import Testing
import TickwireContract
import ZeroMQ

/// A database of its own on the test PostgreSQL server, for one test: the server is `TICKWIRE_TEST_POSTGRES`'s
/// (a `postgres://` URL, as `make test` gives), or else the throwaway one scripts/postgres-test.sh starts.
struct TestDatabase: Sendable {
    /// The URL of this test's database.
    let url: String
    /// The URL of the server's maintenance database, where this one is made and dropped.
    let serverURL: String
    let name: String

    /// Makes an empty database named after this test run on the test server.
    static func make() async throws -> TestDatabase {
        let serverURL = try await serverURL()
        let name = "tickwire_e2e_\(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(12))"
        try await psql(serverURL, "CREATE DATABASE \(name)")
        return TestDatabase(url: try replacingDatabase(of: serverURL, with: name), serverURL: serverURL, name: name)
    }

    /// Drops the database (the portfolios using it stopped first).
    func drop() async {
        _ = try? await Self.psql(serverURL, "DROP DATABASE IF EXISTS \(name) WITH (FORCE)")
    }

    /// The server's URL: `TICKWIRE_TEST_POSTGRES`, or what `scripts/postgres-test.sh start` prints (it starts the
    /// server unless it already runs).
    private static func serverURL() async throws -> String {
        if let url = ProcessInfo.processInfo.environment["TICKWIRE_TEST_POSTGRES"], !url.isEmpty { return url }
        let script = repositoryRoot.appendingPathComponent("scripts/postgres-test.sh").path
        let (status, output) = try await ChildProcess.run("bash", [script, "start"])
        guard status == 0, let url = output.split(separator: "\n").last(where: { $0.hasPrefix("postgres://") }) else {
            throw TestDatabaseError("scripts/postgres-test.sh start failed (exit \(status)): \(output.suffix(2000))")
        }
        return String(url)
    }

    /// Runs one SQL command with psql; throws with its output when it fails.
    private static func psql(_ url: String, _ command: String) async throws {
        let (status, output) = try await ChildProcess.run("psql", [url, "--no-psqlrc", "--quiet", "-v", "ON_ERROR_STOP=1", "-c", command])
        guard status == 0 else { throw TestDatabaseError("psql \(command): exit \(status): \(output)") }
    }

    /// `url` with its database (its path) replaced by `name`, its query kept.
    private static func replacingDatabase(of url: String, with name: String) throws -> String {
        guard var components = URLComponents(string: url) else { throw TestDatabaseError("not a URL: \(url)") }
        components.path = "/\(name)"
        guard let replaced = components.string else { throw TestDatabaseError("cannot name database \(name) in \(url)") }
        return replaced
    }

    private static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()
}

struct TestDatabaseError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// rates-fetcher (test feeds), the converter, and two portfolio processes on one PostgreSQL database.
final class TwoReplicas: Stoppable, @unchecked Sendable {
    // @unchecked: every property is set once in init and only read after.
    let endpoints: Endpoints
    let database: TestDatabase
    let fetcher: ServiceProcess
    let converter: ServiceProcess
    let replicas: [ServiceProcess]
    let replicaReps: [String]
    let context: ZMQContext

    init() async throws {
        endpoints = try Endpoints()
        database = try await TestDatabase.make()
        fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "test"], in: endpoints.directory)
        converter = try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory)
        var replicas: [ServiceProcess] = []
        var reps: [String] = []
        for name in ["a", "b"] {
            let rep = "ipc://\(endpoints.directory.path)/portfolio-\(name)-rep"
            let pub = "ipc://\(endpoints.directory.path)/portfolio-\(name)-pub"
            let directory = endpoints.directory.appendingPathComponent("replica-\(name)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            replicas.append(try await ServiceProcess("portfolio", [
                "--rep", rep, "--pub", pub, "--fetcher-pub", endpoints.fetcherPub, "--fetcher-rep", endpoints.fetcherRep,
                "--converter-pub", endpoints.converterPub, "--converter-rep", endpoints.converterRep, "--database", database.url,
            ], in: directory))
            reps.append(rep)
        }
        self.replicas = replicas
        replicaReps = reps
        context = try ZMQContext()
        for (replica, rep) in zip(replicas, reps) {
            let rpc = try client(context, rep)
            try await waitUntilHealthy(rpc, replica)
            await rpc.close()
        }
    }

    func stop() async {
        for service in replicas + [converter, fetcher] { await service.stop() }
        await database.drop()
    }
}

@Suite("two portfolio replicas on one PostgreSQL", .serialized)
struct PortfolioReplicasEndToEndTests {
    /// Concurrent `trades.add` calls, each retried with its `requestId` on both replicas at once: each is recorded
    /// once, every answer for one `requestId` is the same trade, and both replicas list the same activities.
    @Test func retriedWritesOnBothReplicasAddEachOnce() async throws {
        try await TwoReplicas().use { stack in
            try await Self.retriedWrites(stack)
            try await Self.concurrentSellsAreCheckedTogether(stack)
        }
    }

    /// 24 requests, each sent twice to each replica at the same time over 8 clients (4 a replica).
    private static func retriedWrites(_ stack: TwoReplicas) async throws {
        let clients = try (0..<8).map { try client(stack.context, stack.replicaReps[$0 % 2]) }
        let date = Date(timeIntervalSinceNow: -86_400)
        let requests = try (1...24).map { n in
            AddTradeRequest(asset: "BTC", amount: try ExactDecimal("0.01"), price: try ExactDecimal("\(1000 + n)"), currency: "USD",
                            date: date, requestId: "replicas-\(n)")
        }
        let answers = try await withThrowingTaskGroup(of: (String, Trade).self) { group in
            for (index, request) in requests.enumerated() {
                // Two sends on each replica's clients, interleaved so a request's copies race each other.
                for copy in 0..<4 {
                    let rpc = clients[(index + copy) % clients.count]
                    group.addTask { (request.requestId, try await rpc.call("trades.add", params: request, as: Trade.self)) }
                }
            }
            var answers: [String: [Trade]] = [:]
            for try await (requestId, trade) in group { answers[requestId, default: []].append(trade) }
            return answers
        }
        for client in clients { await client.close() }
        #expect(answers.count == requests.count)
        for request in requests {
            let trades = answers[request.requestId] ?? []
            #expect(trades.count == 4, "\(request.requestId): every copy answered")
            #expect(Set(trades.map(\.id)).count == 1, "\(request.requestId): one trade for every copy, got \(trades.map(\.id))")
            #expect(trades.first?.price == request.price, "\(request.requestId): the trade of that request")
        }

        let listed = try await listings(stack)
        #expect(listed[0] == listed[1], "both replicas list the same activities")
        #expect(listed[0].count == requests.count, "each requestId added once: \(listed[0].count) listed")
        #expect(Set(listed[0].map(\.id)) == Set(answers.values.compactMap { $0.first?.id }), "the acknowledged trades, and only they")
        #expect(Set(listed[0].map(\.price)) == Set(requests.map(\.price)), "each request's marker price once")
    }

    /// Two sells of 0.15 BTC (0.24 held), one on each replica at the same time: the holdings check sees the other
    /// replica's sell, so exactly one is recorded and the other refused as invalid params.
    private static func concurrentSellsAreCheckedTogether(_ stack: TwoReplicas) async throws {
        let clients = try stack.replicaReps.map { try client(stack.context, $0) }
        let date = Date(timeIntervalSinceNow: -3_600)
        let outcomes = try await withThrowingTaskGroup(of: Result<Trade, RPCError>.self) { group in
            for (index, rpc) in clients.enumerated() {
                let sell = AddTradeRequest(kind: .sell, asset: "BTC", amount: try ExactDecimal("0.15"), price: try ExactDecimal("2000"),
                                           currency: "USD", date: date, requestId: "replicas-sell-\(index)")
                group.addTask {
                    do { return .success(try await rpc.call("trades.add", params: sell, as: Trade.self)) } catch let error as RPCError {
                        return .failure(error)
                    }
                }
            }
            var outcomes: [Result<Trade, RPCError>] = []
            for try await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
        for client in clients { await client.close() }
        let sold = outcomes.compactMap { try? $0.get() }
        let refused = outcomes.compactMap { outcome -> RPCError? in if case .failure(let error) = outcome { error } else { nil } }
        #expect(sold.count == 1, "one sell recorded: \(outcomes)")
        #expect(refused.map(\.code) == [RPCError.Code.invalidParams], "the other refused: \(refused)")
        // Whichever came second, 0.09 BTC was left for it to sell 0.15 of.
        #expect(refused.first?.message.contains("0.09 BTC held then") == true, "\(refused)")
        let listed = try await listings(stack)
        #expect(listed[0] == listed[1])
        #expect(listed[0].filter { $0.kind == .sell }.map(\.id) == sold.map(\.id))
    }

    /// `trades.list` of each replica, by id.
    private static func listings(_ stack: TwoReplicas) async throws -> [[Trade]] {
        var listings: [[Trade]] = []
        for rep in stack.replicaReps {
            let rpc = try client(stack.context, rep)
            listings.append(try await rpc.call("trades.list", as: [Trade].self).sorted { $0.id < $1.id })
            await rpc.close()
        }
        return listings
    }
}
