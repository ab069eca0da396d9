/// An amount in a currency, e.g. 12.50 EUR. Codable as `{"amount":"12.50","currency":"EUR"}`.
public struct CurrencyAmount: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The exact amount.
    public var amount: ExactDecimal
    /// The currency code, e.g. "EUR".
    public var currency: String

    /// An amount of `amount` in `currency`.
    public init(amount: ExactDecimal, currency: String) {
        self.amount = amount
        self.currency = currency
    }

    /// The amount then the code: "12.50 EUR".
    public var description: String { "\(amount) \(currency)" }
}

/// One rate as a source gives it: 1 `from` = `rate` `to`. Codable as `{"from":"EUR","to":"USD","rate":"1.359"}`.
public struct ExchangeRate: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The currency being priced.
    public var from: String
    /// The currency the price is in.
    public var to: String
    /// How many `to` one `from` buys.
    public var rate: ExactDecimal

    /// The rate 1 `from` = `rate` `to`.
    public init(from: String, to: String, rate: ExactDecimal) {
        self.from = from
        self.to = to
        self.rate = rate
    }

    /// "1 EUR = 1.359 USD".
    public var description: String { "1 \(from) = \(rate) \(to)" }
}
