import Bus
import Foundation
import PortfolioEngine
import GRDB
import TickwireContract
import Money
import BusContract

extension PortfolioStore {
    /// A store in the SQLite file at `path` (WAL, synchronous=FULL: an acknowledged write
    /// survives the process being killed right after the reply).
    public static func live(path: String) throws -> Self {
        try sqlite(openDatabase(path: path))
    }

    /// The SQLite file at `path` (made with its folder if missing) in WAL mode, its writer at `synchronous=FULL`.
    ///
    /// GRDB's `DatabasePool` sets `synchronous=NORMAL` on its writer when it turns WAL on, after
    /// `prepareDatabase` has run: a commit is then not synced, and survives a killed process but not the
    /// file system going away (the chaos run lost every trade of the last seconds when the disk turned
    /// read-only). So FULL is set again on the writer once the pool is open.
    static func openDatabase(path: String) throws -> DatabasePool {
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        let pool = try DatabasePool(path: path, configuration: configuration)
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        return pool
    }

    /// A store in memory: for tests and demos that must leave nothing behind.
    public static func inMemory() throws -> Self {
        try sqlite(DatabaseQueue())
    }

    private static func sqlite(_ database: any DatabaseWriter) throws -> Self {
        try migrator.migrate(database)
        return Self(
            addTrade: { request, id, now in
                try await writing { try await database.write { db in
                    if let answered = try Row.fetchOne(
                        db, sql: "SELECT trade_id, trade FROM request WHERE id = ?", arguments: [request.requestId]) {
                        return try firstAnswer(answered, db)
                    }
                    try db.execute(
                        sql: """
                        INSERT INTO trade (id, asset, amount, price, currency, date, recorded_at)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                        arguments: [id, request.asset, request.amount.description, request.price.description,
                                    request.currency, Wire.format(request.date), Wire.format(now)])
                    guard let stored = try Row.fetchOne(db, sql: "SELECT * FROM trade WHERE id = ?", arguments: [id]) else {
                        throw StoreError.corrupt("trade \(id) vanished while being written")
                    }
                    let trade = try stored.trade()
                    try db.execute(sql: "INSERT INTO request (id, trade_id, trade) VALUES (?, ?, ?)",
                                   arguments: [request.requestId, id, String(decoding: try Wire.encode(trade), as: UTF8.self)])
                    return trade
                } }
            },
            removeTrade: { id in
                try await writing { try await database.write { db in
                    try db.execute(sql: "DELETE FROM trade WHERE id = ?", arguments: [id])
                    return db.changesCount > 0
                } }
            },
            trades: {
                try await database.read { db in
                    try Row.fetchAll(db, sql: "SELECT * FROM trade ORDER BY date, recorded_at, id").map { try $0.trade() }
                }
            },
            watch: { asset, now in
                try await writing { try await database.write { db in
                    try db.execute(sql: "INSERT OR IGNORE INTO watch (asset, added_at) VALUES (?, ?)",
                                   arguments: [asset, Wire.format(now)])
                    return db.changesCount > 0
                } }
            },
            unwatch: { asset in
                try await writing { try await database.write { db in
                    try db.execute(sql: "DELETE FROM watch WHERE asset = ?", arguments: [asset])
                    return db.changesCount > 0
                } }
            },
            watchlist: {
                try await database.read { db in
                    try String.fetchAll(db, sql: "SELECT asset FROM watch ORDER BY added_at, asset")
                }
            },
            savePrices: { prices in
                try await writing { try await database.write { db in
                    for price in prices {
                        try db.execute(
                            sql: """
                            INSERT OR REPLACE INTO price (asset, currency, price, change_percent_24h, updated_at)
                            VALUES (?, ?, ?, ?, ?)
                            """,
                            arguments: [price.asset, price.currency, price.price.description,
                                        price.changePercent24h?.description, Wire.format(price.updatedAt)])
                    }
                } }
            },
            prices: {
                try await database.read { db in
                    try Row.fetchAll(db, sql: "SELECT * FROM price ORDER BY asset, currency").map { row in
                        StoredPrice(
                            asset: row["asset"], currency: row["currency"],
                            price: try ExactDecimal(row["price"] as String),
                            changePercent24h: try (row["change_percent_24h"] as String?).map { try ExactDecimal($0) },
                            updatedAt: try row.date("updated_at"))
                    }
                }
            },
            saveDocument: { key, body in
                try await writing { try await database.write { db in
                    try db.execute(sql: "INSERT OR REPLACE INTO document (key, body) VALUES (?, ?)", arguments: [key, body])
                } }
            },
            document: { key in
                try await database.read { db in
                    try Data.fetchOne(db, sql: "SELECT body FROM document WHERE key = ?", arguments: [key])
                }
            }
        )
    }

    /// The schema, one migration per change; applied on open.
    private static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.execute(sql: """
                CREATE TABLE trade (
                    id TEXT PRIMARY KEY, asset TEXT NOT NULL, amount TEXT NOT NULL, price TEXT NOT NULL,
                    currency TEXT NOT NULL, date TEXT NOT NULL, recorded_at TEXT NOT NULL);
                CREATE TABLE request (id TEXT PRIMARY KEY, trade_id TEXT NOT NULL);
                CREATE TABLE watch (asset TEXT PRIMARY KEY, added_at TEXT NOT NULL);
                CREATE TABLE price (
                    asset TEXT NOT NULL, currency TEXT NOT NULL, price TEXT NOT NULL,
                    change_percent_24h TEXT, updated_at TEXT NOT NULL, PRIMARY KEY (asset, currency));
                CREATE TABLE document (key TEXT PRIMARY KEY, body BLOB NOT NULL);
                """)
        }
        migrator.registerMigration("v2: requests keep their first answer") { db in
            try db.execute(sql: "ALTER TABLE request ADD COLUMN trade TEXT")
        }
        return migrator
    }

    /// The trade a request already answered with, even if it was removed since.
    private static func firstAnswer(_ request: Row, _ db: Database) throws -> Trade {
        if let json: String = request["trade"] { return try Wire.decode(Trade.self, from: Data(json.utf8)) }
        let tradeID: String = request["trade_id"]
        guard let trade = try Row.fetchOne(db, sql: "SELECT * FROM trade WHERE id = ?", arguments: [tradeID]) else {
            throw StoreError.corrupt("request for trade \(tradeID) has no answer stored and the trade is gone")
        }
        return try trade.trade()
    }
}

extension Row {
    /// A `trade` row as a ``Trade``; amounts are stored as exact decimal text.
    fileprivate func trade() throws -> Trade {
        Trade(
            id: self["id"], asset: self["asset"],
            amount: try ExactDecimal(self["amount"] as String), price: try ExactDecimal(self["price"] as String),
            currency: self["currency"],
            date: try date("date"), recordedAt: try date("recorded_at"))
    }

    /// A column holding a wire-format date.
    fileprivate func date(_ column: String) throws -> Date {
        let text: String = self[column]
        guard let date = Wire.parseDate(text) else { throw StoreError.corrupt("\(column) is not a date: \(text)") }
        return date
    }
}

extension PortfolioStore {
    /// Runs a write, turning SQLite's "cannot write" errors (a full disk, a read-only or failing one) into
    /// ``StoreError/unwritable(_:)``: nothing of the write was recorded, and reads go on.
    static func writing<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as DatabaseError {
            switch error.resultCode {
            case .SQLITE_FULL: throw StoreError.unwritable("the disk is full")
            case .SQLITE_READONLY: throw StoreError.unwritable("the database is read-only")
            case .SQLITE_IOERR: throw StoreError.unwritable("disk I/O error: the disk is failing or read-only")
            default: throw error
            }
        }
    }
}

/// A stored row that cannot be read back, or a write the disk refused.
public enum StoreError: Error, Equatable, CustomStringConvertible, RPCErrorConvertible {
    /// A column's text is not what was written.
    case corrupt(String)
    /// The database could not be written (the reason given); nothing of the write was recorded.
    case unwritable(String)

    public var description: String {
        switch self {
        case .corrupt(let detail): "corrupt portfolio database: \(detail)"
        case .unwritable(let reason): "the portfolio cannot write its database (\(reason)): nothing was recorded"
        }
    }

    /// `unwritable` is -32000 (unavailable: retrying later with the same `requestId` is safe), `corrupt` internal.
    public var rpcError: RPCError {
        switch self {
        case .corrupt: .internalError(description)
        case .unwritable: .unavailable("\(description); reads still work, retry later with the same requestId")
        }
    }
}
