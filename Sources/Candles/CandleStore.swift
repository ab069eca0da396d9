import Foundation
import GRDB
import Market
import Money
import TickwireContract

/// Closed candles, kept in SQLite within a retention per interval, read back by market, interval and span.
public struct CandleStore: Sendable {
    /// Stores closed candles (a candle stored again replaces the first) and deletes those of the same feed, market and
    /// interval older than the retention allows, counted back from the newest of them stored now (so a replay of an old
    /// capture keeps its candles); returns how many were deleted.
    public var save: @Sendable (_ candles: [Candle]) async throws -> Int
    /// A market's candles of one interval whose start is in the span, oldest first; nil when the store has no candle of
    /// that market and interval (of that feed, when one is named). Throws ``CandleStoreError`` for a span of more than
    /// ``maxCandles``.
    public var candles: @Sendable (_ query: CandleQuery) async throws -> CandleSeries?

    /// At most this many candles are answered at once.
    public static let maxCandles = 10_000

    /// A store of the two closures.
    public init(
        save: @escaping @Sendable (_ candles: [Candle]) async throws -> Int,
        candles: @escaping @Sendable (_ query: CandleQuery) async throws -> CandleSeries?
    ) {
        self.save = save
        self.candles = candles
    }
}

/// Which candles to read: a market's, of one interval, of one feed or else the feed with most of them in the span,
/// whose start is from `start` to `end` (both inclusive; nil: without bound).
public struct CandleQuery: Sendable, Equatable {
    /// The market.
    public var market: MarketPair
    /// The interval.
    public var interval: CandleInterval
    /// The feed; nil: the one with the most candles in the span (then the most overall, then the first by name).
    public var source: String?
    /// The earliest start wanted.
    public var start: Date?
    /// The latest start wanted.
    public var end: Date?

    /// A query.
    public init(market: MarketPair, interval: CandleInterval, source: String? = nil, start: Date? = nil, end: Date? = nil) {
        self.market = market
        self.interval = interval
        self.source = source
        self.start = start
        self.end = end
    }
}

/// A store's refusal, or a stored row it cannot read.
public struct CandleStoreError: Error, Equatable, CustomStringConvertible {
    /// What went wrong.
    public var description: String

    /// An error saying `description`.
    public init(_ description: String) {
        self.description = description
    }
}

