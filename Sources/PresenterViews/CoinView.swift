import Foundation
import Market
import TickwireContract
import Money

/// One coin in detail: price, change, market data, a 30-day chart and the user's holding of it.
public struct CoinView: Codable, Sendable, Equatable {
    /// Which screen this is (`coin`): what a client reads to know the view's shape.
    public var screen = "coin"
    /// How many units exist.
    public struct Supply: Codable, Sendable, Equatable {
        /// Units in circulation.
        public var circulating: DisplayAmount?
        /// Units that exist.
        public var total: DisplayAmount?
        /// Units that can ever exist.
        public var max: DisplayAmount?
    }

    /// Ticker symbol, e.g. "BTC".
    public var symbol: String
    /// Display name.
    public var name: String
    /// Logo URL, if known.
    public var image: String?
    /// The price in the display currency, or nil when there is none.
    public var price: DisplayAmount?
    /// What the price says: the formatted price, or "no price".
    public var priceText: String
    /// The 24 h change as a signed percentage, if known.
    public var change24h: DisplayAmount?
    /// Which way the 24 h change went.
    public var trend: Trend?
    /// Market capitalisation in the display currency (whole units).
    public var marketCap: DisplayAmount?
    /// Rank by market capitalisation, 1 the largest.
    public var rank: Int?
    /// Value traded in 24 hours in the display currency (whole units), or else units of the coin traded.
    public var volume: DisplayAmount?
    /// Highest price in 24 hours.
    public var high24h: DisplayAmount?
    /// Lowest price in 24 hours.
    public var low24h: DisplayAmount?
    /// Highest price ever.
    public var allTimeHigh: DisplayAmount?
    /// The best price a seller is asking.
    public var ask: DisplayAmount?
    /// The best price a buyer is bidding.
    public var bid: DisplayAmount?
    /// How the market data came into the display currency, e.g. "MXN → USD via ECB rate of 2026-11-24";
    /// nil when the source quotes it in the display currency.
    public var marketNote: String?
    /// Circulating, total and maximum supply (whole units).
    public var supply: Supply
    /// The price history to draw, when there is one in the display currency.
    public var chart: ChartData?
    /// How the history came into the display currency (converted from the source's, at which rate); nil
    /// when the source has it in the display currency.
    public var chartNote: String?
    /// The price the trade form suggests, by currency: the coin's own current price in each display currency.
    public var tradePrices: [String: ExactDecimal]
    /// The user's holding of the coin in ``portfolio``, if any.
    public var holding: HoldingRow?
    /// The portfolio the holding is of and the trade form adds to, e.g. "main" (absent in a view from a presenter of one
    /// portfolio, which was "main").
    public var portfolio: String?
    /// Whether the coin is on the watch list.
    public var watched: Bool
    /// The reader's locale.
    public var locale: String
    /// The display currency.
    public var currency: String?
    /// Messages to show: missing or stale data, feed trouble.
    public var notices: [String]
    /// The age of the price shown, when known.
    public var dataAge: DataAge?

    /// Builds the detail. `quote` (market data) and `history` count only if priced in the context's currency;
    /// `holding` must be valued in it (ask the portfolio with that currency). The price is the converter's,
    /// else the quote's last price; the 24 h change the price's, else the quote's, else the coin's.
    /// `marketNote` and `chartNote` say how the quote and history were converted, `tradePrices` what the trade
    /// form suggests in each currency; `holding` is of `portfolio`. `candlesFrom` is where the history's candles
    /// follow its older points, which the chart marks.
    public static func make(
        coin: CoinSnapshot, quote: Quote?, history: PriceHistory?, holding: Holding?,
        context: ViewContext, notices: [String] = [], marketNote: String? = nil, chartNote: String? = nil, candlesFrom: Date? = nil,
        tradePrices: [String: ExactDecimal] = [:], portfolio: String = PortfolioView.mainPortfolio
    ) -> CoinView {
        let locale = context.locale
        let currency = context.currency
        var allNotices = notices
        let market = quote.flatMap { $0.market.quote == currency.uppercased() ? $0 : nil }
        if let quote, market == nil {
            allNotices.append("Market data for \(coin.symbol) is in \(quote.market.quote), not \(currency); it is not shown.")
        }
        let converted = CoinsView.usablePrice(coin.price, currency: currency)
        let priceValue = converted?.price ?? market?.last
        if priceValue == nil { allNotices.append("No \(currency) price yet for \(coin.symbol).") }
        let change = converted?.changePercent24h ?? market?.changePercent24h ?? coin.change24h
        let price = priceValue.map { DisplayAmount.price($0, code: currency, locale: locale) }
        var chart: ChartData?
        if let history {
            chart = chartData(history, symbol: coin.symbol, candlesFrom: candlesFrom, context: context, notices: &allNotices)
        } else {
            allNotices.append("No price history for \(coin.symbol) yet.")
        }
        let age = (converted?.quoteTime ?? market?.time).map { DataAge(asOf: $0, now: context.now, locale: locale) }
        allNotices += Notices.staleness(age, what: "Prices")
        func whole(_ value: ExactDecimal?) -> DisplayAmount? {
            value.map { DisplayAmount.money($0, code: currency, locale: locale, fractionDigits: 0) }
        }
        func units(_ value: ExactDecimal?) -> DisplayAmount? {
            value.map { DisplayAmount.number($0, locale: locale, fractionDigits: 0) }
        }
        func pricing(_ value: ExactDecimal?) -> DisplayAmount? {
            value.map { DisplayAmount.price($0, code: currency, locale: locale) }
        }
        let tradedUnits: DisplayAmount? = market?.volume.map { DisplayAmount.money($0, code: coin.symbol, locale: locale) }
        let supply = Supply(circulating: units(market?.circulatingSupply), total: units(market?.totalSupply), max: units(market?.maxSupply))
        let changeText: DisplayAmount? = change.map { DisplayAmount.percent($0, locale: locale) }
        let trend: Trend? = change.map { Trend($0, fractionDigits: DisplayAmount.percentDigits) }
        let holdingRow: HoldingRow? = holding.map { HoldingRow.make($0, currency: currency, locale: locale) }
        return CoinView(
            symbol: coin.symbol, name: coin.name, image: coin.image,
            price: price, priceText: price?.text ?? CoinsView.noPrice,
            change24h: changeText, trend: trend,
            marketCap: whole(market?.marketCap), rank: market?.marketCapRank,
            volume: whole(market?.quoteVolume) ?? tradedUnits,
            high24h: pricing(market?.high), low24h: pricing(market?.low), allTimeHigh: pricing(market?.allTimeHigh),
            ask: pricing(market?.ask), bid: pricing(market?.bid), marketNote: market == nil ? nil : marketNote,
            supply: supply, chart: chart, chartNote: chart == nil ? nil : chartNote, tradePrices: tradePrices, holding: holdingRow,
            portfolio: portfolio, watched: coin.watched, locale: locale, currency: currency, notices: allNotices, dataAge: age
        )
    }

    private static func chartData(_ history: PriceHistory, symbol: String, candlesFrom: Date?, context: ViewContext, notices: inout [String]) -> ChartData? {
        guard history.currency.uppercased() == context.currency.uppercased() else {
            notices.append("The price history of \(symbol) is in \(history.currency), not \(context.currency); it is not shown.")
            return nil
        }
        guard let chart = ChartData.make(history: history, locale: context.locale, candlesFrom: candlesFrom) else {
            notices.append("The price history of \(symbol) has no points yet.")
            return nil
        }
        return chart
    }
}
