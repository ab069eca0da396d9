import Bus
import Foundation
import Market
import Money
import Synchronization
import TickwireContract
import BusContract
import TickwireClients

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

    /// rates-fetcher as a demo runs it, with no network: the recorded state, whose quotes walk at random
    /// (seeded by `seed`, within a few percent) every `interval`; a 30-day history for every quoted coin in
    /// any currency it is quoted in, ending at the current price; `refresh` and `feeds` answer as the
    /// service does, errors included.
    public static func mock(seed: UInt64 = 1, interval: Duration = .seconds(1)) -> Self {
        let market: MockFetcher
        do {
            market = try MockFetcher(seed: seed)
        } catch {
            return .unavailable("RatesFetcherClient.mock", error)
        }
        Task { [weak market] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard let market else { return }
                market.step(now: Date())
            }
        }
        return Self(
            history: { request in try await RPCError.answering { try market.history(request) } },
            refresh: { request in try await RPCError.answering { try market.refresh(request) } },
            feeds: { market.statuses() },
            ratesHistory: { request in try await RPCError.answering { try market.ratesHistory(request) } },
            coins: { market.coins.withLock { $0.tracked } },
            addCoin: { request in try await RPCError.answering { try market.addCoin(request) } },
            removeCoin: { request in try await RPCError.answering { try market.removeCoin(request) } },
            knownCoins: { request in try await RPCError.answering { try market.coins.withLock { try $0.known(request) } } },
            health: { Health(service: "rates-fetcher", started: market.started, upstreams: market.statuses().reduce(into: [:]) { $0[$1.feed] = "ok" }) },
            updates: { kinds in market.broadcast.stream { market.snapshot(kinds) }.filter(kinds) })
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

/// The state of a mock rates-fetcher: every topic's last value, the recorded quotes its walks start from.
final class MockFetcher: Sendable {
    let broadcast = Broadcast<FetcherUpdate>()
    let started = Date()
    private let state: Mutex<[Topic: StreamUpdate<FetcherUpdate>]>
    private let recordedQuotes: [(topic: Topic, quote: Quote)]
    private let recordedFeeds: [FeedStatus]
    /// The recorded ECB rates (the `rate.ecb.*` topics), as one day's set.
    private let recordedFiat: FiatRates
    private let walk: PriceWalk
    private let seed: UInt64
    /// The CoinGecko coins tracked (at first every recorded one) and known (the recorded ones).
    let coins: Mutex<MockCoins>
    /// The recorded CoinGecko topics (`coin.coingecko.<SYMBOL>`, `quote.coingecko.<SYMBOL>-*`), to bring back a coin added again.
    private let recordedCoinTopics: [StreamUpdate<FetcherUpdate>]

    init(seed: UInt64) throws {
        let updates = try Fixtures.snapshot("rates-fetcher", decode: FetcherUpdate.init(message:))
        state = Mutex(Dictionary(updates.map { ($0.topic, $0) }, uniquingKeysWith: { _, newer in newer }))
        coins = Mutex(MockCoins(tracked: MockCoins.coins(in: updates)))
        recordedCoinTopics = updates.filter { $0.topic.source == "coingecko" && ["coin", "quote"].contains($0.topic.kind) }
        recordedQuotes = updates.compactMap { update in
            if case .quote(let quote) = update.value { return (update.topic, quote) }
            return nil
        }.sorted { $0.topic < $1.topic }
        recordedFeeds = try Fixtures.load("rates-fetcher", "feeds")
        let ecb = updates.compactMap { update -> ExchangeRate? in
            if case .rate(let rate) = update.value, update.topic.rawValue.hasPrefix("rate.ecb.") { return rate }
            return nil
        }.sorted { $0.to < $1.to }
        recordedFiat = FiatRates(source: "ecb", base: ecb.first?.from ?? "USD", date: "", rates: ecb)
        walk = PriceWalk(seed: seed)
        self.seed = seed
    }

    /// Every held update of `kinds`, sorted by topic.
    func snapshot(_ kinds: Set<FetcherUpdate.Kind>) -> [StreamUpdate<FetcherUpdate>] {
        state.withLock { $0.values.filter { kinds.contains($0.value.kind) }.sorted { $0.topic < $1.topic } }
    }

    /// `coins.add`: a recorded coin tracked again gets its recorded topics back, published at once.
    func addCoin(_ request: CoinRequest) throws -> CoinsChange {
        let (change, symbol) = try coins.withLock { try $0.add(request) }
        guard change.changed, let symbol else { return change }
        for recorded in recordedCoinTopics where Self.isCoinGeckoTopic(recorded.topic, of: symbol) {
            let update = state.withLock { state -> StreamUpdate<FetcherUpdate> in
                var update = recorded
                update.seq = (state[recorded.topic]?.seq ?? recorded.seq) + 1
                update.time = Date()
                state[recorded.topic] = update
                return update
            }
            broadcast.send(.update(update))
        }
        return change
    }

