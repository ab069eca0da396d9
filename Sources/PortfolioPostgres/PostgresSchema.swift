import Logging
import PostgresNIO

/// The PostgreSQL store's tables, one migration per change, applied at start under an advisory lock so that two
/// replicas starting at once apply each migration once.
///
/// Decimals and dates are TEXT as the SQLite store keeps them (the digits as written, the wire's ISO 8601 dates);
/// the text columns that order rows sort byte by byte (`COLLATE "C"`), as SQLite's do.
enum PostgresSchema {
    /// Each migration's version, what it does, and its statements.
    static let migrations: [(version: Int, name: String, statements: [String])] = [
        (1, "activities with their portfolio, requests, audit history, watch list, prices, documents", [
            """
            CREATE TABLE trade (
                id TEXT COLLATE "C" PRIMARY KEY, kind TEXT NOT NULL, asset TEXT COLLATE "C" NOT NULL,
                amount TEXT NOT NULL, price TEXT NOT NULL, currency TEXT NOT NULL, fee_amount TEXT, fee_currency TEXT,
                date TEXT COLLATE "C" NOT NULL, recorded_at TEXT COLLATE "C" NOT NULL,
                portfolio TEXT COLLATE "C" NOT NULL DEFAULT 'main')
            """,
            "CREATE INDEX trade_by_asset ON trade (asset, date)",
            "CREATE INDEX trade_by_portfolio ON trade (portfolio, asset, date)",
            """
            CREATE TABLE request (
                id TEXT COLLATE "C" PRIMARY KEY, action TEXT NOT NULL, trade_id TEXT NOT NULL, trade TEXT)
            """,
            """
            CREATE TABLE trade_revision (
                seq BIGSERIAL PRIMARY KEY, trade_id TEXT COLLATE "C" NOT NULL, action TEXT NOT NULL, changed_by TEXT NOT NULL,
                changed_at TEXT NOT NULL, request_id TEXT, before_trade TEXT, after_trade TEXT)
            """,
            "CREATE INDEX trade_revision_by_trade ON trade_revision (trade_id, seq)",
            "CREATE TABLE watch (asset TEXT COLLATE \"C\" PRIMARY KEY, added_at TEXT COLLATE \"C\" NOT NULL)",
            """
            CREATE TABLE price (
                asset TEXT COLLATE "C" NOT NULL, currency TEXT COLLATE "C" NOT NULL, price TEXT NOT NULL,
                change_percent_24h TEXT, updated_at TEXT NOT NULL, PRIMARY KEY (asset, currency))
            """,
            "CREATE TABLE document (key TEXT PRIMARY KEY, body BYTEA NOT NULL)",
        ]),
    ]

    /// The advisory lock class of the schema's migrations; the other key is the schema's name hashed.
    static let migrationLock: Int32 = 7_300
    /// The advisory lock class every activity write takes (per schema) for its transaction.
    static let writeLock: Int32 = 7_301

    /// Applies the migrations the database has not seen, in one transaction holding the migration lock.
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws {
        try await connection.locked(migrationLock, logger: logger) {
            try await connection.run("""
                CREATE TABLE IF NOT EXISTS tickwire_schema (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())
                """, logger: logger)
            var applied: Set<Int> = []
            for try await version in try await connection.run("SELECT version FROM tickwire_schema", logger: logger).decode(Int.self) {
                applied.insert(version)
            }
            for migration in migrations where !applied.contains(migration.version) {
                for statement in migration.statements { try await connection.run(PostgresQuery(unsafeSQL: statement), logger: logger) }
                try await connection.run(
                    "INSERT INTO tickwire_schema (version, name) VALUES (\(migration.version), \(migration.name))", logger: logger)
                logger.info("portfolio database migrated", metadata: ["version": "\(migration.version)", "migration": "\(migration.name)"])
            }
        }
    }
}
