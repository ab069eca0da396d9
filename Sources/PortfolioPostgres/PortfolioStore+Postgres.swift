import Bus
import BusContract
import Foundation
import Logging
import Money
import PortfolioEngine
import PostgresNIO
import Synchronization
import TickwireContract

extension PortfolioStore {
    /// A store in the PostgreSQL database `client` reaches, with the SQLite store's rules; its schema is created or
    /// migrated first. `client` must be running (``PostgresClient/run()``) for as long as the store is used.
    ///
    /// Every activity write is one transaction that first takes an advisory lock of its schema, so writes from any
    /// number of replicas on one database follow each other: a retried `requestId` finds its first answer, and the
    /// check sees every committed activity. A database that cannot be reached (down, restarting, gone mid-write) is
    /// ``PostgresStoreError/unavailable(_:)``, -32000: retrying with the same `requestId` is safe.
    /// A request waits at most `leaseTimeout` for a connection (while the database is down, the pool waits for it), a
    /// few times that while other requests hold every connection, and never past its caller's deadline; once it has
    /// one, it may hold it for `requestTimeout` (an import of 100,000 activities takes seconds), after which the
    /// connection is closed (a half-open one would never answer) and the request is unavailable.
    public static func postgres(
        client: PostgresClient, logger: Logger, leaseTimeout: Duration = .milliseconds(1_500), requestTimeout: Duration = .seconds(60)
    ) async throws -> Self {
        let database = PostgresPortfolio(client: client, logger: logger, leaseTimeout: leaseTimeout, requestTimeout: requestTimeout)
        try await database.read { try await PostgresSchema.migrate($0, logger: logger) }
        return Self(
            addTrade: { request, id, now, by, check in
                try await database.write { connection in
                    if let first = try await database.firstAnswer(request.requestId, action: "add", connection) { return first }
                    let trade = Trade(id: id, kind: request.kind, asset: request.asset, amount: request.amount, price: request.price,
                                      currency: request.currency, fee: request.fee, date: request.date, recordedAt: now,
                                      portfolio: request.portfolio ?? Trade.mainPortfolio)
                    try await database.insert(trade, connection)
                    try check(try await database.trades(of: [trade.asset], connection))
                    let stored = try await database.storedTrade(id, connection)
                    try await database.remember(request.requestId, action: "add", answer: stored, connection)
                    try await database.revise(id, .added, by: by, at: now, requestId: request.requestId, before: nil, after: stored, connection)
                    return stored
                }
            },
            editTrade: { request, now, by, check in
                try await database.write { connection in
                    let activity = request.activity
                    if let first = try await database.firstAnswer(activity.requestId, action: "edit", connection) {
                        guard first.id == request.id else { throw RequestReuse.error(activity.requestId, editOf: first.id, now: request.id) }
                        return Written(first, acted: false)
                    }
                    guard let before = try await database.trade(request.id, connection) else {
                        throw RPCError.notFound("no trade with id \(request.id)")
                    }
                    try await connection.run("DELETE FROM trade WHERE id = \(request.id)", logger: database.logger)
                    try await database.insert(Trade(id: request.id, kind: activity.kind, asset: activity.asset, amount: activity.amount,
                                                    price: activity.price, currency: activity.currency, fee: activity.fee, date: activity.date,
                                                    recordedAt: before.recordedAt, portfolio: activity.portfolio ?? before.portfolio), connection)
                    try check(try await database.trades(of: [before.asset, activity.asset], connection))
                    let stored = try await database.storedTrade(request.id, connection)
                    try await database.remember(activity.requestId, action: "edit", answer: stored, connection)
                    try await database.revise(request.id, .edited, by: by, at: now, requestId: activity.requestId, before: before, after: stored, connection)
                    return Written(stored, acted: true)
                }
            },
            removeTrade: { id, requestId, now, by, check in
                try await database.write { connection in
                    if let requestId, try await database.priorRequest(requestId, action: "remove", connection) != nil {
                        return Written(true, acted: false)
                    }
                    guard let before = try await database.trade(id, connection) else { return Written(false, acted: false) }
                    try await connection.run("DELETE FROM trade WHERE id = \(id)", logger: database.logger)
                    try check(try await database.trades(of: [before.asset], connection))
                    if let requestId { try await database.remember(requestId, action: "remove", answer: nil, connection) }
                    try await database.revise(id, .removed, by: by, at: now, requestId: requestId, before: before, after: nil, connection)
                    return Written(true, acted: true)
                }
            },
            trades: {
                try await database.read { connection in
                    try await database.trades(
                        connection.run("SELECT \(unescaped: PostgresPortfolio.tradeColumns) FROM trade ORDER BY date, recorded_at, id",
                                         logger: database.logger))
                }
            },
            tradeHistory: { id in
                try await database.read { connection in
                    let columns = "seq, trade_id, action, changed_by, changed_at, request_id, before_trade, after_trade"
                    let rows = if let id {
                        try await connection.run(
                            "SELECT \(unescaped: columns) FROM trade_revision WHERE trade_id = \(id) ORDER BY seq", logger: database.logger)
                    } else {
                        try await connection.run("SELECT \(unescaped: columns) FROM trade_revision ORDER BY seq", logger: database.logger)
                    }
                    var revisions: [TradeRevision] = []
                    for try await (seq, tradeID, actionText, by, at, requestID, before, after) in rows.decode(
                        (Int, String, String, String, String, String?, String?, String?).self
                    ) {
                        guard let action = TradeRevision.Action(rawValue: actionText) else {
                            throw PostgresStoreError.corrupt("action is not a revision's: \(actionText)")
                        }
                        revisions.append(TradeRevision(
                            seq: seq, tradeId: tradeID, action: action, by: by, at: try PostgresPortfolio.date(at, "changed_at"),
                            requestId: requestID, before: try before.map(PostgresPortfolio.decodeTrade), after: try after.map(PostgresPortfolio.decodeTrade)))
                    }
                    return revisions
                }
            },
            watch: { asset, now in
                try await database.read { connection in
                    let rows = try await connection.run(
                        "INSERT INTO watch (asset, added_at) VALUES (\(asset), \(Wire.format(now))) ON CONFLICT DO NOTHING RETURNING asset",
                        logger: database.logger)
                    return try await rows.collect().count > 0
                }
            },
            unwatch: { asset in
                try await database.read { connection in
                    let rows = try await connection.run("DELETE FROM watch WHERE asset = \(asset) RETURNING asset", logger: database.logger)
                    return try await rows.collect().count > 0
                }
            },
            watchlist: {
                try await database.read { connection in
                    var assets: [String] = []
                    let rows = try await connection.run("SELECT asset FROM watch ORDER BY added_at, asset", logger: database.logger)
                    for try await asset in rows.decode(String.self) { assets.append(asset) }
                    return assets
                }
            },
            savePrices: { prices in
                guard !prices.isEmpty else { return }
                try await database.read { connection in
                    _ = try await connection.run("""
                        INSERT INTO price (asset, currency, price, change_percent_24h, updated_at)
                        SELECT asset, currency, price, NULLIF(change, ''), updated_at
                        FROM unnest(\(prices.map(\.asset))::text[], \(prices.map(\.currency))::text[],
                                    \(prices.map(\.price.description))::text[], \(prices.map { $0.changePercent24h?.description ?? "" })::text[],
                                    \(prices.map { Wire.format($0.updatedAt) })::text[])
                            AS saved (asset, currency, price, change, updated_at)
                        ON CONFLICT (asset, currency) DO UPDATE SET price = excluded.price,
                            change_percent_24h = excluded.change_percent_24h, updated_at = excluded.updated_at
                        """, logger: database.logger)
                }
            },
            prices: {
                try await database.read { connection in
                    var prices: [StoredPrice] = []
                    let rows = try await connection.run(
                        "SELECT asset, currency, price, change_percent_24h, updated_at FROM price ORDER BY asset, currency", logger: database.logger)
                    for try await (asset, currency, price, change, updatedAt) in rows.decode((String, String, String, String?, String).self) {
                        prices.append(StoredPrice(
                            asset: asset, currency: currency, price: try PostgresPortfolio.decimal(price, "price"),
                            changePercent24h: try change.map { try PostgresPortfolio.decimal($0, "change_percent_24h") },
                            updatedAt: try PostgresPortfolio.date(updatedAt, "updated_at")))
                    }
                    return prices
                }
            },
            saveDocument: { key, body in
                try await database.read { connection in
                    _ = try await connection.run(
                        "INSERT INTO document (key, body) VALUES (\(key), \(body)) ON CONFLICT (key) DO UPDATE SET body = excluded.body",
                        logger: database.logger)
                }
            },
            document: { key in
                try await database.read { connection in
                    let rows = try await connection.run("SELECT body FROM document WHERE key = \(key)", logger: database.logger)
                    for try await body in rows.decode(Data.self) { return body }
                    return nil
                }
            },
            seenRequests: { ids in
                try await database.read { connection in Set(try await database.requests(ids, connection).keys) }
            },
            addTrades: { requests, now, by, check in
                try await database.write { connection in
                    let known = try await database.requests(requests.map(\.request.requestId), connection)
                    let at = Wire.format(now)
                    guard let recordedAt = Wire.parseDate(at) else { throw PostgresStoreError.corrupt("the time \(at) does not read back") }
                    var written: [Written<Trade>] = []
                    var added: [(trade: Trade, requestId: String)] = []
                    var fresh: Set<String> = []
                    for (request, id) in requests {
                        if let first = known[request.requestId] {
                            written.append(Written(try PostgresPortfolio.answer(of: request.requestId, first, action: "add"), acted: false))
                            continue
                        }
                        if fresh.contains(request.requestId), let earlier = added.first(where: { $0.requestId == request.requestId }) {
                            written.append(Written(earlier.trade, acted: false))
                            continue
                        }
                        let date = Wire.format(request.date)
                        guard let storedDate = Wire.parseDate(date) else { throw PostgresStoreError.corrupt("the date \(date) does not read back") }
                        let trade = Trade(id: id, kind: request.kind, asset: request.asset, amount: request.amount, price: request.price,
                                          currency: request.currency, fee: request.fee, date: storedDate, recordedAt: recordedAt,
                                          portfolio: request.portfolio ?? Trade.mainPortfolio)
                        added.append((trade, request.requestId))
                        fresh.insert(request.requestId)
                        written.append(Written(trade, acted: true))
                    }
                    try await database.insert(added, by: by, at: at, connection)
                    let assets = Set(added.map(\.trade.asset))
                    if !assets.isEmpty { try check(try await database.trades(of: assets, connection)) }
                    return written
                }
            }
        )
    }
}

