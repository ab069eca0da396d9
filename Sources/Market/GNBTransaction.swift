import Money

/// One sale of a product, as the GNB ("International Business Men") service lists it.
public struct GNBTransaction: Sendable, Hashable, Codable {
    /// The product's stock-keeping unit, e.g. "T2006".
    public var sku: String
    /// What it sold for.
    public var amount: ExactDecimal
    /// The currency of `amount`, e.g. "USD".
    public var currency: String

    /// A transaction.
    public init(sku: String, amount: ExactDecimal, currency: String) {
        self.sku = sku
        self.amount = amount
        self.currency = currency
    }
}
