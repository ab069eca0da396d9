import Foundation
import Logging
import Market
import Metrics
import ServiceLifecycle
import TickwireContract
import TickwireFeeds

/// How an exchange feed reconnects and re-synchronises.
public struct ExchangeFeedSettings: Sendable {
    /// Levels of each side published in `book.<feed>.<M>`.
    public var depth: Int
    /// Waits between reconnections.
    public var backoff: Backoff
    /// Shortest time between two REST snapshots of one book (Bitso allows 60 public calls a minute).
    public var resyncInterval: Duration
    /// A connection with no message for this long is taken as dead and opened again (Bitso's keep-alive comes every
    /// 20 s, Kraken's heartbeat every second).
    public var silenceTimeout: Duration
    /// The clock.
    public var now: @Sendable () -> Date
    /// Sleeps, or throws when cancelled.
    public var sleep: @Sendable (Duration) async throws -> Void

    /// Settings; tests pass milliseconds.
    public init(
        depth: Int = 10, backoff: Backoff = Backoff(), resyncInterval: Duration = .seconds(2), silenceTimeout: Duration = .seconds(60),
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.depth = depth
        self.backoff = backoff
        self.resyncInterval = resyncInterval
        self.silenceTimeout = silenceTimeout
        self.now = now
        self.sleep = sleep
    }
}

/// An exchange's websocket feed as a plugin: it connects, subscribes, keeps each market's book from the exchange's
/// snapshot and diffs, and publishes `book.<feed>.<M>` (top `depth` levels with the exchange's sequence),
/// `trade.<feed>.<M>` and `quote.<feed>.<M>` into a ``FeedSink``, and `status.<feed>` with its counts. A dropped
/// connection is opened again after a ``Backoff``; a gap or a checksum mismatch re-synchronises the book. Each such
/// event is logged, counted (`tickwire_exchange_errors_total{feed,reason}`, `tickwire_exchange_reconnects_total{feed}`,
/// `tickwire_exchange_resyncs_total{feed}`) and reported in the status, and the feed keeps running.
public final class ExchangeFeed: Service, Sendable {
    /// The feed's name (the sink's).
    public let name: String
    private let runner: any FeedRunning

    private init(runner: some FeedRunning, name: String) {
        self.runner = runner
        self.name = name
    }

    /// Bitso's `diff-orders` and `trades` of `markets` through `client`.
    public static func bitso(
        client: BitsoStreamClient, sink: FeedSink, markets: [MarketPair], settings: ExchangeFeedSettings = .init(), logger: Logger
    ) throws -> ExchangeFeed {
        let engine = try BitsoEngine(client: client, feed: sink.name, markets: markets, depth: settings.depth)
        return ExchangeFeed(runner: EngineRunner(engine: engine, connect: client.connect, sink: sink, settings: settings, logger: logger), name: sink.name)
    }

    /// Kraken v2's `book`, `trade` and `ticker` of `markets` through `client`.
    public static func kraken(
        client: KrakenStreamClient, sink: FeedSink, markets: [MarketPair], settings: ExchangeFeedSettings = .init(), logger: Logger
    ) throws -> ExchangeFeed {
        let engine = try KrakenEngine(feed: sink.name, markets: markets, depth: settings.depth)
        return ExchangeFeed(runner: EngineRunner(engine: engine, connect: client.connect, sink: sink, settings: settings, logger: logger), name: sink.name)
    }

    /// Runs until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.runner.run() }
    }

    /// What the feed has counted so far.
    public var counters: ExchangeCounters {
        get async { await runner.counters }
    }

    /// The feed's status now.
    public var status: FeedStatus {
        get async { await runner.status }
    }
}

protocol FeedRunning: Actor {
    func run() async
    var counters: ExchangeCounters { get }
    var status: FeedStatus { get }
}