extension PortfolioStore {
    /// ``postgres(client:logger:)``, trying again every second while the database cannot be reached, for at most `limit`
    /// (a replica may start before its database does).
    public static func postgres(client: PostgresClient, logger: Logger, waitingUpTo limit: Duration) async throws -> Self {
        let deadline = ContinuousClock.now + limit
        while true {
            do {
                return try await postgres(client: client, logger: logger)
            } catch PostgresStoreError.unavailable(let reason) where ContinuousClock.now < deadline {
                logger.notice("waiting for the portfolio's PostgreSQL database", metadata: ["reason": "\(reason)"])
                try await Task.sleep(for: .seconds(1))
            }
        }
    }
}

/// The PostgreSQL store's queries, over the connections of one client.
struct PostgresPortfolio: Sendable {
    /// The columns of a `trade` row, in the order ``trades(_:)`` reads them.
    static let tradeColumns = "id, kind, asset, amount, price, currency, fee_amount, fee_currency, date, recorded_at, portfolio"
    /// How many rows one statement of a bulk insert carries.
    static let batch = 5_000

    let client: PostgresClient
    let logger: Logger
    /// How long a request waits for a connection, while no other request holds one, before answering that the database
    /// is unavailable.
    let leaseTimeout: Duration
    /// How long a request may hold its connection before it is closed and the request answers -32000.
    let requestTimeout: Duration
    /// How many requests hold a connection now.
    let leases = LeaseCount()

