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
    /// its streams report the recorded snapshot and then stay quiet. The coin methods answer from the
    /// recorded coins (`coin.coingecko.*`), tracked and known alike, as if each call were the first.
    public static let test = Self(
        history: Fixtures.answer("rates-fetcher", "history"),
        refresh: Fixtures.answer("rates-fetcher", "refresh"),
        feeds: Fixtures.answer("rates-fetcher", "feeds"),
        ratesHistory: Fixtures.answer("rates-fetcher", "rates.history"),
        coins: { try MockCoins.recorded() },
        addCoin: { request in try await RPCError.answering { var coins = try MockCoins(tracked: MockCoins.recorded()); return try coins.add(request).change } },
        removeCoin: { request in try await RPCError.answering { var coins = try MockCoins(tracked: MockCoins.recorded()); return try coins.remove(request).change } },
        knownCoins: { request in try await RPCError.answering { try MockCoins(tracked: MockCoins.recorded()).known(request) } },
        health: Fixtures.answer("rates-fetcher", "health"),
        updates: { kinds in .recorded { try Fixtures.snapshot("rates-fetcher", decode: FetcherUpdate.init(message:)).filter { kinds.contains($0.value.kind) } } })

    /// rates-fetcher as a demo runs it, with no network: the service's own engine (RatesFetcherEngine's
    /// ``FetcherEngine``) over the feed clients of Feeds, its values held in memory: the quote feeds' mock clients
    /// (Bitso, WazirX, CoinGecko: a walk seeded by `seed`), the recorded fiat rates, GNB and masterdata (as the
    /// recorded stack has them). Each feed polls at its mock period with `interval` as the mock's second (1 s: the
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
            health: { throw RPCError.unavailable(reason) },
            updates: { _ in .failing(reason) })
    }
}

/// A mock rates-fetcher: the service's engine over the mock feed clients, publishing into an in-memory store (every
/// topic's last value, as the service's publisher holds it) that its streams read.
final class MockFetcher: Sendable {
    let started = Date()
    let engine: FetcherEngine
    private let store: MockStore
    /// Every feed's first poll, which every answer and the streams' first snapshot wait for.
    let firstPolls: Task<Void, Never>

    /// The feeds whose recorded answers it publishes, as the recorded stack (`--feeds test`) does; the others are mocks.
    static let recorded: [String: FeedVariant] = ["fiat": .test, "gnb": .test, "masterdata": .test]

    init(seed: UInt64) throws {
        let store = MockStore()
        var logger = Logger(label: "tickwire.mock.rates-fetcher")
        logger.logLevel = .critical
        let selection = FeedSelection(defaultVariant: .mock, overrides: Self.recorded, seed: seed)
        let engine = FetcherEngine(
            environment: try selection.environment(http: nil, logger: logger), selection: selection,
            coins: CoinTracker(ids: CoinTracker.defaultIDs), values: store.values, sink: store.sink(name:), logger: logger)
        self.store = store
        self.engine = engine
        firstPolls = Task {
            for runner in engine.runners { await runner.poll() }
        }
    }

    /// The polls due at `tick` mock seconds: each feed every ``BuiltInFeed/mockPeriod`` seconds.
    func poll(tick: Int) async {
        await firstPolls.value
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
            if let update = sent?.update { broadcast.send(.update(update)) }
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

/// The coin list of a mock (or test) rates-fetcher: the recorded CoinGecko coins are all it knows, and it answers
/// `coins.*` with the service's answers and errors.
struct MockCoins: Sendable {
    /// The coins tracked, in the order they were added.
    private(set) var tracked: [KnownCoin]
    /// Every coin it knows: the recorded ones.
    let known: [KnownCoin]

    init(tracked: [KnownCoin]) {
        self.tracked = tracked
        known = tracked
    }

    /// The recorded coins.
    static func recorded() throws -> [KnownCoin] {
        coins(in: try Fixtures.snapshot("rates-fetcher", decode: FetcherUpdate.init(message:)))
    }

    /// The coins of `coin.coingecko.*` updates.
    static func coins(in updates: [StreamUpdate<FetcherUpdate>]) -> [KnownCoin] {
        updates.compactMap { update in
            guard update.topic.source == "coingecko", case .coin(let info) = update.value else { return nil }
            return KnownCoin(id: info.id, symbol: info.symbol.uppercased(), name: info.name)
        }
    }

    /// The coin `text` names among `coins`: by id, else symbol, else name, case aside.
    private static func find(_ text: String, in coins: [KnownCoin]) -> KnownCoin? {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        return coins.first { $0.id == wanted } ?? coins.first { $0.symbol?.lowercased() == wanted }
            ?? coins.first { $0.name?.lowercased() == wanted }
    }

    private func resolve(_ text: String) throws -> KnownCoin {
        guard !text.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw RPCError.invalidParams("coin must be a CoinGecko id, symbol or name, e.g. \"polkadot\" or \"DOT\"")
        }
        guard let coin = Self.find(text, in: known) else {
            throw RPCError.invalidParams("unknown coin \"\(text)\": CoinGecko lists no coin with that id, symbol or name")
        }
        return coin
    }

    /// `coins.add`, and the symbol of a coin it added.
    mutating func add(_ request: CoinRequest) throws -> (change: CoinsChange, symbol: String?) {
        let coin = try Self.find(request.coin, in: tracked) ?? resolve(request.coin)
        guard !tracked.contains(coin) else { return (CoinsChange(coin: coin, changed: false, coins: tracked), nil) }
        tracked.append(coin)
        return (CoinsChange(coin: coin, changed: true, coins: tracked), coin.symbol)
    }

    /// `coins.remove`, and the symbol of a coin it removed.
    mutating func remove(_ request: CoinRequest) throws -> (change: CoinsChange, symbol: String?) {
        guard let coin = Self.find(request.coin, in: tracked) else {
            return (CoinsChange(coin: try resolve(request.coin), changed: false, coins: tracked), nil)
        }
        tracked.removeAll { $0 == coin }
        return (CoinsChange(coin: coin, changed: true, coins: tracked), coin.symbol)
    }

    /// `coins.known`: the known coins whose id, symbol or name contains the query.
    func known(_ request: KnownCoinsRequest) throws -> [KnownCoin] {
        let limit = request.limit ?? 20
        guard (1...200).contains(limit) else { throw RPCError.invalidParams("limit must be 1 to 200, got \(limit)") }
        let query = (request.query ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        return Array(known.filter { coin in
            query.isEmpty || [coin.id, coin.symbol ?? "", coin.name ?? ""].contains { $0.lowercased().contains(query) }
        }.prefix(limit))
    }
}
