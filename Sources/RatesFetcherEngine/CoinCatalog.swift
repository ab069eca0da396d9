import Bus
import Feeds
import Foundation
import TickwireContract
import BusContract

/// The coins CoinGecko lists (`/coins/list`, recorded for the test and mock clients), kept for an hour: what
/// `coins.add` checks a coin against and `coins.known` suggests from.
actor CoinCatalog {
    private let coingecko: CoinGeckoClient
    private var cached: (coins: [CoinGeckoCoin], fetched: ContinuousClock.Instant)?
    /// The download under way: callers that miss the cache meanwhile wait for it rather than download the list again.
    private var loading: Task<[CoinGeckoCoin], any Error>?
    private var top: (coins: [KnownCoin], fetched: ContinuousClock.Instant)?
    private var loadingTop: Task<[KnownCoin]?, Never>?
    private let lifetime: Duration = .seconds(3600)

    init(coingecko: CoinGeckoClient) {
        self.coingecko = coingecko
    }

    /// Every listed coin: downloaded once however many callers miss the cache at once; a failed download is not
    /// kept, so the next call tries again.
    func list() async throws -> [CoinGeckoCoin] {
        if let cached, ContinuousClock.now - cached.fetched < lifetime { return cached.coins }
        let task = loading ?? Task { [coingecko] in try await coingecko.coinList() }
        loading = task
        do {
            let coins = try await task.value
            if loading == task {
                cached = (coins, ContinuousClock.now)
                loading = nil
            }
            return coins
        } catch {
            if loading == task { loading = nil }
            throw RPCError.unavailable("CoinGecko's coin list could not be had: \(error)")
        }
    }

    /// The coin `text` names: the one with that id, else the one with that symbol, else the one with that name
    /// (case aside). Of several with one symbol or name, the one CoinGecko ranks highest by market cap; when
    /// none of them has a rank, an error lists their ids to choose from.
    func resolve(_ text: String) async throws -> KnownCoin {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        guard !wanted.isEmpty else { throw RPCError.invalidParams("coin must be a CoinGecko id, symbol or name, e.g. \"polkadot\" or \"DOT\"") }
        let coins = try await list()
        if let coin = coins.first(where: { $0.id == wanted }) { return Self.known(coin) }
        var matches = coins.filter { $0.symbol.lowercased() == wanted }
        if matches.isEmpty { matches = coins.filter { $0.name.lowercased() == wanted } }
        guard let only = matches.first else {
            throw RPCError.invalidParams("unknown coin \"\(text)\": CoinGecko lists no coin with that id, symbol or name")
        }
        guard matches.count > 1 else { return Self.known(only) }
        let ranked = (try? await coingecko.markets(matches.map(\.id), "usd")) ?? []
        let best = ranked.compactMap { market in market.quote.marketCapRank.map { (rank: $0, id: market.coin.id) } }.min { $0.rank < $1.rank }
        guard let best, let coin = matches.first(where: { $0.id == best.id }) else {
            let ids = matches.map { "\"\($0.id)\"" }.joined(separator: ", ")
            throw RPCError.invalidParams("\"\(text)\" names several CoinGecko coins and none is ranked: add one by its id (\(ids))")
        }
        return Self.known(coin)
    }

    /// `coins.known`: the listed coins whose symbol or id is `query`, then those whose id, symbol or name starts
    /// with it, then those that contain it, each group in the list's order. Without a query, CoinGecko's top
    /// coins by market cap (`/coins/markets` without ids), else the list's first coins.
    func search(_ request: KnownCoinsRequest) async throws -> [KnownCoin] {
        let limit = request.limit ?? 20
        guard (1...200).contains(limit) else { throw RPCError.invalidParams("limit must be 1 to 200, got \(limit)") }
        let query = (request.query ?? "").trimmingCharacters(in: .whitespaces).lowercased()
        guard !query.isEmpty else {
            if let ranked = await topCoins(), !ranked.isEmpty { return Array(ranked.prefix(limit)) }
            return try await list().prefix(limit).map(Self.known)
        }
        let coins = try await list()
        func fields(_ coin: CoinGeckoCoin) -> [String] { [coin.id, coin.symbol.lowercased(), coin.name.lowercased()] }
        let exact = coins.filter { $0.symbol.lowercased() == query || $0.id == query }
        let prefixed = coins.filter { coin in fields(coin).contains { $0.hasPrefix(query) } }
        let containing = coins.filter { coin in fields(coin).contains { $0.contains(query) } }
        var seen: Set<String> = []
        return (exact + prefixed + containing).filter { seen.insert($0.id).inserted }.prefix(limit).map(Self.known)
    }

    /// CoinGecko's top coins by market cap, kept as long as the list, and fetched once for callers that miss at
    /// once; nil (and not kept) when they could not be had.
    private func topCoins() async -> [KnownCoin]? {
        if let top, ContinuousClock.now - top.fetched < lifetime { return top.coins }
        let task = loadingTop ?? Task { [coingecko] in
            guard let markets = try? await coingecko.markets([], "usd") else { return nil }
            return markets.sorted { ($0.quote.marketCapRank ?? .max) < ($1.quote.marketCapRank ?? .max) }
                .map { KnownCoin(id: $0.coin.id, symbol: $0.coin.symbol.uppercased(), name: $0.coin.name) }
        }
        loadingTop = task
        let coins = await task.value
        if loadingTop == task {
            if let coins { top = (coins, ContinuousClock.now) }
            loadingTop = nil
        }
        return coins
    }

    private static func known(_ coin: CoinGeckoCoin) -> KnownCoin {
        KnownCoin(id: coin.id, symbol: coin.symbol.uppercased(), name: coin.name)
    }
}
