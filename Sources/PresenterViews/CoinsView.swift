import Foundation
import TickwireContract
import Money

/// The coin list: name, price in the display currency (USD by default, SEK switchable) and 24 h change.
public struct CoinsView: Codable, Sendable, Equatable {
    /// Which screen this is (`coins`): what a client reads to know the view's shape.
    public var screen = "coins"
    /// One coin.
    public struct Row: Codable, Sendable, Equatable {
        /// Ticker symbol, e.g. "BTC".
        public var symbol: String
        /// Display name.
        public var name: String
        /// Logo URL, if known.
        public var image: String?
        /// The price in the display currency, or nil when there is none.
        public var price: DisplayAmount?
        /// What the price cell says: the formatted price, or "no price".
        public var priceText: String
        /// The 24 h change as a signed percentage, if known.
        public var change24h: DisplayAmount?
        /// Which way the 24 h change went.
        public var trend: Trend?
        /// Whether the coin is on the watch list.
        public var watched: Bool
        /// When the price was quoted, ISO 8601, if known.
        public var priceTime: String?
        /// Whether rates-fetcher polls the coin on CoinGecko, so it can be removed from the list (nil: not said).
        public var tracked: Bool?
    }

    /// The reader's locale.
    public var locale: String
    /// The display currency, e.g. "USD".
    public var currency: String?
    /// The coins, in the order given.
    public var rows: [Row]
    /// Messages to show above the list: missing and stale prices, feed trouble.
    public var notices: [String]
    /// The age of the oldest price shown, when known.
    public var dataAge: DataAge?
    /// Coins CoinGecko lists that are not tracked yet, to suggest in the add box (nil: none offered).
    public var suggestions: [KnownCoin]?

    /// What a row says when no price is known: never 0.
    public static let noPrice = "no price"

    /// Builds the list. A price not in the context's currency is not shown (it is named in a notice). A coin
    /// whose symbol is in `tracked` (CoinGecko's coins) can be removed; `suggestions` fill the add box.
    public static func make(
        coins: [CoinSnapshot], context: ViewContext, notices: [String] = [], tracked: Set<String> = [], suggestions: [KnownCoin] = []
    ) -> CoinsView {
        var allNotices = notices
        let usable = coins.map { usablePrice($0.price, currency: context.currency) }
        let wrongCurrency = zip(coins, usable).filter { $0.0.price != nil && $0.1 == nil }.map(\.0.symbol)
        if !wrongCurrency.isEmpty {
            allNotices.append("Prices for \(wrongCurrency.joined(separator: ", ")) came in another currency than \(context.currency) and are not shown.")
        }
        let missing = zip(coins, usable).filter { $0.0.price == nil }.map(\.0.symbol)
        if !missing.isEmpty {
            allNotices.append("No \(context.currency) price yet for \(missing.joined(separator: ", ")).")
        }
        let age = DataAge.oldest(usable.compactMap { $0?.quoteTime }, now: context.now, locale: context.locale)
        allNotices += Notices.staleness(age, what: "Prices")
        if coins.isEmpty { allNotices.append("No coins to show.") }
        let rows = zip(coins, usable).map { coin, price in
            var row = row(coin, price: price, locale: context.locale)
            row.tracked = tracked.contains(coin.symbol)
            return row
        }
        return CoinsView(
            locale: context.locale, currency: context.currency, rows: rows, notices: allNotices, dataAge: age,
            suggestions: suggestions)
    }

    /// `price` if it is in `currency`, else nil.
    public static func usablePrice(_ price: AssetPrice?, currency: String) -> AssetPrice? {
        guard let price, price.currency.uppercased() == currency.uppercased() else { return nil }
        return price
    }

    private static func row(_ coin: CoinSnapshot, price: AssetPrice?, locale: String) -> Row {
        let shown = price.map { DisplayAmount.price($0.price, code: $0.currency, locale: locale) }
        let change = price?.changePercent24h ?? coin.change24h
        return Row(
            symbol: coin.symbol, name: coin.name, image: coin.image, price: shown,
            priceText: shown?.text ?? noPrice,
            change24h: change.map { DisplayAmount.percent($0, locale: locale) },
            trend: change.map { Trend($0, fractionDigits: DisplayAmount.percentDigits) },
            watched: coin.watched, priceTime: price?.quoteTime.map(DisplayDate.iso)
        )
    }
}
