import Bus
import Feeds
import Foundation
import Market
import TickwireContract
import Money

/// Price histories from CoinGecko, kept for five minutes so repeated chart views do not
/// hit the API's rate limit.
actor HistoryCache {
    private let coingecko: CoinGeckoClient
    private let publisher: Publisher
    private var entries: [String: (history: PriceHistory, fetched: ContinuousClock.Instant)] = [:]
    private let lifetime: Duration = .seconds(300)

    init(coingecko: CoinGeckoClient, publisher: Publisher) {
        self.coingecko = coingecko
        self.publisher = publisher
    }

    func history(_ request: HistoryRequest) async throws -> PriceHistory {
        let asset = request.asset.uppercased()
        let currency = try Currency(code: request.currency ?? "USD").code
        let days = request.days ?? 30
        guard (1...365).contains(days) else { throw RPCError.invalidParams("days must be 1 to 365, got \(days)") }
        let key = "\(asset)|\(currency)|\(days)"
        if let cached = entries[key], ContinuousClock.now - cached.fetched < lifetime { return cached.history }
        let id = try coinID(of: asset)
        var history = try await coingecko.history(id, currency.lowercased(), days)
        history.asset = asset
        history.currency = currency
        entries[key] = (history, ContinuousClock.now)
        return history
    }

    /// The CoinGecko id of `asset`, from the coins the feed has published.
    private func coinID(of asset: String) throws -> String {
        let coins = publisher.snapshot(prefix: RatesFetcherAPI.coins.prefix + "coingecko.").entries.compactMap { entry in
            try? BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8)).decode(RatesFetcherAPI.coins)?.data
        }
        guard let coin = coins.first(where: { $0.symbol.uppercased() == asset }) else {
            let known = coins.map { $0.symbol.uppercased() }.sorted().joined(separator: ", ")
            throw RPCError.notFound("no price history for \(asset): CoinGecko knows \(known.isEmpty ? "no coins yet" : known)")
        }
        return coin.id
    }
}
