import BusContract
import PortfolioEngine
import PortfolioPostgres
import PostgresNIO
import Testing

@Suite("PostgreSQL store: the database's refusals")
struct RefusalTests {
    /// A database that refuses the store (here a role that may use its schema but not create in it: 42501) is a readable internal error
    /// with the SQLSTATE and the server's message, not postgres-nio's generic description.
    @Test func aRefusalSaysItsStateAndMessage() async throws {
        let url = try await TestPostgres.shared.value
        let schema = TestPostgres.schema()
        try await TestPostgres.withClient(url: url, schema: schema) { admin in
            try await admin.query("""
                DO $$ BEGIN CREATE ROLE tickwire_no_rights NOLOGIN; EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; END $$
                """)
            try await admin.query("GRANT USAGE ON SCHEMA \(unescaped: schema) TO tickwire_no_rights")
            var configuration = try PostgresDatabaseURL(url).configuration
            configuration.options.additionalStartupParameters = [("search_path", schema), ("role", "tickwire_no_rights")]
            let client = PostgresClient(configuration: configuration)
            let refused = await withTaskGroup(of: Void.self) { group in
                group.addTask { await client.run() }
                defer { group.cancelAll() }
                // Waiting up to 30 s for the first connection, as the service does: a loaded machine may take seconds.
                return await #expect(throws: PostgresStoreError.self) {
                    try await PortfolioStore.postgres(client: client, logger: quiet, waitingUpTo: .seconds(30))
                }
            }
            let error = try #require(refused)
            guard case .refused(let reason) = error else { Issue.record("not a refusal: \(error)"); return }
            #expect(reason.hasPrefix("42501: permission denied for schema \(schema)"))
            let answer = RPCError(answering: error)
            #expect(answer.code == RPCError.Code.internalError)
            #expect(answer.message.contains("refused the request: 42501: permission denied"))
            #expect(!answer.message.contains("Generic description"))
        }
    }
}