    /// Runs `body` in a transaction holding the schema's write lock, so the writes of every replica follow each other;
    /// the database being unreachable is ``PostgresStoreError/unavailable(_:)``.
    func write<T: Sendable>(_ body: @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        // `body` runs in a child task of ``leased(_:)``, which ends before this returns.
        try await withoutActuallyEscaping(body) { body in
            try await leased { [logger] connection in
                try await connection.locked(PostgresSchema.writeLock, logger: logger) { try await body(connection) }
            }
        }
    }

    /// Runs `body` (one statement, or reads) on a connection; the database being unreachable is
    /// ``PostgresStoreError/unavailable(_:)``.
    func read<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await leased(body)
    }

    /// Runs `body` on a connection of the pool, unless none is had within `leaseTimeout` while no other request holds one
    /// (the pool waits for a database that is down, trying to connect again and again), or within ``waitLimit(_:deadline:now:)``
    /// while others hold them: then ``PostgresStoreError/unavailable(_:)`` at once, so a caller hears it within its own
    /// deadline. Once leased, `body` has `requestTimeout` (``answer(within:closing:logger:_:)``).
    func leased<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        try await available {
            try await withThrowingTaskGroup(of: T?.self) { group in
                let lease = LeaseState()
                group.addTask { [client, leases, requestTimeout, logger] in
                    try await client.withConnection { connection in
                        // The wait ended first and its caller heard -32000: nothing may be done for it now.
                        guard lease.take() else { return nil }
                        leases.taken()
                        defer { leases.released() }
                        return try await Self.answer(within: requestTimeout, closing: connection, logger: logger) { try await body(connection) }
                    }
                }
                group.addTask { [leaseTimeout, leases] in
                    let started = ContinuousClock.now
                    let limit = Self.waitLimit(leaseTimeout, deadline: RPCDeadline.current, now: started)
                    // The first wait ends before the caller's own deadline when it sent one, so it hears -32000, not a timeout.
                    var wait = Self.firstWait(leaseTimeout, deadline: RPCDeadline.current, now: started)
                    // Every connection busy (others' requests running, or waiting for the write lock) is no outage: wait on,
                    // up to the limit.
                    repeat {
                        try await Task.sleep(for: wait)
                        if lease.isTaken { return nil }
                        wait = min(leaseTimeout, limit - .now)
                    } while leases.held > 0 && wait > .zero
                    // The connection may come just now: whichever of the two wins the lease decides.
                    guard lease.timeOut() else { return nil }
                    throw PostgresStoreError.unavailable("no connection within \(Self.milliseconds(ContinuousClock.now - started)) ms")
                }
                while let result = try await group.next() {
                    if let value = result {
                        group.cancelAll()
                        return value
                    }
                }
                throw PostgresStoreError.corrupt("a query ended without an answer")
            }
        }
    }

    /// How long a request first waits for a connection: `leaseTimeout`, or less when the request being served is due
    /// sooner (``RPCDeadline/downstream(of:now:)`` of its deadline), but never under 50 ms.
    static func firstWait(_ leaseTimeout: Duration, deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant = .now) -> Duration {
        guard let deadline else { return leaseTimeout }
        return min(leaseTimeout, max(RPCDeadline.downstream(of: deadline, now: now) - now, .milliseconds(50)))
    }

    /// When a request stops waiting for a connection, however busy the pool: `waits` lease timeouts after `now`, or before
    /// its caller's deadline when that is sooner (``RPCDeadline/downstream(of:now:)``, but at least 50 ms after `now`).
    static func waitLimit(
        _ leaseTimeout: Duration, deadline: ContinuousClock.Instant?, now: ContinuousClock.Instant = .now, waits: Int = 4
    ) -> ContinuousClock.Instant {
        let limit = now + leaseTimeout * waits
        guard let deadline else { return limit }
        return min(limit, max(RPCDeadline.downstream(of: deadline, now: now), now + .milliseconds(50)))
    }

    /// Whole milliseconds of `duration`.
    static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }

    /// `body`'s answer on `connection` if it comes within `limit` and the connection stays open. Past `limit` the
    /// connection is closed (a half-open one would never answer) and the request is ``PostgresStoreError/unavailable(_:)``,
    /// as it is when the connection closes meanwhile; `body` is cancelled (its queries stop waiting: ``PostgresConnection/run(_:logger:)``).
    /// A write cut off is rolled back, unless it was committing.
    static func answer<T: Sendable>(
        within limit: Duration, closing connection: PostgresConnection, logger: Logger, _ body: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask(operation: body)
            group.addTask {
                let due = ContinuousClock.now + limit
                while ContinuousClock.now < due {
                    try await Task.sleep(for: min(closedCheck, due - .now))
                    if connection.isClosed { throw PostgresStoreError.unavailable("the connection was closed: the database went away") }
                }
                return nil
            }
            defer { group.cancelAll() }
            guard let first = try await group.next(), let value = first else {
                logger.warning("a PostgreSQL request had no answer in time: its connection is closed", metadata: ["limit": "\(limit)"])
                try? await connection.close()
                throw PostgresStoreError.unavailable("no answer within \(limit): the connection was closed")
            }
            return value
        }
    }

    /// How often a request's connection is looked at while it is leased, to notice one the server closed.
    static let closedCheck = Duration.milliseconds(200)

    /// `task`'s value, or ``CancellationError`` as soon as the waiting task is cancelled (`task` is not waited for then).
    static func value<T: Sendable>(of task: Task<T, any Error>) async throws -> T {
        let answer = FirstAnswer<T>()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.wait(continuation)
                Task { answer.give(await task.result) }
            }
        } onCancel: {
            answer.give(.failure(CancellationError()))
        }
    }

    /// Runs `body`, turning the errors of a database that cannot be reached into ``PostgresStoreError/unavailable(_:)``
    /// and its other errors into ``PostgresStoreError/refused(_:)`` (both logged and counted); the request's own errors
    /// pass through.
    func available<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            let reason: String
            if case PostgresStoreError.unavailable(let why) = error {
                reason = why
            } else if let why = PostgresStoreError.unavailability(error) {
                reason = why
            } else if let refusal = PostgresStoreError.refusal(error) {
                logger.error("the portfolio's PostgreSQL database refused a request", metadata: ["reason": "\(refusal.reason)"])
                PostgresStoreError.countRefusal(refusal.kind)
                throw PostgresStoreError.refused(refusal.reason)
            } else {
                throw error
            }
            logger.warning("the portfolio's PostgreSQL database is unavailable", metadata: ["reason": "\(reason)"])
            PostgresStoreError.counter.increment()
            throw PostgresStoreError.unavailable(reason)
        }
    }

    /// The request row of `requestId` if it was seen before, refused when it named a write of another kind than `action`.
    func priorRequest(_ requestId: String, action: String, _ connection: PostgresConnection) async throws -> StoredRequest? {
        guard let request = try await requests([requestId], connection)[requestId] else { return nil }
        guard request.action == action else { throw RequestReuse.error(requestId, first: request.action, now: action) }
        return request
    }

    /// The trade an add or edit of `requestId` already answered with, even if it was removed or edited since; nil when
    /// the request is new.
    func firstAnswer(_ requestId: String, action: String, _ connection: PostgresConnection) async throws -> Trade? {
        guard let request = try await priorRequest(requestId, action: action, connection) else { return nil }
        return try Self.answer(of: requestId, request, action: action)
    }

    /// The trade `request` (of `requestId`) answered, refused when it named a write of another kind than `action`.
    static func answer(of requestId: String, _ request: StoredRequest, action: String) throws -> Trade {
        guard request.action == action else { throw RequestReuse.error(requestId, first: request.action, now: action) }
        guard let json = request.trade else { throw PostgresStoreError.corrupt("request \(requestId) has no answer stored") }
        return try decodeTrade(json)
    }

    /// The stored requests among `ids`, by id.
    func requests(_ ids: [String], _ connection: PostgresConnection) async throws -> [String: StoredRequest] {
        var found: [String: StoredRequest] = [:]
        guard !ids.isEmpty else { return found }
        let rows = try await connection.run("SELECT id, action, trade FROM request WHERE id = ANY(\(ids))", logger: logger)
        for try await (id, action, trade) in rows.decode((String, String, String?).self) {
            found[id] = StoredRequest(action: action, trade: trade)
        }
        return found
    }

    /// Remembers what `requestId` answered.
    func remember(_ requestId: String, action: String, answer: Trade?, _ connection: PostgresConnection) async throws {
        let json = try answer.map(Self.encode)
        try await connection.run(
            "INSERT INTO request (id, action, trade_id, trade) VALUES (\(requestId), \(action), \(answer?.id ?? ""), \(json))", logger: logger)
    }

    func insert(_ trade: Trade, _ connection: PostgresConnection) async throws {
        try await connection.run("""
            INSERT INTO trade (\(unescaped: Self.tradeColumns))
            VALUES (\(trade.id), \(trade.kind.rawValue), \(trade.asset), \(trade.amount.description), \(trade.price.description),
                    \(trade.currency), \(trade.fee?.amount.description), \(trade.fee?.currency), \(Wire.format(trade.date)),
                    \(Wire.format(trade.recordedAt)), \(trade.portfolio))
            """, logger: logger)
    }

    /// Inserts `added` with their requests and `added` revisions, a batch of rows a statement.
    func insert(_ added: [(trade: Trade, requestId: String)], by: String, at: String, _ connection: PostgresConnection) async throws {
        for start in stride(from: 0, to: added.count, by: Self.batch) {
            let rows = added[start..<min(start + Self.batch, added.count)]
            let trades = rows.map(\.trade)
            let json = try trades.map(Self.encode)
            try await connection.run("""
                INSERT INTO trade (\(unescaped: Self.tradeColumns))
                SELECT id, kind, asset, amount, price, currency, NULLIF(fee_amount, ''), NULLIF(fee_currency, ''), date, recorded_at, portfolio
                FROM unnest(\(trades.map(\.id))::text[], \(trades.map(\.kind.rawValue))::text[], \(trades.map(\.asset))::text[],
                            \(trades.map(\.amount.description))::text[], \(trades.map(\.price.description))::text[],
                            \(trades.map(\.currency))::text[], \(trades.map { $0.fee?.amount.description ?? "" })::text[],
                            \(trades.map { $0.fee?.currency ?? "" })::text[], \(trades.map { Wire.format($0.date) })::text[],
                            \(trades.map { Wire.format($0.recordedAt) })::text[], \(trades.map(\.portfolio))::text[])
                    AS added (id, kind, asset, amount, price, currency, fee_amount, fee_currency, date, recorded_at, portfolio)
                """, logger: logger)
            try await connection.run("""
                INSERT INTO request (id, action, trade_id, trade)
                SELECT id, 'add', trade_id, trade FROM unnest(\(rows.map(\.requestId))::text[], \(trades.map(\.id))::text[], \(json)::text[])
                    AS added (id, trade_id, trade)
                """, logger: logger)
            try await connection.run("""
                INSERT INTO trade_revision (trade_id, action, changed_by, changed_at, request_id, before_trade, after_trade)
                SELECT trade_id, 'added', \(by), \(at), request_id, NULL, after_trade
                FROM unnest(\(trades.map(\.id))::text[], \(rows.map(\.requestId))::text[], \(json)::text[]) WITH ORDINALITY
                    AS added (trade_id, request_id, after_trade, n)
                ORDER BY n
                """, logger: logger)
        }
    }

    func revise(
        _ id: String, _ action: TradeRevision.Action, by: String, at: Date, requestId: String?, before: Trade?, after: Trade?,
        _ connection: PostgresConnection
    ) async throws {
        try await connection.run("""
            INSERT INTO trade_revision (trade_id, action, changed_by, changed_at, request_id, before_trade, after_trade)
            VALUES (\(id), \(action.rawValue), \(by), \(Wire.format(at)), \(requestId), \(try before.map(Self.encode)), \(try after.map(Self.encode)))
            """, logger: logger)
    }

    /// Activity `id`, if there is one.
    func trade(_ id: String, _ connection: PostgresConnection) async throws -> Trade? {
        try await trades(connection.run("SELECT \(unescaped: Self.tradeColumns) FROM trade WHERE id = \(id)", logger: logger)).first
    }

    /// The trade as stored (its dates at the wire's milliseconds).
    func storedTrade(_ id: String, _ connection: PostgresConnection) async throws -> Trade {
        guard let stored = try await trade(id, connection) else { throw PostgresStoreError.corrupt("trade \(id) vanished while being written") }
        return stored
    }

    /// Every activity of `assets`.
    func trades(of assets: Set<String>, _ connection: PostgresConnection) async throws -> [Trade] {
        try await trades(connection.run(
            "SELECT \(unescaped: Self.tradeColumns) FROM trade WHERE asset = ANY(\(Array(assets)))", logger: logger))
    }

    /// `trade` rows as ``Trade``s; amounts are stored as exact decimal text.
    func trades(_ rows: PostgresRowSequence) async throws -> [Trade] {
        var trades: [Trade] = []
        for try await (id, kindText, asset, amount, price, currency, feeAmount, feeCurrency, date, recordedAt, portfolio) in rows.decode(
            (String, String, String, String, String, String, String?, String?, String, String, String).self
        ) {
            guard let kind = ActivityKind(rawValue: kindText) else { throw PostgresStoreError.corrupt("kind is not an activity kind: \(kindText)") }
            trades.append(Trade(
                id: id, kind: kind, asset: asset, amount: try Self.decimal(amount, "amount"), price: try Self.decimal(price, "price"),
                currency: currency,
                fee: try feeAmount.map { CurrencyAmount(amount: try Self.decimal($0, "fee_amount"), currency: feeCurrency ?? "") },
                date: try Self.date(date, "date"), recordedAt: try Self.date(recordedAt, "recorded_at"), portfolio: portfolio))
        }
        return trades
    }

    static func encode(_ trade: Trade) throws -> String { String(decoding: try Wire.encode(trade), as: UTF8.self) }

    static func decodeTrade(_ json: String) throws -> Trade { try Wire.decode(Trade.self, from: Data(json.utf8)) }

    /// A column holding exact decimal text.
    static func decimal(_ text: String, _ column: String) throws -> ExactDecimal {
        do {
            return try ExactDecimal(text)
        } catch {
            throw PostgresStoreError.corrupt("\(column) is not a decimal: \(text)")
        }
    }

    /// A column holding a wire-format date.
    static func date(_ text: String, _ column: String) throws -> Date {
        guard let date = Wire.parseDate(text) else { throw PostgresStoreError.corrupt("\(column) is not a date: \(text)") }
        return date
    }
}

