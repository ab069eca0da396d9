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
            addTrade: { request, id, now, by, check in
                try await writing { try await database.write { db in
                    if let first = try firstAnswer(request.requestId, action: "add", db) { return first }
                    let trade = Trade(id: id, kind: request.kind, asset: request.asset, amount: request.amount, price: request.price,
                                      currency: request.currency, fee: request.fee, date: request.date, recordedAt: now,
                                      portfolio: request.portfolio ?? Trade.mainPortfolio)
                    try insert(trade, db)
                    try check(try trades(of: [trade.asset], db))
                    let stored = try storedTrade(id, db)
                    try remember(request.requestId, action: "add", answer: stored, db)
                    try revise(id, .added, by: by, at: now, requestId: request.requestId, before: nil, after: stored, db)
                    return stored
                } }
            },
            editTrade: { request, now, by, check in
                try await writing { try await database.write { db in
                    let activity = request.activity
                    if let first = try firstAnswer(activity.requestId, action: "edit", db) {
                        guard first.id == request.id else { throw RequestReuse.error(activity.requestId, editOf: first.id, now: request.id) }
                        return Written(first, acted: false)
                    }
                    guard let before = try Row.fetchOne(db, sql: "SELECT * FROM trade WHERE id = ?", arguments: [request.id])?.trade() else {
                        throw RPCError.notFound("no trade with id \(request.id)")
                    }
                    try db.execute(sql: "DELETE FROM trade WHERE id = ?", arguments: [request.id])
                    try insert(Trade(id: request.id, kind: activity.kind, asset: activity.asset, amount: activity.amount, price: activity.price,
                                     currency: activity.currency, fee: activity.fee, date: activity.date, recordedAt: before.recordedAt,
                                     portfolio: activity.portfolio ?? before.portfolio), db)
                    try check(try trades(of: [before.asset, activity.asset], db))
                    let stored = try storedTrade(request.id, db)
                    try remember(activity.requestId, action: "edit", answer: stored, db)
                    try revise(request.id, .edited, by: by, at: now, requestId: activity.requestId, before: before, after: stored, db)
                    return Written(stored, acted: true)
                } }
            },
            removeTrade: { id, requestId, now, by, check in
                try await writing { try await database.write { db in
                    if let requestId, try priorRequest(requestId, action: "remove", db) != nil { return Written(true, acted: false) }
                    guard let before = try Row.fetchOne(db, sql: "SELECT * FROM trade WHERE id = ?", arguments: [id])?.trade() else {
                        return Written(false, acted: false)
                    }
                    try db.execute(sql: "DELETE FROM trade WHERE id = ?", arguments: [id])
                    try check(try trades(of: [before.asset], db))
                    if let requestId { try remember(requestId, action: "remove", answer: nil, db) }
                    try revise(id, .removed, by: by, at: now, requestId: requestId, before: before, after: nil, db)
                    return Written(true, acted: true)
                } }
            },
            trades: {
                try await database.read { db in
                    try Row.fetchAll(db, sql: "SELECT * FROM trade ORDER BY date, recorded_at, id").map { try $0.trade() }
                }
            },
            tradeHistory: { id in
                try await database.read { db in
                    let rows = if let id {
                        try Row.fetchAll(db, sql: "SELECT * FROM trade_revision WHERE trade_id = ? ORDER BY seq", arguments: [id])
                    } else {
                        try Row.fetchAll(db, sql: "SELECT * FROM trade_revision ORDER BY seq")
                    }
                    return try rows.map { try $0.revision() }
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
            },
            seenRequests: { ids in try await database.read { db in try seenRequests(ids, db) } },
            addTrades: { requests, now, by, check in
                // Prepared once and reused for every row: compiling three statements per row made 100,000 rows take a minute.
                try await writing { try await database.write { db in
                    let seen = try seenRequests(requests.map(\.request.requestId), db)
                    let addTrade = try db.cachedStatement(sql: """
                        INSERT INTO trade (id, kind, asset, amount, price, currency, fee_amount, fee_currency, date, recorded_at, portfolio)
                        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                        """)
                    let addRequest = try db.cachedStatement(sql: "INSERT INTO request (id, trade_id, trade, action) VALUES (?, ?, ?, 'add')")
                    let addRevision = try db.cachedStatement(
                        sql: "INSERT INTO trade_revision (trade_id, action, by, at, request_id, before, after) VALUES (?, 'added', ?, ?, ?, NULL, ?)")
                    let at = Wire.format(now)
                    guard let recordedAt = Wire.parseDate(at) else { throw StoreError.corrupt("the time \(at) does not read back") }
                    var written: [Written<Trade>] = []
                    written.reserveCapacity(requests.count)
                    var added: [(requestId: String, trade: Trade, date: String, json: String)] = []
                    var assets: Set<String> = []
                    for (request, id) in requests {
                        if seen.contains(request.requestId), let first = try firstAnswer(request.requestId, action: "add", db) {
                            written.append(Written(first, acted: false))
                            continue
                        }
                        let date = Wire.format(request.date)
                        guard let storedDate = Wire.parseDate(date) else { throw StoreError.corrupt("the date \(date) does not read back") }
                        let trade = Trade(id: id, kind: request.kind, asset: request.asset, amount: request.amount, price: request.price,
                                          currency: request.currency, fee: request.fee, date: storedDate, recordedAt: recordedAt,
                                          portfolio: request.portfolio ?? Trade.mainPortfolio)
                        added.append((request.requestId, trade, date, String(decoding: try Wire.encode(trade), as: UTF8.self)))
                        assets.insert(trade.asset)
                        written.append(Written(trade, acted: true))
                    }
                    // Table by table, the requests in the order of their ids (the lines' identities are random): with the
                    // three tables' rows interleaved and the request index filled at random, SQLite's page cache spilled to
                    // the WAL and read pages back all through a large import.
                    for (_, trade, date, _) in added {
                        try addTrade.execute(arguments: [
                            trade.id, trade.kind.rawValue, trade.asset, trade.amount.description, trade.price.description, trade.currency,
                            trade.fee?.amount.description, trade.fee?.currency, date, at, trade.portfolio])
                    }
                    for (requestId, trade, _, json) in added.sorted(by: { $0.requestId < $1.requestId }) {
                        try addRequest.execute(arguments: [requestId, trade.id, json])
                    }
                    for (requestId, trade, _, json) in added {
                        try addRevision.execute(arguments: [trade.id, by, at, requestId, json])
                    }
                    if !assets.isEmpty { try check(try trades(of: assets, db)) }
                    return written
                } }
            }
        )
    }

    /// The schema, one migration per change; applied on open (and, up to an older one, by tests that build an old database).
    static var migrator: DatabaseMigrator {
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
        registerActivities(&migrator)
        registerPortfolios(&migrator)
        return migrator
    }

    /// Registers the migration of v2 databases (trades that are all buys, requests that all added a trade) to activities:
    /// every trade becomes a buy without a fee, every request an `add`; edits and removals get an audit history.
    private static func registerActivities(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v3: activities (kind, fee) and their audit history") { db in
            try db.execute(sql: """
                ALTER TABLE trade ADD COLUMN kind TEXT NOT NULL DEFAULT 'buy';
                ALTER TABLE trade ADD COLUMN fee_amount TEXT;
                ALTER TABLE trade ADD COLUMN fee_currency TEXT;
                CREATE INDEX trade_by_asset ON trade (asset, date);
                ALTER TABLE request ADD COLUMN action TEXT NOT NULL DEFAULT 'add';
                CREATE TABLE trade_revision (
                    seq INTEGER PRIMARY KEY AUTOINCREMENT, trade_id TEXT NOT NULL, action TEXT NOT NULL, by TEXT NOT NULL,
                    at TEXT NOT NULL, request_id TEXT, before TEXT, after TEXT);
                CREATE INDEX trade_revision_by_trade ON trade_revision (trade_id, seq);
                """)
        }
    }

    /// Registers the migration of v3 databases (one portfolio) to several: every activity stored so far belongs to `main`.
    private static func registerPortfolios(_ migrator: inout DatabaseMigrator) {
        migrator.registerMigration("v4: portfolios (each activity in a named one, main by default)") { db in
            try db.execute(sql: """
                ALTER TABLE trade ADD COLUMN portfolio TEXT NOT NULL DEFAULT 'main';
                CREATE INDEX trade_by_portfolio ON trade (portfolio, asset, date);
                """)
        }
    }

    /// Which of `ids` named a request before, looked up 500 at a time.
    private static func seenRequests(_ ids: [String], _ db: Database) throws -> Set<String> {
        var seen: Set<String> = []
        for start in stride(from: 0, to: ids.count, by: 500) {
            let batch = Array(ids[start..<min(start + 500, ids.count)])
            let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            seen.formUnion(try String.fetchAll(db, sql: "SELECT id FROM request WHERE id IN (\(marks))", arguments: StatementArguments(batch)))
        }
        return seen
    }

    /// The request row of `requestId` if it was seen before, refused when it named a write of another kind than `action`.
    private static func priorRequest(_ requestId: String, action: String, _ db: Database) throws -> Row? {
        guard let request = try Row.fetchOne(db, sql: "SELECT * FROM request WHERE id = ?", arguments: [requestId]) else { return nil }
        let first: String = request["action"]
        guard first == action else { throw RequestReuse.error(requestId, first: first, now: action) }
        return request
    }

    /// The trade an add or edit of `requestId` already answered with, even if it was removed or edited since; nil when
    /// the request is new.
    private static func firstAnswer(_ requestId: String, action: String, _ db: Database) throws -> Trade? {
        guard let request = try priorRequest(requestId, action: action, db) else { return nil }
        if let json: String = request["trade"] { return try Wire.decode(Trade.self, from: Data(json.utf8)) }
        let tradeID: String = request["trade_id"]
        guard let trade = try Row.fetchOne(db, sql: "SELECT * FROM trade WHERE id = ?", arguments: [tradeID]) else {
            throw StoreError.corrupt("request for trade \(tradeID) has no answer stored and the trade is gone")
        }
        return try trade.trade()
    }

    /// Remembers what `requestId` answered.
    private static func remember(_ requestId: String, action: String, answer: Trade?, _ db: Database) throws {
        try db.execute(
            sql: "INSERT INTO request (id, trade_id, trade, action) VALUES (?, ?, ?, ?)",
            arguments: [requestId, answer?.id ?? "", try answer.map { String(decoding: try Wire.encode($0), as: UTF8.self) }, action])
    }

    private static func insert(_ trade: Trade, _ db: Database) throws {
        try db.execute(
            sql: """
            INSERT INTO trade (id, kind, asset, amount, price, currency, fee_amount, fee_currency, date, recorded_at, portfolio)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """,
            arguments: [trade.id, trade.kind.rawValue, trade.asset, trade.amount.description, trade.price.description, trade.currency,
                        trade.fee?.amount.description, trade.fee?.currency, Wire.format(trade.date), Wire.format(trade.recordedAt),
                        trade.portfolio])
    }

    /// The trade as stored (its dates at the wire's milliseconds).
    private static func storedTrade(_ id: String, _ db: Database) throws -> Trade {
        guard let stored = try Row.fetchOne(db, sql: "SELECT * FROM trade WHERE id = ?", arguments: [id]) else {
            throw StoreError.corrupt("trade \(id) vanished while being written")
        }
        return try stored.trade()
    }

    /// Every trade of `assets`.
    private static func trades(of assets: Set<String>, _ db: Database) throws -> [Trade] {
        let marks = Array(repeating: "?", count: assets.count).joined(separator: ", ")
        return try Row.fetchAll(db, sql: "SELECT * FROM trade WHERE asset IN (\(marks))", arguments: StatementArguments(Array(assets)))
            .map { try $0.trade() }
    }

    private static func revise(
        _ id: String, _ action: TradeRevision.Action, by: String, at: Date, requestId: String?, before: Trade?, after: Trade?, _ db: Database
    ) throws {
        func json(_ trade: Trade?) throws -> String? { try trade.map { String(decoding: try Wire.encode($0), as: UTF8.self) } }
        try db.execute(
            sql: "INSERT INTO trade_revision (trade_id, action, by, at, request_id, before, after) VALUES (?, ?, ?, ?, ?, ?, ?)",
            arguments: [id, action.rawValue, by, Wire.format(at), requestId, try json(before), try json(after)])
    }
}

