/// `view {screen, locale?, currency?, filter?, scope?, symbol?, book?, sku?, range?, portfolio?}` over REP.
public struct ViewRequest: Codable, Sendable, Equatable {
    /// assets, wallets, coins, coin, portfolio, books, book, products or product.
    public var screen: String
    /// A locale such as `de_AT` (default en_US).
    public var locale: String?
    /// The display currency (default USD).
    public var currency: String?
    /// The assets filter: all, crypto, commodity, fiat.
    public var filter: String?
    /// The coins scope: all or watchlist.
    public var scope: String?
    /// The coin of the `coin` screen.
    public var symbol: String?
    /// The book of the `book` screen, e.g. `btc_mxn`.
    public var book: String?
    /// The product of the `product` screen.
    public var sku: String?
    /// The performance range of the `portfolio` screen: 1D, 7D, 30D, YTD, 1Y or Max (the default); the chart range of
    /// the `coin` screen: 1D, 7D, 30D (the default) or 1Y.
    public var range: String?
    /// The portfolio of the `portfolio` and `coin` screens (`main` when absent).
    public var portfolio: String?

    /// A request for `screen`; only the parameters that screen reads matter.
    public init(screen: String, locale: String? = nil, currency: String? = nil, filter: String? = nil, scope: String? = nil,
                symbol: String? = nil, book: String? = nil, sku: String? = nil, range: String? = nil, portfolio: String? = nil) {
        self.screen = screen
        self.locale = locale
        self.currency = currency
        self.filter = filter
        self.scope = scope
        self.symbol = symbol
        self.book = book
        self.sku = sku
        self.range = range
        self.portfolio = portfolio
    }

    /// The screen's parameters by name, as the HTTP query gives them.
    public var parameters: [String: String] {
        ["filter": filter, "scope": scope, "symbol": symbol, "book": book, "sku": sku, "range": range, "portfolio": portfolio].compactMapValues { $0 }
    }
}

