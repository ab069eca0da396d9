import Money

/// An order book an exchange trades, with its order limits (Bitso's "available book").
public struct BookInfo: Sendable, Hashable, Codable {
    /// The exchange's id for the book, e.g. "btc_mxn".
    public var book: String
    /// The pair the book trades.
    public var market: MarketPair
    /// Smallest order, in the base currency.
    public var minimumAmount: ExactDecimal
    /// Largest order, in the base currency.
    public var maximumAmount: ExactDecimal
    /// Lowest accepted price, in the quote currency.
    public var minimumPrice: ExactDecimal
    /// Highest accepted price, in the quote currency.
    public var maximumPrice: ExactDecimal
    /// Smallest order value, in the quote currency.
    public var minimumValue: ExactDecimal
    /// Largest order value, in the quote currency.
    public var maximumValue: ExactDecimal

    /// A book with its limits.
    public init(
        book: String, market: MarketPair,
        minimumAmount: ExactDecimal, maximumAmount: ExactDecimal,
        minimumPrice: ExactDecimal, maximumPrice: ExactDecimal,
        minimumValue: ExactDecimal, maximumValue: ExactDecimal
    ) {
        self.book = book
        self.market = market
        self.minimumAmount = minimumAmount
        self.maximumAmount = maximumAmount
        self.minimumPrice = minimumPrice
        self.maximumPrice = maximumPrice
        self.minimumValue = minimumValue
        self.maximumValue = maximumValue
    }
}