extension Row {
    /// A `trade` row as a ``Trade``; amounts are stored as exact decimal text.
    fileprivate func trade() throws -> Trade {
        let kindText: String = self["kind"]
        guard let kind = ActivityKind(rawValue: kindText) else { throw StoreError.corrupt("kind is not an activity kind: \(kindText)") }
        let feeAmount: String? = self["fee_amount"], feeCurrency: String? = self["fee_currency"]
        return Trade(
            id: self["id"], kind: kind, asset: self["asset"],
            amount: try ExactDecimal(self["amount"] as String), price: try ExactDecimal(self["price"] as String),
            currency: self["currency"],
            fee: try feeAmount.map { CurrencyAmount(amount: try ExactDecimal($0), currency: feeCurrency ?? "") },
            date: try date("date"), recordedAt: try date("recorded_at"), portfolio: self["portfolio"])
    }

    /// A `trade_revision` row as a ``TradeRevision``; its activities are stored as wire JSON.
    fileprivate func revision() throws -> TradeRevision {
        let actionText: String = self["action"]
        guard let action = TradeRevision.Action(rawValue: actionText) else { throw StoreError.corrupt("action is not a revision's: \(actionText)") }
        func trade(_ column: String) throws -> Trade? {
            try (self[column] as String?).map { try Wire.decode(Trade.self, from: Data($0.utf8)) }
        }
        return TradeRevision(
            seq: self["seq"], tradeId: self["trade_id"], action: action, by: self["by"], at: try date("at"),
            requestId: self["request_id"], before: try trade("before"), after: try trade("after"))
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
