import Money

/// A set of fiat exchange rates from one base currency, as one source published them for one day.
public struct FiatRates: Sendable, Hashable, Codable {
    /// Who published them: "ecb" (through Frankfurter) or "fixer".
    public var source: String
    /// The currency every rate starts from, e.g. "EUR".
    public var base: String
    /// The day the rates are for, ISO 8601 ("2025-06-20").
    public var date: String
    /// One rate per other currency, each `from` the base, sorted by `to`.
    public var rates: [ExchangeRate]

    /// A set of rates.
    public init(source: String, base: String, date: String, rates: [ExchangeRate]) {
        self.source = source
        self.base = base
        self.date = date
        self.rates = rates
    }
}
