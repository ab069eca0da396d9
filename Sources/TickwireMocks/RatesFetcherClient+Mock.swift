import Bus
import BusContract
import Foundation
import Logging
import Market
import Money
import RatesFetcherEngine
import Synchronization
import TickwireClients
import TickwireContract
import TickwireFeeds

extension RatesFetcherClient {
    /// rates-fetcher's recorded answers (`scripts/record-client-fixtures.py`): the same whatever is asked;
    /// its streams report the recorded snapshot and then stay quiet. The coin methods are the engine's over the recorded
    /// coins (`coin.coingecko.*`), tracked and known alike, as if each call were the first.
    public static let test = Self(
        history: Fixtures.answer("rates-fetcher", "history"),
        refresh: Fixtures.answer("rates-fetcher", "refresh"),
        feeds: Fixtures.answer("rates-fetcher", "feeds"),
        ratesHistory: Fixtures.answer("rates-fetcher", "rates.history"),
        coins: { try recordedCoins() },
        addCoin: { request in try await RPCError.answering { try await recordedCoinsEngine().addCoin(request) } },
        removeCoin: { request in try await RPCError.answering { try await recordedCoinsEngine().removeCoin(request) } },
        knownCoins: { request in try await RPCError.answering { try await recordedCoinsEngine().knownCoins(request) } },
        candles: Fixtures.answer("rates-fetcher", "candles"),
        health: Fixtures.answer("rates-fetcher", "health"),
        updates: { kinds in .recorded { try Fixtures.snapshot("rates-fetcher", decode: FetcherUpdate.init(message:)).filter { kinds.contains($0.value.kind) } } })

    /// The recorded CoinGecko coins (`coin.coingecko.*`).
    static func recordedCoins() throws -> [KnownCoin] {
        try Fixtures.snapshot("rates-fetcher", decode: FetcherUpdate.init(message:)).compactMap { update in
            guard update.topic.source == "coingecko", case .coin(let info) = update.value else { return nil }
            return KnownCoin(id: info.id, symbol: info.symbol.uppercased(), name: info.name)
        }
    }

    /// A fresh engine that knows and tracks exactly the recorded coins, publishing into a store of its own.
    private static func recordedCoinsEngine() throws -> FetcherEngine {
        let store = MockStore()
        return FetcherEngine.recorded(coins: try recordedCoins(), values: store.values, sink: store.sink(name:))
    }

    /// rates-fetcher as a demo runs it, with no network: the service's own engine (RatesFetcherEngine's
    /// ``FetcherEngine``) over the feed clients of Feeds, its values held in memory: the quote feeds' mock clients
    /// (Bitso, WazirX, CoinGecko tracking the recorded coins: a walk seeded by `seed`), the recorded fiat rates, GNB
    /// and masterdata (as the recorded stack has them), and daily fiat rates walked from the recorded ones. Each feed polls at its mock period with `interval` as the mock's second (1 s: the
    /// demo's pace; shorter in tests), so quotes walk every `interval`; histories, daily rates, `refresh`, `feeds` and
    /// `coins.*` are the engine's, errors included. Every answer and the streams' first snapshot wait until each feed
    /// has polled once.
    public static func mock(seed: UInt64 = 1, interval: Duration = .seconds(1)) -> Self {
        let fetcher: MockFetcher
        do {
            fetcher = try MockFetcher(seed: seed)
        } catch {
            return .unavailable("RatesFetcherClient.mock", error)
        }
        Task { [weak fetcher] in
            var tick = 0
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                tick += 1
                guard let fetcher else { return }
                await fetcher.poll(tick: tick)
            }
        }
        /// The engine once every feed has polled once.
        @Sendable func engine() async -> FetcherEngine {
            await fetcher.firstPolls.value
            return fetcher.engine
        }
        return Self(
            history: { request in try await RPCError.answering { try await engine().history(request) } },
            refresh: { request in try await RPCError.answering { try await engine().refresh(request) } },
            feeds: { await engine().feeds() },
            ratesHistory: { request in try await RPCError.answering { try await engine().ratesHistory(request) } },
            coins: { await engine().listCoins() },
            addCoin: { request in try await RPCError.answering { try await engine().addCoin(request) } },
            removeCoin: { request in try await RPCError.answering { try await engine().removeCoin(request) } },
            knownCoins: { request in try await RPCError.answering { try await engine().knownCoins(request) } },
            candles: { request in
                await fetcher.firstPolls.value
                return try await fetcher.candles.answer(request)
            },
            health: { Health(service: "rates-fetcher", started: fetcher.started, upstreams: await engine().upstreams()) },
            updates: { kinds in fetcher.updates(kinds) })
    }

    /// A client whose every closure throws `error`, for a mock that could not be made.
    static func unavailable(_ name: String, _ error: any Error) -> Self {
        let reason = "\(name) could not start: \(error)"
        return Self(
            history: { _ in throw RPCError.unavailable(reason) }, refresh: { _ in throw RPCError.unavailable(reason) },
            feeds: { throw RPCError.unavailable(reason) }, ratesHistory: { _ in throw RPCError.unavailable(reason) },
            coins: { throw RPCError.unavailable(reason) }, addCoin: { _ in throw RPCError.unavailable(reason) },
            removeCoin: { _ in throw RPCError.unavailable(reason) }, knownCoins: { _ in throw RPCError.unavailable(reason) },
            candles: { _ in throw RPCError.unavailable(reason) }, health: { throw RPCError.unavailable(reason) },
            updates: { _ in .failing(reason) })
    }
}

