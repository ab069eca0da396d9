import Foundation
import Logging
import PortfolioEngine
import PortfolioPostgres
import PostgresNIO

/// Benchmark 9 on PostgreSQL: the import into a database of its own per round on the server `--postgres` names.
enum PortfolioPostgresBench {
    /// The database of round `round`: made new (dropped first if an earlier run left it).
    static func database(_ round: Int) -> String { "tickwire_bench_import_\(round)" }

    /// Runs `body` with a running client of `configuration`, then stops the client.
    static func withClient<T: Sendable>(
        _ configuration: PostgresClient.Configuration, logger: Logger, _ body: @Sendable @escaping (PostgresClient) async throws -> T
    ) async throws -> T {
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask {
                await client.run()
                return nil
            }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }

    /// Drops database `name` if it is there, and makes it again when `create`, through the database `url` names.
    static func reset(_ name: String, url: PostgresDatabaseURL, create: Bool, logger: Logger) async throws {
        try await withClient(url.configuration, logger: logger) { client in
            try await client.query(PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(name) WITH (FORCE)"), logger: logger)
            if create { try await client.query(PostgresQuery(unsafeSQL: "CREATE DATABASE \(name)"), logger: logger) }
        }
    }

    /// One round: a dry run and then the commit of `csv` into a new database, each timed.
    static func round(_ round: Int, url: PostgresDatabaseURL, csv: String, prices: [String: String], lines: Int) async throws -> (dry: Duration, commit: Duration) {
        let logger = {
            var logger = Logger(label: "bench.postgres")
            // Not .warning: postgres-nio warns when a lease comes before `run()` has started, which it then waits for.
            logger.logLevel = .error
            return logger
        }()
        let name = database(round)
        try await reset(name, url: url, create: true, logger: logger)
        var configuration = url.configuration
        configuration.database = name
        let result = try await withClient(configuration, logger: logger) { client in
            let store = try await PortfolioStore.postgres(client: client, logger: logger)
            let state = try await PortfolioBench.state(store, prices: prices)
            let dry = try await PortfolioBench.importOnce(state, csv: csv, dryRun: true, lines: lines)
            let commit = try await PortfolioBench.importOnce(state, csv: csv, dryRun: false, lines: lines)
            return (dry, commit)
        }
        try await reset(name, url: url, create: false, logger: logger)
        return result
    }
}