extension CandleStore {
    /// A store in the SQLite file at `path` (made with its folder if missing; WAL), keeping candles within `retention`.
    public static func sqlite(path: String, retention: CandleRetention = .standard) throws -> Self {
        try FileManager.default.createDirectory(
            at: URL(fileURLWithPath: path).deletingLastPathComponent(), withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(5)
        return try database(DatabasePool(path: path, configuration: configuration), retention: retention)
    }

    /// A store in memory: for tests, demos and mocks.
    public static func inMemory(retention: CandleRetention = .standard) throws -> Self {
        try database(DatabaseQueue(), retention: retention)
    }

    /// A store whose every call throws, naming itself: for tests that must not reach it.
    public static let failing = Self(
        save: { _ in throw CandleStoreError("CandleStore.save is not available here (failing)") },
        candles: { _ in throw CandleStoreError("CandleStore.candles is not available here (failing)") })

    private static func database(_ database: any DatabaseWriter, retention: CandleRetention) throws -> Self {
        try migrator.migrate(database)
        return Self(
            save: { candles in
                try await database.write { db in
                    for candle in candles {
                        try db.execute(sql: """
                            INSERT OR REPLACE INTO candle (market, interval, source, start, open, high, low, close, volume, count)
                            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                            """, arguments: [
                                candle.market.symbol, candle.interval.rawValue, candle.source, seconds(candle.start),
                                candle.open.description, candle.high.description, candle.low.description, candle.close.description,
                                candle.volume.description, candle.count,
                            ])
                    }
                    var newest: [Series: Int64] = [:]
                    for candle in candles where retention.seconds(candle.interval) != nil {
                        let series = Series(market: candle.market.symbol, interval: candle.interval, source: candle.source)
                        newest[series] = max(newest[series] ?? .min, seconds(candle.start))
                    }
                    var deleted = 0
                    for (series, start) in newest {
                        guard let kept = retention.seconds(series.interval) else { continue }
                        try db.execute(
                            sql: "DELETE FROM candle WHERE market = ? AND interval = ? AND source = ? AND start < ?",
                            arguments: [series.market, series.interval.rawValue, series.source, start - kept])
                        deleted += db.changesCount
                    }
                    return deleted
                }
            },
            candles: { query in
                try await database.read { db in try read(query, db) }
            })
    }

    private static func read(_ query: CandleQuery, _ db: Database) throws -> CandleSeries? {
        let low = query.start.map(seconds) ?? Int64.min, high = query.end.map(seconds) ?? Int64.max
        let market = query.market.symbol, interval = query.interval.rawValue
        let source: String
        if let named = query.source {
            guard try Bool.fetchOne(db, sql: """
                SELECT EXISTS (SELECT 1 FROM candle WHERE market = ? AND interval = ? AND source = ?)
                """, arguments: [market, interval, named]) == true else { return nil }
            source = named
        } else {
            let inSpan = try String.fetchOne(db, sql: """
                SELECT source FROM candle WHERE market = ? AND interval = ? AND start BETWEEN ? AND ?
                GROUP BY source ORDER BY COUNT(*) DESC, source LIMIT 1
                """, arguments: [market, interval, low, high])
            let overall = try inSpan ?? String.fetchOne(db, sql: """
                SELECT source FROM candle WHERE market = ? AND interval = ? GROUP BY source ORDER BY COUNT(*) DESC, source LIMIT 1
                """, arguments: [market, interval])
            guard let overall else { return nil }
            source = overall
        }
        let rows = try Row.fetchAll(db, sql: """
            SELECT start, open, high, low, close, volume, count FROM candle
            WHERE market = ? AND interval = ? AND source = ? AND start BETWEEN ? AND ? ORDER BY start LIMIT ?
            """, arguments: [market, interval, source, low, high, maxCandles + 1])
        guard rows.count <= maxCandles else {
            throw CandleStoreError("the span holds more than \(maxCandles) candles of \(market) \(interval); ask for a shorter span or a longer interval")
        }
        return CandleSeries(source: source, market: query.market, interval: query.interval, candles: try rows.map { row in
            Candle(
                source: source, market: query.market, interval: query.interval,
                start: Date(timeIntervalSince1970: TimeInterval(row["start"] as Int64)),
                open: try decimal(row, "open"), high: try decimal(row, "high"), low: try decimal(row, "low"),
                close: try decimal(row, "close"), volume: try decimal(row, "volume"), count: row["count"])
        })
    }

    /// One feed's candles of one market and interval: what a retention is counted in.
    private struct Series: Hashable {
        var market: String
        var interval: CandleInterval
        var source: String
    }

    private static func decimal(_ row: Row, _ column: String) throws -> ExactDecimal {
        let text: String = row[column]
        do {
            return try ExactDecimal(text)
        } catch {
            throw CandleStoreError("stored candle's \(column) is not a decimal: \"\(text)\"")
        }
    }

    private static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    /// The schema, one migration per change.
    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1: candles") { db in
            try db.execute(sql: """
                CREATE TABLE candle (
                    market TEXT NOT NULL, interval TEXT NOT NULL, source TEXT NOT NULL, start INTEGER NOT NULL,
                    open TEXT NOT NULL, high TEXT NOT NULL, low TEXT NOT NULL, close TEXT NOT NULL, volume TEXT NOT NULL,
                    count INTEGER NOT NULL,
                    PRIMARY KEY (market, interval, source, start)) WITHOUT ROWID;
                CREATE INDEX candle_by_age ON candle (interval, start);
                """)
        }
        return migrator
    }
}
