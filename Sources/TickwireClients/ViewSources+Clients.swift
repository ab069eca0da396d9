import PresenterViews

extension ViewSources {
    /// What a presenter asks `portfolio`, `fetcher` and `alerts` for.
    public init(portfolio: PortfolioClient, fetcher: RatesFetcherClient, alerts: PriceAlertsClient) {
        self.init(
            wallets: portfolio.wallets, holdings: portfolio.holdings, trades: portfolio.trades, products: portfolio.products,
            product: portfolio.product, watchlist: portfolio.watchlist, history: fetcher.history, alertRules: alerts.list)
    }
}