/// How many requests hold a connection.
final class LeaseCount: Sendable {
    private let count = Atomic(0)

    func taken() { count.add(1, ordering: .relaxed) }
    func released() { count.subtract(1, ordering: .relaxed) }
    var held: Int { count.load(ordering: .relaxed) }
}

/// Whether a request got its connection or gave up waiting for it: one or the other, never both, so a request that
/// answered -32000 for want of a connection never writes when its connection comes after all.
final class LeaseState: Sendable {
    enum State: UInt8, AtomicRepresentable {
        case pending, taken, timedOut
    }

    private let state = Atomic(State.pending)

    /// Takes the connection unless the wait timed out first; whether the request's body may run.
    func take() -> Bool { state.compareExchange(expected: .pending, desired: .taken, ordering: .acquiringAndReleasing).exchanged }
    /// Ends the wait unless the connection was taken first; whether the request may answer that there is none.
    func timeOut() -> Bool { state.compareExchange(expected: .pending, desired: .timedOut, ordering: .acquiringAndReleasing).exchanged }
    var isTaken: Bool { state.load(ordering: .acquiring) == .taken }
}

/// The first of several answers to one waiting continuation; later ones are dropped.
final class FirstAnswer<T: Sendable>: Sendable {
    private enum State {
        case empty
        case waiting(CheckedContinuation<T, any Error>)
        case answered(Result<T, any Error>)
        case done
    }

