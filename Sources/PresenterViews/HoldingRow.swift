import TickwireContract
import Money

/// What the user holds of one asset, as the portfolio and coin screens show it.
public struct HoldingRow: Codable, Sendable, Equatable {
    /// The asset, e.g. "BTC".
    public var asset: String
    /// Units held, with the asset's digits (8 for crypto).
    public var amount: DisplayAmount
    /// How many trades make it up.
    public var trades: Int
    /// The price per unit used, if known.
    public var price: DisplayAmount?
    /// The value (amount × price), if the price is known.
    public var value: DisplayAmount?
    /// What the trades cost, if every one could be converted.
    public var cost: DisplayAmount?
    /// Value less cost with its sign ("+$120.00"), when both are known.
    public var gain: DisplayAmount?
    /// Which way the gain went.
    public var trend: Trend?
    /// When the price was last updated, ISO 8601, if known.
    public var priceTime: String?

    /// The row for `holding`, valued in `currency`.
    public static func make(_ holding: Holding, currency: String, locale: String) -> HoldingRow {
        let digits = Precision.digits(forCode: currency)
        return HoldingRow(
            asset: holding.asset,
            amount: .money(holding.amount, code: holding.asset, locale: locale),
            trades: holding.trades,
            price: holding.price.map { DisplayAmount.price($0, code: currency, locale: locale) },
            value: holding.value.map { DisplayAmount.money($0, code: currency, locale: locale) },
            cost: holding.cost.map { DisplayAmount.money($0, code: currency, locale: locale) },
            gain: holding.gain.map { DisplayAmount.signedMoney($0, code: currency, locale: locale) },
            trend: holding.gain.map { Trend($0, fractionDigits: digits) },
            priceTime: holding.priceTime.map(DisplayDate.iso)
        )
    }
}
