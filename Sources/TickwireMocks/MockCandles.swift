import Candles
import Foundation
import Market
import RatesFetcherEngine
import Synchronization
import TickwireContract

/// The mock rates-fetcher's candles: the hub's builder (``CandleBuilder``, with its close delay) over every quote and
/// trade the mock publishes, its closed candles in an in-memory ``CandleStore`` that answers `candles` as the hub's
/// does. It also holds the past a hub that had run for a month would: each tracked coin's walked CoinGecko history in
/// USD, one quote an hour, through the same builder.
final class MockCandles: Sendable {
    let store: CandleStore
    private let state = Mutex<(builder: CandleBuilder, closed: [Candle])>((CandleBuilder(closeDelay: CandleBuilder.hubCloseDelay), []))
    private let pastLoad = Mutex<(load: (@Sendable () async -> Void)?, task: Task<Void, Never>?)>((nil, nil))

    /// What stores the past (``backfill(from:coins:now:)``), run once, when `candles` is first asked.
    var past: (@Sendable () async -> Void)? {
        get { pastLoad.withLock { $0.load } }
        set { pastLoad.withLock { $0.load = newValue } }
    }

    init() throws {
        store = try CandleStore.inMemory()
    }

    /// Adds what the mock published, if it is a quote or a trade, at `received` for a quote without a time of its own.
    func add(_ update: FetcherUpdate, received: Date) {
        state.withLock { state in
            let closed: [Candle]
            switch update {
            case .quote(let quote): closed = state.builder.add(quote, received: received).closed
            case .trade(let trade): closed = state.builder.add(trade).closed
            default: return
            }
            state.closed += closed
        }
    }

    /// Closes the candles whose end passed by `now`, and stores every candle closed so far.
    func tick(now: Date = Date()) async {
        let closed = state.withLock { state in
            defer { state.closed = [] }
            return state.closed + state.builder.tick(now: now)
        }
        if !closed.isEmpty { _ = try? await store.save(closed) }
    }

    /// Stores the candles of each of `coins`' USD history of the last 30 days (as CoinGecko's quotes, hourly) that
    /// ended by `now`, built by a builder of their own: the live one has taken today's quotes already.
    func backfill(from engine: FetcherEngine, coins: [KnownCoin], now: Date = Date()) async {
        var builder = CandleBuilder(closeDelay: CandleBuilder.hubCloseDelay)
        var closed: [Candle] = []
        for coin in coins {
            guard let symbol = coin.symbol,
                  let history = try? await engine.history(HistoryRequest(asset: symbol, currency: "USD", days: 30)) else { continue }
            let market = MarketPair(base: symbol, quote: "USD")
            for point in history.points where point.time <= now {
                closed += builder.add(Quote(source: BuiltInFeed.coingecko.name, market: market, last: point.price, time: point.time), received: point.time).closed
            }
        }
        closed += builder.tick(now: now)
        _ = try? await store.save(closed)
    }

    /// What `candles` answers: the store's answer once every closed candle is stored.
    func answer(_ request: CandlesRequest) async throws -> CandleSeries {
        let loading = pastLoad.withLock { state -> Task<Void, Never>? in
            if state.task == nil, let load = state.load { state.task = Task { await load() } }
            return state.task
        }
        await loading?.value
        await tick()
        return try await store.answer(request)
    }
}
