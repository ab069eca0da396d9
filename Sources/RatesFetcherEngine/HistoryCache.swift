import Bus
import Feeds
import Foundation
import Market
import TickwireContract
import Money
import BusContract

/// Price histories from CoinGecko, kept for five minutes so repeated chart views do not
/// hit the API's rate limit; for an asset CoinGecko lacks, the series the hub keeps of a feed plugin's market
/// (`plugins`), else a mock feed's walked history (`quoteHistory`, Market's ``Quote/walkedHistory(days:seed:end:)``).
actor HistoryCache {
    private let coingecko: CoinGeckoClient
    private let quoteHistory: (@Sendable (Quote, Int) throws -> PriceHistory)?
    private let plugins: PluginSeries?
    private let values: PublishedValues
    private var entries: [String: (history: PriceHistory, fetched: ContinuousClock.Instant)] = [:]
    private let lifetime: Duration = .seconds(300)

    init(
        coingecko: CoinGeckoClient, quoteHistory: (@Sendable (Quote, Int) throws -> PriceHistory)? = nil, plugins: PluginSeries? = nil,
        values: PublishedValues
    ) {
        self.coingecko = coingecko
        self.quoteHistory = quoteHistory
        self.plugins = plugins
        self.values = values
    }

    func history(_ request: HistoryRequest) async throws -> PriceHistory {
        let asset = request.asset.uppercased()
        let currency = try Currency(code: request.currency ?? "USD").code
        let days = request.days ?? 30
        guard (1...365).contains(days) else { throw RPCError.invalidParams("days must be 1 to 365, got \(days)") }
        let key = "\(asset)|\(currency)|\(days)"
        if let cached = entries[key], ContinuousClock.now - cached.fetched < lifetime { return cached.history }
        do {
            let id = try coinID(of: asset)
            var history = try await coingecko.history(id, currency.lowercased(), days)
            history.asset = asset
            history.currency = currency
            entries[key] = (history, ContinuousClock.now)
            return history
        } catch {
            // Not cached: a plugin's series and a walked history end at the current price, which moves.
            if let series = plugins?(asset, currency, days) { return series }
            guard let quoteHistory, let quote = quote(of: asset, in: currency) else { throw error }
            return try quoteHistory(quote, days)
        }
    }

    /// The newest quote of `asset` in `currency` the feeds have published.
    private func quote(of asset: String, in currency: String) -> Quote? {
        values.decoded(RatesFetcherAPI.quotes, under: RatesFetcherAPI.quotes.prefix).map(\.value)
        .filter { $0.market.base == asset && $0.market.quote == currency }
        .max { ($0.time ?? .distantPast) < ($1.time ?? .distantPast) }
    }

    /// The CoinGecko id of `asset`, from the coins the feed has published.
    private func coinID(of asset: String) throws -> String {
        let coins = values.decoded(RatesFetcherAPI.coins, under: RatesFetcherAPI.coins.prefix + "coingecko.").map(\.value)
        guard let coin = coins.first(where: { $0.symbol.uppercased() == asset }) else {
            let known = coins.map { $0.symbol.uppercased() }.sorted().joined(separator: ", ")
            throw RPCError.notFound("no price history for \(asset): CoinGecko knows \(known.isEmpty ? "no coins yet" : known)")
        }
        return coin.id
    }
}
