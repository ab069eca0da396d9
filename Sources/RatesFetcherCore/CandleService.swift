import Bus
import BusContract
import Candles
import Foundation
import Logging
import Market
import Metrics
import ServiceLifecycle
import TickwireContract
import ZeroMQ

/// The hub's candles: a SUB socket on the hub's own stream (an `inproc://` endpoint its publisher also binds) follows
/// every `trade.*` and `quote.*` it publishes, built-in feeds' and plugins' alike, so the ingest thread does no more
/// than publish. The socket's own thread receives into a bounded queue (``queueLimit`` messages; past it the newest are
/// dropped and counted in `tickwire_candles_dropped_total`); ``run()`` takes them in batches, builds 1m, 5m, 1h and 1d
/// candles (``CandleBuilder``), and each second closes the candles whose end has passed. A closed candle is published
/// on `candle.<interval>.<feed>.<BASE>-<QUOTE>` and stored (``CandleStore``), which answers `candles`.
///
/// Counts: `tickwire_candles_closed_total{interval}`, `tickwire_candles_refused_total{reason}` (late, invalid, ...),
/// `tickwire_candles_dropped_total` and `tickwire_candles_store_errors_total`.
public final class CandleService: Service, Sendable {
    /// The endpoint followed.
    public let endpoint: String
    /// How many received messages may wait.
    public let queueLimit: Int
    private let socket: OwnedSocket
    private let publisher: Publisher
    private let store: CandleStore
    private let builder: CandleBuilder
    private let tickInterval: Duration
    private let clock: @Sendable () -> Date
    private let logger: Logger

    /// An `inproc://` endpoint of the hub's stream for its candles, unique to `publisher`'s run.
    public static func endpoint(for instance: String) -> String { "inproc://rates-fetcher-candles-\(instance)" }

    /// Follows `endpoint` (the hub's stream, bound by `publisher`) in `context`, publishing closed candles on
    /// `publisher` and storing them in `store`; `builder` sets the intervals and close delay, `clock` the ticks' time.
    public init(
        following endpoint: String, context: ZMQContext, publisher: Publisher, store: CandleStore,
        builder: CandleBuilder = CandleBuilder(closeDelay: CandleBuilder.hubCloseDelay), queueLimit: Int = 100_000, tickInterval: Duration = .seconds(1),
        clock: @escaping @Sendable () -> Date = { Date() }, logger: Logger
    ) throws {
        self.endpoint = endpoint
        self.queueLimit = queueLimit
        self.publisher = publisher
        self.store = store
        self.builder = builder
        self.tickInterval = tickInterval
        self.clock = clock
        self.logger = logger
        socket = try OwnedSocket(context: context, type: .sub, name: "rates-fetcher-candles", receiveBuffer: queueLimit) { socket in
            try socket.set(.receiveHighWaterMark, 100_000)
            try socket.subscribe(RatesFetcherAPI.trades.kind + ".")
            try socket.subscribe(RatesFetcherAPI.quotes.kind + ".")
            try socket.connect(endpoint)
        }
    }

    /// Messages dropped because ``queueLimit`` were waiting.
    public var dropped: Int { socket.droppedReceives }

    /// Builds, publishes and stores candles until graceful shutdown, then closes the socket.
    public func run() async {
        await cancelWhenGracefulShutdown { await self.follow() }
        await socket.close()
    }

    /// Takes the received messages in batches until the socket closes or the task is cancelled; ticks once a
    /// ``tickInterval`` (the socket's thread wakes the reader then, with no timer task).
    private func follow() async {
        var builder = self.builder
        var droppedSoFar = 0
        let droppedCounter = Counter(label: "tickwire_candles_dropped_total")
        var nextTick = ContinuousClock.now + tickInterval
        socket.incoming.wake(at: nextTick)
        while !Task.isCancelled, let batch = await socket.incoming.nextBatch() {
            var closed: [Candle] = []
            let received = clock()
            for frames in batch { closed += add(frames, received: received, to: &builder) }
            if ContinuousClock.now >= nextTick {
                closed += builder.tick(now: clock())
                nextTick = ContinuousClock.now + tickInterval
                socket.incoming.wake(at: nextTick)
            }
            let dropped = socket.droppedReceives
            if dropped > droppedSoFar {
                droppedCounter.increment(by: dropped - droppedSoFar)
                logger.warning("candles fell behind the hub's stream: messages dropped", metadata: ["dropped": "\(dropped)"])
                droppedSoFar = dropped
            }
            if !closed.isEmpty { await publishAndStore(closed) }
        }
    }

    /// Closes the socket without waiting for shutdown (tests and error paths).
    public func close() async { await socket.close() }

    /// Adds one message of the hub's stream, received at `received` on the ticks' clock; returns the candles it closed.
    private func add(_ frames: [Data], received: Date, to builder: inout CandleBuilder) -> [Candle] {
        let update: CandleUpdate
        do {
            let message = try BusMessage(frames: frames)
            if message.isRetraction { return [] }
            if let trade = try message.decode(RatesFetcherAPI.trades) {
                update = builder.add(trade.data, received: received)
            } else if let quote = try message.decode(RatesFetcherAPI.quotes) {
                update = builder.add(quote.data, received: received)
            } else {
                return []
            }
        } catch {
            // The hub checked it before publishing: this is a bug, not a plugin's bad input.
            logger.error("candles could not read a message of the hub's stream", metadata: ["error": "\(error)"])
            Counter(label: "tickwire_candles_refused_total", dimensions: [("reason", "unreadable")]).increment()
            return []
        }
        if let refusal = update.refusal {
            Counter(label: "tickwire_candles_refused_total", dimensions: [("reason", refusal.rawValue)]).increment()
        }
        return update.closed
    }

    /// Publishes each closed candle on its topic and stores them all.
    private func publishAndStore(_ candles: [Candle]) async {
        for candle in candles {
            do {
                try publisher.publish(candle, on: Topics.candle(interval: candle.interval, feed: candle.source, market: candle.market), source: candle.source)
                Counter(label: "tickwire_candles_closed_total", dimensions: [("interval", candle.interval.rawValue)]).increment()
            } catch {
                logger.error("could not publish a candle", metadata: [
                    "feed": "\(candle.source)", "market": "\(candle.market)", "interval": "\(candle.interval.rawValue)", "error": "\(error)"])
            }
        }
        do {
            let deleted = try await store.save(candles)
            if deleted > 0 { logger.debug("candles past their retention deleted", metadata: ["deleted": "\(deleted)"]) }
        } catch {
            Counter(label: "tickwire_candles_store_errors_total").increment()
            logger.error("could not store candles", metadata: ["candles": "\(candles.count)", "error": "\(error)"])
        }
    }

    /// Registers `candles` over `store` in `methods` (``CandleStore/answer(_:)``).
    public static func register(_ store: CandleStore, in methods: inout RPCMethods) {
        methods.register(RatesFetcherAPI.candles) { request in
            try await store.answer(request)
        }
    }
}