    /// `coins.remove`: the coin's CoinGecko topics leave the state, and every stream hears they were retracted.
    func removeCoin(_ request: CoinRequest) throws -> CoinsChange {
        let (change, symbol) = try coins.withLock { try $0.remove(request) }
        guard change.changed, let symbol else { return change }
        let removed = state.withLock { state -> [Topic] in
            let topics = state.keys.filter { Self.isCoinGeckoTopic($0, of: symbol) }.sorted()
            for topic in topics { state[topic] = nil }
            return topics
        }
        for topic in removed { broadcast.send(.removed(topic)) }
        return change
    }

    /// `coin.coingecko.<symbol>` or `quote.coingecko.<symbol>-*`.
    private static func isCoinGeckoTopic(_ topic: Topic, of symbol: String) -> Bool {
        topic.rawValue == "coin.coingecko.\(symbol)" || topic.rawValue.hasPrefix("quote.coingecko.\(symbol)-")
    }

    /// Moves every quote one step of its walk and publishes it.
    func step(now: Date) {
        for (topic, recorded) in recordedQuotes {
            guard var quote = try? recorded.moved(by: walk.step(topic.rawValue)) else { continue }
            quote.time = now
            // A removed coin's quote stays away until it is added again.
            let update = state.withLock { state -> StreamUpdate<FetcherUpdate>? in
                guard let held = state[topic] else { return nil }
                let update = StreamUpdate<FetcherUpdate>(
                    topic: topic, seq: held.seq + 1, time: now, source: quote.source, value: .quote(quote))
                state[topic] = update
                return update
            }
            if let update { broadcast.send(.update(update)) }
        }
    }

    /// Every feed's status: as recorded, polled just now.
    func statuses() -> [FeedStatus] {
        recordedFeeds.map { status in
            var status = status
            status.state = .ok
            status.message = nil
            status.lastSuccess = Date()
            status.lastAttempt = status.lastSuccess
            return status
        }
    }

    /// `refresh`: the feed's status, or the service's error for a feed it does not have.
    func refresh(_ request: RefreshRequest) throws -> FeedStatus {
        guard let status = statuses().first(where: { $0.feed == request.feed }) else {
            throw RPCError.invalidParams("unknown feed \"\(request.feed)\"; feeds: \(recordedFeeds.map(\.feed).joined(separator: ", "))")
        }
        return status
    }

    /// `rates.history`: the recorded ECB rates on every weekday of the span, each day's moved by its own
    /// seeded offset (``FiatRateHistory/walked(from:start:end:seed:)``), as the service's mock feed answers.
    func ratesHistory(_ request: RatesHistoryRequest) throws -> FiatRateHistory {
        guard let start = CalendarDay(iso: request.start) else { throw RPCError.invalidParams("start must be a day such as 2026-11-24, got \"\(request.start)\"") }
        guard let end = CalendarDay(iso: request.end) else { throw RPCError.invalidParams("end must be a day such as 2026-11-24, got \"\(request.end)\"") }
        guard start <= end else { throw RPCError.invalidParams("start \(start) is after end \(end)") }
        let days = end.daysSince1970 - start.daysSince1970 + 1
        guard days <= 366 else { throw RPCError.invalidParams("at most 366 days, got \(days)") }
        return try FiatRateHistory.walked(from: recordedFiat, start: start, end: end, seed: seed)
    }

    /// `history`: daily prices of `asset` over `days` days, ending at its current quote in `currency`,
    /// walked back at random (seeded per coin, currency and length, so asking again gives the same series).
    func history(_ request: HistoryRequest) throws -> PriceHistory {
        let asset = request.asset.uppercased()
        let currency = try Currency(code: request.currency ?? "USD").code
        let days = request.days ?? 30
        guard (1...365).contains(days) else { throw RPCError.invalidParams("days must be 1 to 365, got \(days)") }
        let quotes = state.withLock { $0.values.compactMap { update -> Quote? in
            if case .quote(let quote) = update.value, quote.market.base == asset { return quote }
            return nil
        } }
        guard let quote = quotes.first(where: { $0.market.quote == currency }) else {
            let known = Set(quotes.map(\.market.quote)).sorted().joined(separator: ", ")
            throw RPCError.notFound("no price history for \(asset) in \(currency)" + (known.isEmpty ? "" : "; it is quoted in \(known)"))
        }
        var generator = SeededGenerator(seed: seed, stream: "history:\(asset):\(currency):\(days)")
        // Whole days in seconds since 1970: the dates of the points, midnight UTC.
        let day = 86_400
        let today = Int(Date().timeIntervalSince1970) / day * day
        var offset = 0
        var points: [PricePoint] = []
        for back in 0...days {
            points.append(PricePoint(time: Date(timeIntervalSince1970: TimeInterval(today - back * day)), price: try PriceWalk.scale(quote.last, by: offset)))
            offset = min(max(offset + generator.int(in: -150...150), -PriceWalk.limit * 4), PriceWalk.limit * 4)
        }
        return PriceHistory(asset: asset, currency: currency, points: points.reversed())
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
