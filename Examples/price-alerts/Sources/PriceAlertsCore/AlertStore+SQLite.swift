import Bus
import Foundation
import GRDB
import PriceAlertsAPI
import ServiceSupport
import TickwireStack
import Money
import TickwireContract

extension AlertStore {
    /// The environment variable naming the database: a path, or `:memory:`.
    public static let databaseVariable = "TICKWIRE_ALERTS_DATABASE"

    /// The database `flag` names, else `TICKWIRE_ALERTS_DATABASE`, else
    /// `$XDG_DATA_HOME/tickwire/price-alerts.sqlite` (`~/.local/share/...` without `XDG_DATA_HOME`).
    public static func databasePath(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/share")
        return Setting.resolve(flag, environmentVariable: databaseVariable, default: dataHome.appendingPathComponent("tickwire/price-alerts.sqlite").path,
                               environment: environment)
    }

    /// The store at `path`: ``inMemory()`` for `:memory:`, else ``live(path:)``.
    public static func open(_ path: String) throws -> Self {
        path == ":memory:" ? try inMemory() : try live(path: path)
    }

    /// A store in the SQLite file at `path`, made with its folder if missing (WAL, synchronous=FULL: an
    /// acknowledged rule survives the process being killed right after the reply).
    public static func live(path: String) throws -> Self {
        try sqlite(openDatabase(path: path))
    }

    /// The SQLite file at `path` (made with its folder if missing) in WAL mode, its writer at `synchronous=FULL`.
    /// GRDB's `DatabasePool` sets NORMAL on its writer as it turns WAL on (after `prepareDatabase`), which
    /// leaves a commit unsynced until the next checkpoint: FULL is set again once the pool is open.
    static func openDatabase(path: String) throws -> DatabasePool {
        try FileManager.default.createDirectory(at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return pool
    }

    /// A store in an SQLite database in memory, with the file's schema and rules: for tests and demos
    /// that must leave nothing behind.
    public static func inMemory() throws -> Self {
        try sqlite(DatabaseQueue())
    }

    private static func sqlite(_ database: any DatabaseWriter) throws -> Self {
        try migrator.migrate(database)
        return Self(
            add: { rule, requestId in
                try await database.write { db in
                    if let requestId, let answer = try String.fetchOne(db, sql: "SELECT rule FROM request WHERE id = ?", arguments: [requestId]) {
                        return try Wire.decode(AlertRule.self, from: Data(answer.utf8))
                    }
                    try db.execute(
                        sql: """
                        INSERT INTO rule (id, asset, currency, above, below, created_at, holds, last_fired)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                        """,
                        arguments: [rule.id, rule.asset, rule.currency, rule.above?.description, rule.below?.description,
                                    Wire.format(rule.createdAt), rule.holds, rule.lastFired.map(Wire.format)])
                    guard let stored = try Row.fetchOne(db, sql: "SELECT * FROM rule WHERE id = ?", arguments: [rule.id]) else {
                        throw AlertStoreError.corrupt("rule \(rule.id) vanished while being written")
                    }
                    let answer = try stored.rule()
                    if let requestId {
                        try db.execute(sql: "INSERT INTO request (id, rule) VALUES (?, ?)",
                                       arguments: [requestId, String(decoding: try Wire.encode(answer), as: UTF8.self)])
                    }
                    return answer
                }
            },
            remove: { id in
                try await database.write { db in
                    try db.execute(sql: "DELETE FROM rule WHERE id = ?", arguments: [id])
                    return db.changesCount > 0
                }
            },
            rules: {
                try await database.read { db in
                    try Row.fetchAll(db, sql: "SELECT * FROM rule ORDER BY created_at, rowid").map { try $0.rule() }
                }
            },
            saveStates: { rules in
                try await database.write { db in
                    for rule in rules {
                        try db.execute(sql: "UPDATE rule SET holds = ?, last_fired = ? WHERE id = ?",
                                       arguments: [rule.holds, rule.lastFired.map(Wire.format), rule.id])
                    }
                }
            })
    }

    /// The schema, one migration per change; applied on open.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: rules and the first answer of each request") { db in
            try db.execute(sql: """
                CREATE TABLE rule (
                    id TEXT PRIMARY KEY, asset TEXT NOT NULL, currency TEXT NOT NULL, above TEXT, below TEXT,
                    created_at TEXT NOT NULL, holds INTEGER NOT NULL, last_fired TEXT,
                    CHECK ((above IS NULL) <> (below IS NULL)));
                CREATE TABLE request (id TEXT PRIMARY KEY, rule TEXT NOT NULL);
                """)
        }
        return migrator
    }
}

extension Row {
    /// A `rule` row as an ``AlertRule``; thresholds are stored as exact decimal text, dates as the wire writes them.
    fileprivate func rule() throws -> AlertRule {
        AlertRule(
            id: self["id"], asset: self["asset"], currency: self["currency"],
            above: try (self["above"] as String?).map { try ExactDecimal($0) },
            below: try (self["below"] as String?).map { try ExactDecimal($0) },
            createdAt: try date("created_at"), holds: self["holds"],
            lastFired: try (self["last_fired"] as String?).map { try Self.date($0, column: "last_fired") })
    }

    /// A column holding a wire-format date.
    private func date(_ column: String) throws -> Date {
        try Self.date(self[column], column: column)
    }

    private static func date(_ text: String, column: String) throws -> Date {
        guard let date = Wire.parseDate(text) else { throw AlertStoreError.corrupt("\(column) is not a date: \(text)") }
        return date
    }
}

/// A stored row that cannot be read back.
public enum AlertStoreError: Error, Equatable, CustomStringConvertible {
    /// A column's text is not what was written.
    case corrupt(String)

    public var description: String {
        switch self {
        case .corrupt(let detail): "corrupt price-alerts database: \(detail)"
        }
    }
}