/// A mock rates-fetcher: the service's engine over the mock feed clients, publishing into an in-memory store (every
/// topic's last value, as the service's publisher holds it) that its streams read.
final class MockFetcher: Sendable {
    let started = Date()
    let engine: FetcherEngine
    /// The hub's candles over what it publishes.
    let candles: MockCandles
    private let store: MockStore
    /// Every feed's first poll, which every answer and the streams' first snapshot wait for.
    let firstPolls: Task<Void, Never>

    /// The feeds whose recorded answers it publishes, as the recorded stack (`--feeds test`) does; the others are mocks.
    static let recorded: [String: FeedVariant] = ["fiat": .test, "gnb": .test, "masterdata": .test]

    init(seed: UInt64) throws {
        let candles = try MockCandles()
        let store = MockStore(candles: candles)
        var logger = Logger(label: "tickwire.mock.rates-fetcher")
        logger.logLevel = .critical
        let selection = FeedSelection(defaultVariant: .mock, overrides: Self.recorded, seed: seed)
        var environment = try selection.environment(http: nil, logger: logger)
        // The daily rates walk from the recorded ones, so every weekday up to today has its own.
        environment.fiatHistory = FetcherEnvironment.mock(seed: seed).fiatHistory
        let coins = try RatesFetcherClient.recordedCoins()
        let engine = FetcherEngine(
            environment: environment, selection: selection, coins: CoinTracker(coins: coins),
            values: store.values, sink: store.sink(name:), logger: logger)
        self.store = store
        self.engine = engine
        self.candles = candles
        firstPolls = Task {
            for runner in engine.runners { await runner.poll() }
        }
        // A month of candles costs more CPU than most tests that make a mock ever use: built on the first question.
        candles.past = { await candles.backfill(from: engine, coins: coins) }
    }

    /// The polls due at `tick` mock seconds: each feed every ``BuiltInFeed/mockPeriod`` seconds.
    func poll(tick: Int) async {
        await firstPolls.value
        await candles.tick()
        for (feed, runner) in zip(BuiltInFeed.all, engine.runners) {
            let every = max(Int(feed.mockPeriod.components.seconds), 1)
            if tick % every == 0 { await runner.poll() }
        }
    }

    /// The values of `kinds`: a snapshot once every feed has polled once, then every change.
    func updates(_ kinds: Set<FetcherUpdate.Kind>) -> StreamEvents<FetcherUpdate> {
        let events = store.broadcast.stream { [store] in store.snapshot(kinds) }.filter(kinds)
        return .each { [firstPolls] in
            AsyncStream(bufferingPolicy: .bufferingNewest(1_000)) { continuation in
                let forwarding = Task {
                    await firstPolls.value
                    for await event in events { continuation.yield(event) }
                    continuation.finish()
                }
                continuation.onTermination = { _ in forwarding.cancel() }
            }
        }
    }
}

/// The mock's publisher: every topic's last value and number, handed to every open stream as it changes.
final class MockStore: Sendable {
    let broadcast = Broadcast<FetcherUpdate>()
    private let held = Mutex<[Topic: Held]>([:])
    /// What builds candles of the quotes and trades it publishes, if anything.
    private let candles: MockCandles?

    /// A store whose quotes and trades go to `candles` too.
    init(candles: MockCandles? = nil) {
        self.candles = candles
    }

    private struct Held: Sendable {
        var publication: FeedPublication
        var seq: UInt64
        var body: Data
        var update: StreamUpdate<FetcherUpdate>?
    }

    /// The sink of built-in feed `name`: numbers each value per topic, skips one equal to its topic's last, and
    /// sends it to every stream.
    func sink(name: String) -> FeedSink {
        FeedSink(name: name) { [self] publication in
            let sent = try held.withLock { held -> (seq: UInt64, update: StreamUpdate<FetcherUpdate>?)? in
                let last = held[publication.topic]
                if let last, last.publication.hasSamePayload(as: publication) { return nil }
                let seq = (last?.seq ?? 0) + 1
                let body = try publication.envelope(seq: seq, time: Date(), source: publication.topic.source.map(String.init) ?? "rates-fetcher")
                let message = try BusMessage(topic: publication.topic.rawValue, body: body)
                let update = try FetcherUpdate(message: message).map { value in
                    StreamUpdate(topic: message.topic, seq: seq, time: message.header.time, source: message.header.source, value: value)
                }
                held[publication.topic] = Held(publication: publication, seq: seq, body: body, update: update)
                return (seq, update)
            }
            if let update = sent?.update {
                candles?.add(update.value, received: update.time)
                broadcast.send(.update(update))
            }
            return sent?.seq
        }
    }

    /// What the engine reads of it, and retracts from it.
    var values: PublishedValues {
        PublishedValues(
            held: { [self] prefix in
                held.withLock { held in
                    held.filter { $0.key.rawValue.hasPrefix(prefix) }.map { PublishedValues.Held(topic: $0.key, body: $0.value.body) }
                }
            },
            retract: { [self] topic in
                guard held.withLock({ $0.removeValue(forKey: topic) }) != nil else { return }
                broadcast.send(.removed(topic))
            })
    }

    /// Every held update of `kinds`, sorted by topic.
    func snapshot(_ kinds: Set<FetcherUpdate.Kind>) -> [StreamUpdate<FetcherUpdate>] {
        held.withLock { $0.values.compactMap(\.update).filter { kinds.contains($0.value.kind) }.sorted { $0.topic < $1.topic } }
    }
}