/// Runs one engine over connection after connection.
actor EngineRunner<Engine: ExchangeEngine>: FeedRunning {
    private var engine: Engine
    private let connect: @Sendable () -> WebSocketConnection
    private let sink: FeedSink
    private let settings: ExchangeFeedSettings
    private let logger: Logger
    private(set) var counters = ExchangeCounters()
    private(set) var status: FeedStatus
    private var published: FeedStatus?
    private var lastSnapshot: [MarketPair: ContinuousClock.Instant] = [:]
    private var lastReceived = ContinuousClock.now
    private let reconnectCounter: Counter
    private let resyncCounter: Counter

    init(engine: Engine, connect: @escaping @Sendable () -> WebSocketConnection, sink: FeedSink, settings: ExchangeFeedSettings, logger: Logger) {
        self.engine = engine
        self.connect = connect
        self.sink = sink
        self.settings = settings
        self.logger = logger
        status = FeedStatus(feed: sink.name, state: .stale, message: "connecting")
        reconnectCounter = Counter(label: "tickwire_exchange_reconnects_total", dimensions: [("feed", sink.name)])
        resyncCounter = Counter(label: "tickwire_exchange_resyncs_total", dimensions: [("feed", sink.name)])
    }

    func run() async {
        var attempt = 0
        while !Task.isCancelled {
            if attempt > 0 {
                counters.reconnects += 1
                reconnectCounter.increment()
                logger.info("reconnecting", metadata: ["feed": "\(sink.name)", "attempt": "\(attempt)"])
            }
            let connection = connect()
            let opened = settings.now()
            var received = false
            lastReceived = ContinuousClock.now
            let watchdog = Task { await self.closeWhenSilent(connection) }
            await handle(engine.connected(), connection, initial: true)
            do {
                for try await text in connection.messages {
                    lastReceived = ContinuousClock.now
                    if !received {
                        received = true
                        attempt = 0
                    }
                    await handle(engine.receive(text, at: settings.now()), connection)
                    markOK()
                }
                if Task.isCancelled { break }
                count(ExchangeEvent(.disconnected, isSilent ? "no message for \(settings.silenceTimeout)" : "the exchange closed the connection"))
            } catch {
                if Task.isCancelled { break }
                if isSilent {
                    count(ExchangeEvent(.disconnected, "no message for \(settings.silenceTimeout)"))
                } else {
                    count(ExchangeEvent(received ? .disconnected : .connectFailed, String(describing: error)))
                }
            }
            watchdog.cancel()
            connection.close()
            status = FeedStatus(feed: sink.name, state: .error, message: counters.summary, lastSuccess: status.lastSuccess, lastAttempt: opened)
            publishStatus()
            attempt += 1
            do {
                try await settings.sleep(settings.backoff.delay(attempt: attempt))
            } catch {
                break
            }
        }
    }

    /// Whether the connection has been silent for the silence timeout.
    private var isSilent: Bool { ContinuousClock.now - lastReceived >= settings.silenceTimeout }

    /// Closes `connection` once no message came for the silence timeout (a half-open socket sends nothing, not even
    /// an error); returns when cancelled.
    private func closeWhenSilent(_ connection: WebSocketConnection) async {
        while !Task.isCancelled {
            let deadline = lastReceived + settings.silenceTimeout
            if isSilent {
                connection.close()
                return
            }
            do {
                try await Task.sleep(until: deadline)
            } catch {
                return
            }
        }
    }

    /// Publishes, sends, counts, and fetches the snapshots `output` asks for (at most one per book per resync interval).
    private func handle(_ output: ExchangeOutput, _ connection: WebSocketConnection, initial: Bool = false) async {
        for publication in output.publications {
            do {
                _ = try sink.publish(publication)
            } catch {
                logger.error("could not publish", metadata: ["feed": "\(sink.name)", "topic": "\(publication.topic.rawValue)", "error": "\(error)"])
            }
        }
        for text in output.send {
            do {
                try await connection.send(text)
            } catch {
                logger.error("could not send", metadata: ["feed": "\(sink.name)", "error": "\(error)"])
            }
        }
        for event in output.events { count(event) }
        if output.resyncs > 0 { resynced(output.resyncs) }
        var seen: Set<MarketPair> = []
        for market in output.snapshots where seen.insert(market).inserted {
            let now = ContinuousClock.now
            if let last = lastSnapshot[market], now - last < settings.resyncInterval, !initial { continue }
            lastSnapshot[market] = now
            if !initial { resynced(1) }
            do {
                let snapshot = try await engine.fetchSnapshot(of: market)
                await handle(engine.load(snapshot, of: market, at: settings.now()), connection)
            } catch {
                count(ExchangeEvent(.snapshotFailed, "\(market): \(error)"))
            }
        }
        if !output.events.isEmpty || output.resyncs > 0 || !output.snapshots.isEmpty { refreshStatus() }
    }

    private func resynced(_ count: Int) {
        counters.resyncs += count
        resyncCounter.increment(by: Int64(count))
    }

    private func count(_ event: ExchangeEvent) {
        counters.count(event)
        Counter(label: "tickwire_exchange_errors_total", dimensions: [("feed", sink.name), ("reason", event.reason.rawValue)]).increment()
        logger.warning("exchange stream event", metadata: ["feed": "\(sink.name)", "reason": "\(event.reason.rawValue)", "detail": "\(event.message)"])
        refreshStatus()
    }

    /// Data arrived: the feed is ok.
    private func markOK() {
        guard status.state != .ok else { return }
        let now = settings.now()
        status = FeedStatus(feed: sink.name, state: .ok, message: counters.summary, lastSuccess: now, lastAttempt: now)
        publishStatus()
    }

    private func refreshStatus() {
        status.message = counters.summary
        publishStatus()
    }

    private func publishStatus() {
        guard published != status else { return }
        do {
            _ = try sink.publish(FeedPublication(status, on: try Topics.status(feed: sink.name)))
            published = status
        } catch {
            logger.error("could not publish status", metadata: ["feed": "\(sink.name)", "error": "\(error)"])
        }
    }
}
