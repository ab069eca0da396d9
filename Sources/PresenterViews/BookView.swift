import Foundation
import Market
import Money

/// One book's ticker (Bitso): last price, volume, high, low, 24 h change and VWAP, with ask and bid apart.
public struct BookView: Codable, Sendable, Equatable {
    /// Which screen this is (`book`): what a client reads to know the view's shape.
    public var screen = "book"
    /// The exchange's id, e.g. "btc_mxn".
    public var book: String
    /// The name shown, e.g. "BTC MXN".
    public var name: String
    /// The last traded price.
    public var last: DisplayAmount
    /// Units of the base currency traded in 24 hours.
    public var volume: DisplayAmount?
    /// Highest price in 24 hours.
    public var high: DisplayAmount?
    /// Lowest price in 24 hours.
    public var low: DisplayAmount?
    /// Price change over 24 hours, with its sign.
    public var change24h: DisplayAmount?
    /// Price change over 24 hours in percent: the source's, or else computed from the change and the last price.
    public var changePercent24h: DisplayAmount?
    /// Which way the price went in 24 hours.
    public var trend: Trend?
    /// Volume-weighted average price over 24 hours.
    public var vwap: DisplayAmount?
    /// Lowest price a seller asks.
    public var ask: DisplayAmount?
    /// Highest price a buyer bids.
    public var bid: DisplayAmount?
    /// The reader's locale.
    public var locale: String
    /// The book's quote currency, e.g. "MXN".
    public var currency: String?
    /// Messages to show: stale ticker, feed trouble.
    public var notices: [String]
    /// How old the ticker is, when the exchange timed it.
    public var dataAge: DataAge?

    /// Builds the detail of `quote`; `book` is the exchange's id (default: "btc_mxn" style from the pair).
    public static func make(quote: Quote, book: String? = nil, context: ViewContext, notices: [String] = []) -> BookView {
        let locale = context.locale
        let code = quote.market.quote
        func price(_ value: ExactDecimal?) -> DisplayAmount? {
            value.map { DisplayAmount.price($0, code: code, locale: locale) }
        }
        let percent = quote.changePercent24h ?? quote.change24h.flatMap { change in
            (try? quote.last - change).flatMap { PercentChange.between($0, quote.last) }
        }
        let age = quote.time.map { DataAge(asOf: $0, now: context.now, locale: locale) }
        return BookView(
            book: book ?? "\(quote.market.base.lowercased())_\(quote.market.quote.lowercased())",
            name: quote.market.displayName,
            last: .price(quote.last, code: code, locale: locale),
            volume: quote.volume.map { DisplayAmount.money($0, code: quote.market.base, locale: locale) },
            high: price(quote.high), low: price(quote.low),
            change24h: quote.change24h.map { DisplayAmount.signedMoney($0, code: code, locale: locale, fractionDigits: Precision.priceDigits(quote.last, code: code)) },
            changePercent24h: percent.map { DisplayAmount.percent($0, locale: locale) },
            trend: (percent ?? quote.change24h).map { Trend($0, fractionDigits: DisplayAmount.percentDigits) },
            vwap: price(quote.vwap), ask: price(quote.ask), bid: price(quote.bid),
            locale: locale, currency: code, notices: notices + Notices.staleness(age, what: "Ticker figures"), dataAge: age
        )
    }
}
