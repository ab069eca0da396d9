import Foundation
import TickwireContract

/// One GNB product: each transaction in its own currency and converted, with the rate path, and the total.
public struct ProductView: Codable, Sendable, Equatable {
    /// Which screen this is (`product`): what a client reads to know the view's shape.
    public var screen = "product"
    /// One transaction.
    public struct TransactionRow: Codable, Sendable, Equatable {
        /// The amount as sold, in its currency.
        public var original: DisplayAmount
        /// The amount in the total's currency, rounded half-even to its minor units.
        public var converted: DisplayAmount
        /// The currencies the rate went through, from the sale's to the total's.
        public var path: [String]
        /// The path for people: "AUD → CAD → EUR"; "—" when no conversion was needed.
        public var pathText: String
    }

    /// The SKU, e.g. "T2006".
    public var sku: String
    /// The transactions, in the order given.
    public var transactions: [TransactionRow]
    /// The sum of the rounded conversions: the `#total`.
    public var total: DisplayAmount
    /// The reader's locale.
    public var locale: String
    /// The total's currency, e.g. "EUR".
    public var currency: String?
    /// Messages to show.
    public var notices: [String]
    /// How old the rates and transactions are, when known.
    public var dataAge: DataAge?

    /// Builds the detail of the converter's product answer. `asOf` is when rates and transactions were read.
    public static func make(detail: ProductDetail, context: ViewContext, asOf: Date? = nil, notices: [String] = []) -> ProductView {
        let locale = context.locale
        let rows = detail.transactions.map { item in
            TransactionRow(
                original: .money(item.amount, code: item.currency, locale: locale),
                converted: .money(item.converted, code: detail.currency, locale: locale),
                path: item.path,
                pathText: item.path.count > 1 ? item.path.joined(separator: " → ") : "—"
            )
        }
        return ProductView(
            sku: detail.sku, transactions: rows,
            total: .money(detail.total, code: detail.currency, locale: locale),
            locale: locale, currency: detail.currency,
            notices: notices + (rows.isEmpty ? ["\(detail.sku) has no transactions."] : []),
            dataAge: asOf.map { DataAge(asOf: $0, now: context.now, locale: locale) }
        )
    }
}