    private let state = Mutex(State.empty)

    /// Resumes `continuation` with the answer given, at once if it came already.
    func wait(_ continuation: CheckedContinuation<T, any Error>) {
        let early: Result<T, any Error>? = state.withLock { state in
            guard case .answered(let result) = state else {
                state = .waiting(continuation)
                return nil
            }
            state = .done
            return result
        }
        if let early { continuation.resume(with: early) }
    }

    /// Gives `result`, unless an answer was given before.
    func give(_ result: Result<T, any Error>) {
        let waiting: CheckedContinuation<T, any Error>? = state.withLock { state in
            switch state {
            case .empty:
                state = .answered(result)
                return nil
            case .waiting(let continuation):
                state = .done
                return continuation
            case .answered, .done:
                return nil
            }
        }
        waiting?.resume(with: result)
    }
}

/// A stored request: the write it named and, for an add or edit, the activity it answered (wire JSON).
struct StoredRequest: Sendable {
    var action: String
    var trade: String?
}

extension PostgresConnection {
    /// Runs `body` in a transaction that first takes the advisory lock `lockClass` of the connection's schema (held until
    /// the transaction ends): committed when `body` returns, rolled back when it throws.
    nonisolated(nonsending) func locked<T>(_ lockClass: Int32, logger: Logger, _ body: () async throws -> T) async throws -> T {
        try await run("BEGIN", logger: logger)
        do {
            try await run("SELECT pg_advisory_xact_lock(\(lockClass), hashtext(current_schema()))", logger: logger)
            let value = try await body()
            try await run("COMMIT", logger: logger)
            return value
        } catch {
            _ = try? await run("ROLLBACK", logger: logger)
            throw error
        }
    }

    /// Runs `query`, unless the connection was closed (the server went away while it was leased): postgres-nio's query
    /// would then wait for ever (its request is written to a closed channel, and no one answers it). The wait for its
    /// answer ends when the calling task is cancelled (``PostgresPortfolio/answer(within:closing:logger:_:)`` cancels it
    /// when the connection closes or times out), even if postgres-nio's never does; the connection is then closed, so
    /// no later request on it can take that query's answer, or its open transaction, for its own.
    @discardableResult
    func run(_ query: PostgresQuery, logger: Logger) async throws -> PostgresRowSequence {
        guard !isClosed else { throw PostgresStoreError.unavailable("the connection was closed: the database went away") }
        let sent = Task { try await self.query(query, logger: logger) }
        do {
            return try await PostgresPortfolio.value(of: sent)
        } catch is CancellationError {
            let closing: EventLoopFuture<Void> = close()
            closing.whenFailure { logger.debug("closing a connection left with a query failed", metadata: ["error": "\($0)"]) }
            throw CancellationError()
        }
    }
}
