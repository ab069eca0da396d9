import PresenterViews

extension ViewSources {
    /// What a presenter asks `portfolio` and `fetcher` for.
    public init(portfolio: PortfolioClient, fetcher: RatesFetcherClient) {
        self.init(
            wallets: portfolio.wallets, holdings: portfolio.holdings, trades: portfolio.trades, products: portfolio.products,
            product: portfolio.product, watchlist: portfolio.watchlist, history: fetcher.history)
    }
}
