import Foundation
import Market
import Money

/// CoinGecko's coin prices and price histories.
public struct CoinGeckoClient: Sendable {
    /// Market data of the coins with these CoinGecko ids (all top coins when empty), priced in `currency` (e.g. "usd").
    public var markets: @Sendable (_ ids: [String], _ currency: String) async throws -> [CoinMarket]
    /// One coin's prices over the last `days` days, in `currency`.
    public var history: @Sendable (_ id: String, _ currency: String, _ days: Int) async throws -> PriceHistory
    /// Every coin CoinGecko lists (`/coins/list`): the ids `markets` takes, with their symbols and names.
    public var coinList: @Sendable () async throws -> [CoinGeckoCoin]

    /// A client from its endpoints.
    public init(
        markets: @escaping @Sendable (_ ids: [String], _ currency: String) async throws -> [CoinMarket],
        history: @escaping @Sendable (_ id: String, _ currency: String, _ days: Int) async throws -> PriceHistory,
        coinList: @escaping @Sendable () async throws -> [CoinGeckoCoin]
    ) {
        self.markets = markets
        self.history = history
        self.coinList = coinList
    }
}

/// One entry of CoinGecko's coin list: its id (what `markets` takes), its symbol as listed (often lower case), its name.
public struct CoinGeckoCoin: Codable, Sendable, Equatable, Hashable {
    /// CoinGecko's id, e.g. `polkadot`.
    public var id: String
    /// The ticker symbol as CoinGecko lists it, e.g. `dot`.
    public var symbol: String
    /// The display name, e.g. `Polkadot`.
    public var name: String

    /// A listed coin.
    public init(id: String, symbol: String, name: String) {
        self.id = id
        self.symbol = symbol
        self.name = name
    }
}

extension CoinGeckoClient {
    /// The recorded responses: the top 17 coins in USD (bitcoin from its newer 1-coin recording), bitcoin's daily
    /// USD prices cut to the last `days` days of the recording, and as the coin list those 17 coins.
    public static let test = Self(
        markets: { ids, currency in try fixtureMarkets(ids, currency) },
        history: { id, currency, days in
            let history = try fixtureHistory(id, currency)
            guard let end = history.points.last?.time else { return history }
            let start = end.addingTimeInterval(-TimeInterval(days) * 86_400)
            return PriceHistory(
                asset: history.asset, currency: history.currency,
                points: history.points.filter { $0.time >= start }
            )
        },
        coinList: { try fixtureCoinList() }
    )

    /// Alive without the network: each `markets` call moves the recorded prices onto their coin's ``MockMarket``
    /// reference at `now` and walks them a little from there, and `history` is a seeded hourly walk (daily beyond
    /// 90 days) that ends at the coin's current mock price.
    public static func mock(seed: UInt64, now: @escaping @Sendable () -> Date = { Date() }) -> Self {
        let walk = PriceWalk(seed: seed)
        return Self(
            markets: { ids, currency in
                let time = now()
                return try fixtureMarkets(ids, currency).map { market in
                    var market = market
                    market.quote = try market.quote.onMockReference(at: time).moved(by: walk.step(market.coin.id))
                    market.quote.time = time
                    return market
                }
            },
            history: { id, currency, days in
                guard var market = try fixtureMarkets([id], currency).first else {
                    throw FeedError.notInFixtures("coingecko coin \(id)")
                }
                let end = now()
                market.quote = try market.quote.onMockReference(at: end)
                return try mockHistory(market, days: max(days, 1), endOffset: walk.offset(id), seed: seed, end: end)
            },
            coinList: { try fixtureCoinList() }
        )
    }

    /// The recorded markets: the 1-coin recording (bitcoin, 2024-04-07) first, then every coin of the top-17
    /// recording (2024-01-01) it lacks, so bitcoin keeps its newer price and the other coins have theirs.
    private static func fixtureMarkets(_ ids: [String], _ currency: String) throws -> [CoinMarket] {
        guard currency.lowercased() == "usd" else { throw FeedError.notInFixtures("coingecko prices in \(currency)") }
        var all: [CoinMarket] = []
        for fixture in [FeedFixture.coinGeckoMarkets, .coinGeckoTopMarkets] {
            let known = Set(all.map(\.coin.id))
            all += try CoinGeckoWire.markets(from: fixture.data(), origin: fixture.origin, currency: currency)
                .filter { !known.contains($0.coin.id) }
        }
        return ids.isEmpty ? all : all.filter { ids.contains($0.coin.id) }
    }

    /// The coins of the recorded markets, as `/coins/list` lists them (lower-case symbols), by market cap rank.
    private static func fixtureCoinList() throws -> [CoinGeckoCoin] {
        try fixtureMarkets([], "usd")
            .sorted { ($0.quote.marketCapRank ?? .max) < ($1.quote.marketCapRank ?? .max) }
            .map { CoinGeckoCoin(id: $0.coin.id, symbol: $0.coin.symbol.lowercased(), name: $0.coin.name) }
    }

    private static func fixtureHistory(_ id: String, _ currency: String) throws -> PriceHistory {
        guard id == "bitcoin", currency.lowercased() == "usd" else {
            throw FeedError.notInFixtures("coingecko history of \(id) in \(currency)")
        }
        let fixture = FeedFixture.coinGeckoBitcoinChart
        return try CoinGeckoWire.history(from: fixture.data(), origin: fixture.origin, id: id, currency: currency)
    }

    /// A walk backwards from the current mock price: one point an hour (a day beyond 90 days), at most 15 % from it.
    private static func mockHistory(
        _ market: CoinMarket, days: Int, endOffset: Int, seed: UInt64, end: Date
    ) throws -> PriceHistory {
        var generator = SeededGenerator(seed: seed, stream: "history:\(market.coin.id):\(days)")
        let step: TimeInterval = days > 90 ? 86_400 : 3_600
        let count = Int(TimeInterval(days) * 86_400 / step) + 1
        var offset = endOffset
        var points: [PricePoint] = []
        points.reserveCapacity(count)
        for index in 0..<count {
            let time = end.addingTimeInterval(-TimeInterval(index) * step)
            points.append(PricePoint(time: time, price: try PriceWalk.scale(market.quote.last, by: offset)))
            offset = min(max(offset - offset / 50 + generator.int(in: -80...80), -1_500), 1_500)
        }
        return PriceHistory(asset: market.coin.id, currency: market.quote.market.quote, points: points.reversed())
    }
}
