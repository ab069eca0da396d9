import Foundation
import TickwireContract
import Money

/// The portfolio: trades, holdings valued in the display currency, and totals; works from stored prices offline.
public struct PortfolioView: Codable, Sendable, Equatable {
    /// Which screen this is (`portfolio`): what a client reads to know the view's shape.
    public var screen = "portfolio"
    /// One trade.
    public struct TradeRow: Codable, Sendable, Equatable {
        /// The trade's id.
        public var id: String
        /// What it does: `buy`, `sell`, `fee`, `transfer_in` or `transfer_out`.
        public var kind: String
        /// What it does, for the reader: "Buy", "Transfer in".
        public var kindText: String
        /// The asset concerned, e.g. "BTC".
        public var asset: String
        /// Units bought, with the asset's digits.
        public var amount: DisplayAmount
        /// Price per unit, in the trade's currency.
        public var price: DisplayAmount
        /// The fee paid (a fee activity's amount), in its currency.
        public var fee: DisplayAmount?
        /// When it happened, ISO 8601 UTC.
        public var date: String
        /// When it happened, for the reader: "15. Juni 2025" (de_AT).
        public var dateText: String

        /// A row from its parts.
        public init(
            id: String, kind: String, kindText: String, asset: String, amount: DisplayAmount, price: DisplayAmount, fee: DisplayAmount?,
            date: String, dateText: String
        ) {
            self.id = id
            self.kind = kind
            self.kindText = kindText
            self.asset = asset
            self.amount = amount
            self.price = price
            self.fee = fee
            self.date = date
            self.dateText = dateText
        }

        /// A row from its JSON; one without `kind` (from a presenter before activities) is a buy, as a trade's is.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            id = try container.decode(String.self, forKey: .id)
            kind = try container.decodeIfPresent(String.self, forKey: .kind) ?? ActivityKind.buy.rawValue
            kindText = try container.decodeIfPresent(String.self, forKey: .kindText) ?? PortfolioView.kindText(.buy)
            asset = try container.decode(String.self, forKey: .asset)
            amount = try container.decode(DisplayAmount.self, forKey: .amount)
            price = try container.decode(DisplayAmount.self, forKey: .price)
            fee = try container.decodeIfPresent(DisplayAmount.self, forKey: .fee)
            date = try container.decode(String.self, forKey: .date)
            dateText = try container.decode(String.self, forKey: .dateText)
        }
    }

    /// The portfolio shown, e.g. "main" (absent in a view from a presenter of one portfolio, which showed "main").
    public var portfolio: String?
    /// Every portfolio to switch to, "main" first (the portfolio's `portfolios.list`); absent when it could not be listed.
    public var portfolios: [PortfolioSummary]?
    /// The trades, newest first.
    public var trades: [TradeRow]
    /// One row per asset held, in the valuation's order.
    public var holdings: [HoldingRow]
    /// The sum of the known values.
    public var totalValue: DisplayAmount
    /// The sum of the known costs.
    public var totalCost: DisplayAmount
    /// Total value less total cost, with its sign.
    public var totalGain: DisplayAmount
    /// Which way the total gain went.
    public var trend: Trend
    /// Realized and unrealized gains per asset and in total, when the portfolio could work them out.
    public var gains: GainsSection?
    /// The time-weighted returns and the value chart, when the portfolio could work them out.
    public var performance: PerformanceSection?
    /// Whether the converter is unreachable and stored prices were used.
    public var offline: Bool
    /// The reader's locale.
    public var locale: String
    /// The valuation currency.
    public var currency: String?
    /// Messages to show: offline and stale prices, what could not be valued.
    public var notices: [String]
    /// The age of the oldest price used, when known.
    public var dataAge: DataAge?

    /// The name of the portfolio a request without one acts on: the contract's ``Trade/mainPortfolio``.
    public static let mainPortfolio = Trade.mainPortfolio

    /// Builds the screen of `portfolio` from the portfolio's `holdings` answer and the user's trades, with its `gains` and
    /// `performance` answers when they came, and the portfolios to switch to.
    public static func make(
        valuation: Valuation, trades: [Trade], context: ViewContext, notices: [String] = [], gains: PortfolioGains? = nil,
        performance: PortfolioPerformance? = nil, portfolio: String = mainPortfolio, portfolios: [PortfolioSummary]? = nil
    ) -> PortfolioView {
        let locale = context.locale
        let currency = valuation.currency
        let age: DataAge? = if let asOf = valuation.pricesAsOf {
            DataAge(asOf: asOf, now: context.now, locale: locale)
        } else {
            nil
        }
        let ageText = valuation.priceAgeSeconds.map(DataAge.describe(seconds:)) ?? age?.text
        var allNotices = notices
        if valuation.offline {
            allNotices.append(ageText.map { "Prices are \($0) old: the converter is unreachable." }
                ?? "Prices come from local storage: the converter is unreachable.")
        } else if let seconds = valuation.priceAgeSeconds ?? age?.seconds, seconds > DataAge.staleAfterSeconds {
            allNotices.append("Prices are \(DataAge.describe(seconds: seconds)) old.")
        }
        allNotices += valuation.warnings
        if trades.isEmpty { allNotices.append("No trades yet: add one from a coin's page.") }
        let newestFirst = trades.enumerated().sorted { $0.element.date == $1.element.date ? $0.offset < $1.offset : $0.element.date > $1.element.date }
        return PortfolioView(
            portfolio: portfolio, portfolios: portfolios,
            trades: newestFirst.map { row($0.element, locale: locale) },
            holdings: valuation.holdings.map { HoldingRow.make($0, currency: currency, locale: locale) },
            totalValue: .money(valuation.totalValue, code: currency, locale: locale),
            totalCost: .money(valuation.totalCost, code: currency, locale: locale),
            totalGain: .signedMoney(valuation.totalGain, code: currency, locale: locale),
            trend: Trend(valuation.totalGain, fractionDigits: Precision.digits(forCode: currency)),
            gains: gains.map { GainsSection.make($0, locale: locale) },
            performance: performance.map { PerformanceSection.make($0, locale: locale) },
            offline: valuation.offline, locale: locale, currency: currency, notices: allNotices, dataAge: age
        )
    }

    /// An activity's kind as the screen names it.
    public static func kindText(_ kind: ActivityKind) -> String {
        switch kind {
        case .buy: "Buy"
        case .sell: "Sell"
        case .fee: "Fee"
        case .transferIn: "Transfer in"
        case .transferOut: "Transfer out"
        }
    }

    /// An activity as the screen shows it, in `locale`.
    public static func row(_ trade: Trade, locale: String) -> TradeRow {
        TradeRow(
            id: trade.id, kind: trade.kind.rawValue, kindText: kindText(trade.kind), asset: trade.asset,
            amount: .money(trade.amount, code: trade.asset, locale: locale),
            price: .price(trade.price, code: trade.currency, locale: locale),
            fee: trade.fee.map { DisplayAmount.money($0.amount, code: $0.currency, locale: locale) },
            date: DisplayDate.iso(trade.date), dateText: DisplayDate.day(trade.date, locale: locale)
        )
    }
}
