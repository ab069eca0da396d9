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
        guard let graph = marketGraph(&book) else { return [] }
        var prices: [AssetPrice] = []
        for asset in pricedAssets(book) {
            let quotes = referenceQuotes(of: asset, in: book)
            for currency in currencies where currency != asset {
                if let price = price(of: asset, in: currency, graph: graph, quotes: quotes, book: book).price { prices.append(price) }
            }
        }
        return prices
    }

    /// One asset's price in one currency, and what it was read from.
    struct Repriced {
        /// What a price depends on besides the asset's quotes.
        enum Dependence: Equatable {
            /// The graph's shape only: there is no path, and only a reshaped graph can give one.
            case shape
            /// The rates along this path (the path itself depends on the shape only).
            case path([String])
            /// Any rate: the fraction along the path did not fit, and another rate anywhere on it may make it fit.
            case everyRate
        }

        /// The price, nil when it cannot be had.
        var price: AssetPrice?
        /// What can change it.
        var dependence: Dependence
    }

    /// The `market` graph, or nil when there is no quote or the graph cannot be built.
    static func marketGraph(_ book: inout RateBook) -> RateGraph? {
        guard !book.quotedAssets.isEmpty else { return nil }
        return try? book.graph(for: RateBook.marketSource)
    }

    /// The quoted assets that get prices: every base of a quote that is not an ISO fiat, sorted.
    static func pricedAssets(_ book: RateBook) -> [String] {
        book.quotedAssets.filter(isPriced)
    }

    /// Whether `asset` gets prices: it is not an ISO fiat.
    static func isPriced(_ asset: String) -> Bool { Currency.iso(asset) == nil }

    /// The preferred quotes of `asset`'s pairs in the order their 24 h change and time are taken from.
    static func referenceQuotes(of asset: String, in book: RateBook) -> [Quote] {
        book.referenceQuotes(of: asset)
    }

    /// `asset` in `currency` through `graph`, its 24 h change and time from the first of `quotes` in
    /// `currency`, else the first; its source is that of the path's first edge in `book` (the fiat source's
    /// when no quote gives it).
    static func price(of asset: String, in currency: String, graph: RateGraph, quotes: [Quote], book: RateBook) -> Repriced {
        let rate: DerivedRate
        do {
            rate = try graph.rate(from: asset, to: currency)
        } catch {
            if case .overflow = error { return Repriced(price: nil, dependence: .everyRate) }
            return Repriced(price: nil, dependence: .shape)
        }
        guard let price = try? rate.convert(1, scale: priceScale) else { return Repriced(price: nil, dependence: .path(rate.path)) }
        let reference = quotes.first { $0.market.quote == currency } ?? quotes.first
        return Repriced(
            price: AssetPrice(
                asset: asset, currency: currency, price: price,
                changePercent24h: reference?.changePercent24h, path: rate.path, quoteTime: reference?.time,
                source: rate.path.count > 1 ? book.edgeSource(from: rate.path[0], to: rate.path[1]) ?? book.fiatSource : nil),
            dependence: .path(rate.path))
    }
}
