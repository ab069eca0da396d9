import ChildProcesses
import Foundation
import Logging
import Money
import PortfolioCore
import PortfolioEngine
import PortfolioPostgres
import PostgresNIO
import Testing
import TickwireContract

/// An exact decimal from its text.
func dec(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

/// A fixed moment (whole seconds, so it survives the wire's millisecond dates unchanged).
let now = Date(timeIntervalSince1970: 1_765_000_000)

/// The test server of scripts/postgres-test.sh: TICKWIRE_TEST_POSTGRES when `make test` started it, else started here
/// (never skipped: a server that cannot start fails the test that needed it).
enum TestPostgres {
    /// The repository's root, from this file's path.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The shared server's URL, started once per test process.
    static let shared = Task<String, any Error> {
        if let url = ProcessInfo.processInfo.environment["TICKWIRE_TEST_POSTGRES"], !url.isEmpty { return url }
        return try await script("start")
    }

    /// Runs scripts/postgres-test.sh `command` with `environment` added (through swift-subprocess: Foundation's
    /// `Process` can crash on Linux); the URL it printed, or an error with what it said.
    @discardableResult
    static func script(_ command: String, environment: [String: String] = [:]) async throws -> String {
        let script = root.appendingPathComponent("scripts/postgres-test.sh").path
        let (status, output) = try await ChildProcess.run("bash", [script, command], environment: environment)
        guard status == 0 else { throw TestServerError(message: "scripts/postgres-test.sh \(command) failed (\(status)): \(output)") }
        return output.split(separator: "\n").last { $0.hasPrefix("postgres://") }.map(String.init) ?? ""
    }

    /// A client of the database at `url` whose connections work in `schema` (made if missing, and dropped afterwards
    /// unless `drops` is false), with at most `maximumConnections` when given, running while `body` runs.
    static func withClient<T: Sendable>(
        url: String, schema: String, maximumConnections: Int? = nil, drops: Bool = true, _ body: @Sendable (PostgresClient) async throws -> T
    ) async throws -> T {
        var configuration = try PostgresDatabaseURL(url).configuration
        configuration.options.additionalStartupParameters = [("search_path", schema)]
        if let maximumConnections {
            configuration.options.minimumConnections = 0
            configuration.options.maximumConnections = maximumConnections
        }
        let client = PostgresClient(configuration: configuration)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            try await client.query("CREATE SCHEMA IF NOT EXISTS \(unescaped: schema)")
            let value: T
            do {
                value = try await body(client)
            } catch {
                if drops { await drop(schema, client) }
                throw error
            }
            if drops { await drop(schema, client) }
            return value
        }
    }

    /// Drops `schema` and everything in it, giving up after 5 s (a server a failed test left stopped).
    static func drop(_ schema: String, _ client: PostgresClient) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { _ = try? await client.query("DROP SCHEMA IF EXISTS \(unescaped: schema) CASCADE") }
            group.addTask { try? await Task.sleep(for: .seconds(5)) }
            await group.next()
            group.cancelAll()
        }
    }

    /// A fresh schema's name.
    static func schema() -> String { "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased() }

    /// A store in a fresh schema of the shared server, for `body`.
    static func withStore(_ body: @Sendable (PortfolioStore) async throws -> Void) async throws {
        let url = try await shared.value
        try await withClient(url: url, schema: schema()) { client in
            try await body(try await PortfolioStore.postgres(client: client, logger: quiet))
        }
    }
}

/// A logger that writes nothing.
let quiet = Logger(label: "test") { _ in SwiftLogNoOpLogHandler() }

/// scripts/postgres-test.sh failed.
struct TestServerError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The three ways a portfolio is stored.
enum StoreKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case memory, sqlite, sqliteFile, postgres

    var testDescription: String { rawValue }

    /// Runs `body` with a fresh store of this kind.
    func withStore(_ body: @Sendable (PortfolioStore) async throws -> Void) async throws {
        switch self {
        case .memory: try await body(.memory())
        case .sqlite: try await body(try .inMemory())
        case .sqliteFile:
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-contract-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: folder) }
            try await body(try .live(path: folder.appendingPathComponent("portfolio.sqlite").path))
        case .postgres: try await TestPostgres.withStore(body)
        }
    }
}

/// A trade request for `asset` with amount and price as text.
func tradeRequest(
    _ asset: String, amount: String, price: String, currency: String = "USD", kind: ActivityKind = .buy,
    date: Date = now.addingTimeInterval(-86_400), requestId: String, portfolio: String? = nil
) throws -> AddTradeRequest {
    AddTradeRequest(kind: kind, asset: asset, amount: try dec(amount), price: try dec(price), currency: currency, date: date,
                    requestId: requestId, portfolio: portfolio)
}

extension PortfolioStore {
    /// Adds `request` as `id` by "tester", with no holdings check.
    func add(_ request: AddTradeRequest, _ id: String, _ now: Date) async throws -> Trade {
        try await addTrade(request, id, now, "tester") { _ in }
    }

    /// Removes trade `id` by "tester", with no holdings check.
    func remove(_ id: String, requestId: String? = nil) async throws -> Bool {
        try await removeTrade(id, requestId, now, "tester") { _ in }.value
    }
}
