import Market
import TickwireContract
import Money

/// Re-pricing assets into display currencies.
public enum Pricing {
    /// Places kept in a published price.
    public static let priceScale = 8

    /// Every quoted asset that is not an ISO fiat, priced in each currency through the
    /// `market` graph; pairs without a path are left out, never given a rate of 1.
    public static func prices(in currencies: [String], book: inout RateBook) -> [AssetPrice] {
        let quotes = book.preferredQuotes
        guard !quotes.isEmpty, let graph = try? book.graph(for: RateBook.marketSource) else { return [] }
        let assets = Set(quotes.map(\.market.base)).filter { Currency.iso($0) == nil }.sorted()
        var prices: [AssetPrice] = []
        for asset in assets {
            let assetQuotes = quotes.filter { $0.market.base == asset }.sorted { feedRank($0.source) < feedRank($1.source) }
            for currency in currencies where currency != asset {
                guard let rate = try? graph.rate(from: asset, to: currency),
                      let price = try? rate.convert(1, scale: priceScale) else { continue }
                let reference = assetQuotes.first { $0.market.quote == currency } ?? assetQuotes.first
                prices.append(AssetPrice(
                    asset: asset, currency: currency, price: price,
                    changePercent24h: reference?.changePercent24h, path: rate.path, quoteTime: reference?.time))
            }
        }
        return prices
    }

    /// A feed's place in ``RateBook/quotePreference``; unknown feeds come last.
    private static func feedRank(_ feed: String) -> Int {
        RateBook.quotePreference.firstIndex(of: feed) ?? RateBook.quotePreference.count
    }
}
