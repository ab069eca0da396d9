import PresenterViews

extension ViewSources {
    /// What a presenter asks `portfolio`, `fetcher` and `converter` for.
    public init(portfolio: PortfolioClient, fetcher: RatesFetcherClient, converter: ConverterClient) {
        self.init(
            wallets: portfolio.wallets, holdings: portfolio.holdings, trades: portfolio.trades, products: portfolio.products,
            product: portfolio.product, watchlist: portfolio.watchlist, history: fetcher.history,
            convert: converter.convert, convertSeries: converter.convertSeries, knownCoins: fetcher.knownCoins,
            gains: portfolio.gains, performance: portfolio.performance, portfolios: portfolio.portfolios, candles: fetcher.candles)
    }
}
