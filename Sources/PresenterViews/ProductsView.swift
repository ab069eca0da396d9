import Foundation
import TickwireContract

/// The GNB products: each SKU and how many transactions it has.
public struct ProductsView: Codable, Sendable, Equatable {
    /// Which screen this is (`products`): what a client reads to know the view's shape.
    public var screen = "products"
    /// One product.
    public struct Row: Codable, Sendable, Equatable {
        /// The SKU, e.g. "T2006".
        public var sku: String
        /// How many transactions it has.
        public var transactions: Int
    }

    /// The products, in the order given.
    public var rows: [Row]
    /// The reader's locale.
    public var locale: String
    /// The currency product totals are shown in.
    public var currency: String?
    /// Messages to show.
    public var notices: [String]
    /// How old the transaction list is, when known.
    public var dataAge: DataAge?

    /// Builds the list; `currency` is the totals' currency (EUR unless asked otherwise), `asOf` when the transactions were read.
    public static func make(
        products: [ProductSummary], currency: String = "EUR", context: ViewContext, asOf: Date? = nil, notices: [String] = []
    ) -> ProductsView {
        ProductsView(
            rows: products.map { Row(sku: $0.sku, transactions: $0.transactions) },
            locale: context.locale, currency: currency,
            notices: notices + (products.isEmpty ? ["No products to show."] : []),
            dataAge: asOf.map { DataAge(asOf: $0, now: context.now, locale: context.locale) }
        )
    }
}
