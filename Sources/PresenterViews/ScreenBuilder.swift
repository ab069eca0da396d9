import BusContract
import Foundation
import Market
import Money
import Synchronization
import TickwireContract

/// What the presenter asks the other services for while it builds a view.
public struct ViewSources: Sendable {
    /// The portfolio's `wallets`.
    public var wallets: @Sendable () async throws -> WalletGroups
    /// The portfolio's `holdings`.
    public var holdings: @Sendable (HoldingsRequest) async throws -> Valuation
    /// The portfolio's `trades.list`: one portfolio's activities.
    public var trades: @Sendable (TradesRequest) async throws -> [Trade]
    /// The portfolio's `portfolios.list`: the portfolios to switch to.
    public var portfolios: @Sendable () async throws -> PortfolioList
    /// The portfolio's `gains`.
    public var gains: @Sendable (GainsRequest) async throws -> PortfolioGains
    /// The portfolio's `performance`.
    public var performance: @Sendable (PerformanceRequest) async throws -> PortfolioPerformance
    /// The portfolio's `products`.
    public var products: @Sendable () async throws -> [ProductSummary]
    /// The portfolio's `product`.
    public var product: @Sendable (ProductRequest) async throws -> ProductDetail
    /// The portfolio's `watchlist.list`.
    public var watchlist: @Sendable () async throws -> [String]
    /// rates-fetcher's `history`.
    public var history: @Sendable (HistoryRequest) async throws -> PriceHistory
    /// The converter's `convert`: the rate that brings a source's figures into the display currency.
    public var convert: @Sendable (ConvertRequest) async throws -> ConvertResult
    /// The converter's `convert.series`: a history in the display currency at each day's rate.
    public var convertSeries: @Sendable (ConvertSeriesRequest) async throws -> ConvertSeriesResult
    /// rates-fetcher's `coins.known`: the coins the Coins screen suggests adding.
    public var knownCoins: @Sendable (KnownCoinsRequest) async throws -> [KnownCoin]
    /// rates-fetcher's `candles`: a market's stored candles, which a coin's chart is drawn from.
    public var candles: @Sendable (CandlesRequest) async throws -> CandleSeries

    /// Sources from their closures; without `knownCoins`, the Coins screen suggests none; without `gains` and
    /// `performance`, the Portfolio screen says they are unavailable; without `portfolios`, it offers no other portfolio.
    public init(
        wallets: @escaping @Sendable () async throws -> WalletGroups,
        holdings: @escaping @Sendable (HoldingsRequest) async throws -> Valuation,
        trades: @escaping @Sendable (TradesRequest) async throws -> [Trade],
        products: @escaping @Sendable () async throws -> [ProductSummary],
        product: @escaping @Sendable (ProductRequest) async throws -> ProductDetail,
        watchlist: @escaping @Sendable () async throws -> [String],
        history: @escaping @Sendable (HistoryRequest) async throws -> PriceHistory,
        convert: @escaping @Sendable (ConvertRequest) async throws -> ConvertResult,
        convertSeries: @escaping @Sendable (ConvertSeriesRequest) async throws -> ConvertSeriesResult,
        knownCoins: @escaping @Sendable (KnownCoinsRequest) async throws -> [KnownCoin] = { _ in [] },
        gains: @escaping @Sendable (GainsRequest) async throws -> PortfolioGains = { _ in throw RPCError.unavailable("no gains source") },
        performance: @escaping @Sendable (PerformanceRequest) async throws -> PortfolioPerformance = { _ in
            throw RPCError.unavailable("no performance source")
        },
        portfolios: @escaping @Sendable () async throws -> PortfolioList = { throw RPCError.unavailable("no portfolios source") },
        candles: @escaping @Sendable (CandlesRequest) async throws -> CandleSeries = { _ in throw RPCError.unavailable("no candles source") }
    ) {
        self.portfolios = portfolios
        self.gains = gains
        self.performance = performance
        self.wallets = wallets
        self.holdings = holdings
        self.trades = trades
        self.products = products
        self.product = product
        self.watchlist = watchlist
        self.history = history
        self.convert = convert
        self.convertSeries = convertSeries
        self.knownCoins = knownCoins
        self.candles = candles
    }
}

/// Builds every screen's view from what the presenter follows (``PresenterState``) and what it asks
/// the other services (``ViewSources``): the presenter's logic, without HTTP or sockets.
public struct ScreenBuilder: Sendable {
    /// The streams followed.
    public let state: PresenterState
    /// The services asked.
    public let sources: ViewSources
    private let suggestions: CoinSuggestions

    /// A builder over `state` and `sources`.
    public init(state: PresenterState, sources: ViewSources) {
        self.state = state
        self.sources = sources
        suggestions = CoinSuggestions(fetch: { try await sources.knownCoins(KnownCoinsRequest(limit: 100)) })
    }

    /// The answer to the `view` method.
    public func view(_ request: ViewRequest, now: Date = Date()) async throws -> ScreenView {
        let context = try ViewContext.resolve(locale: request.locale, acceptLanguage: nil, currency: request.currency, now: now)
        return try await view(request.screen, parameters: request.parameters, context: context)
    }

    /// The screen `name` with `parameters` for `context`; `notices` are shown on top of the view's own.
    public func view(_ name: String, parameters: [String: String], context: ViewContext, notices extra: [String] = []) async throws -> ScreenView {
        let notices = extra + (await streamNotices(now: context.now))
        let updated = await state.updated
        switch name {
        case "assets":
            let masterdata = await state.masterdata
            guard !masterdata.assets.isEmpty else { throw RPCError.unavailable("No assets yet: the masterdata has not arrived from rates-fetcher.") }
            let view = try AssetsView.make(assets: masterdata.assets, wallets: masterdata.wallets, filter: parameters["filter"],
                                           context: context, asOf: updated["assets"], notices: notices)
            return .assets(view)
        case "wallets":
            let groups = try await sources.wallets()
            let view = WalletsView.make(groups: groups, context: context, asOf: updated["wallets"], notices: notices)
            return .wallets(view)
        case "coins":
            // CoinGecko's coins (`coin.coingecko.<SYMBOL>`) are rates-fetcher's to poll and remove; a plugin's only name its assets.
            let tracked = await state.coins.tracked
            // Suggestions are a convenience: the screen never waits long for them (rates-fetcher may be away).
            let suggestions = await self.suggestions.current().filter { coin in coin.symbol.map { !tracked.contains($0) } ?? true }
            let view = CoinsView.make(
                coins: try await coins(scope: parameters["scope"], currency: context.currency), context: context, notices: notices,
                tracked: tracked, suggestions: suggestions)
            return .coins(view)
        case "coin":
            let view = try await coin(try required("symbol", parameters).uppercased(), portfolio: Self.portfolioName(parameters["portfolio"]),
                                      range: try CoinChartRange(parameter: parameters["range"]), context: context, notices: notices)
            return .coin(view)
        case "portfolio":
            let range = try Self.performanceRange(parameters["range"])
            let portfolio = Self.portfolioName(parameters["portfolio"])
            // The list is for the switch: without it the screen still shows the portfolio asked for.
            async let listed = try? await sources.portfolios()
            let valuation = try await sources.holdings(HoldingsRequest(currency: context.currency, portfolio: portfolio))
            let trades = try await sources.trades(TradesRequest(portfolio: portfolio))
            let portfolios = await listed?.portfolios
            // With the converter down every conversion waits for its deadline: the offline holdings come first, alone.
            guard !valuation.offline else {
                return .portfolio(PortfolioView.make(
                    valuation: valuation, trades: trades, context: context,
                    notices: notices + ["Gains and performance come back with the converter."], portfolio: portfolio, portfolios: portfolios))
            }
            async let gains = Self.attempt("Gains", { try await sources.gains(GainsRequest(currency: context.currency, portfolio: portfolio)) })
            async let performance = Self.attempt("Performance", {
                try await sources.performance(PerformanceRequest(currency: context.currency, range: range, portfolio: portfolio))
            })
            let (gained, gainsProblem) = await gains
            let (performed, performanceProblem) = await performance
            let view = PortfolioView.make(
                valuation: valuation, trades: trades, context: context, notices: notices + [gainsProblem, performanceProblem].compactMap { $0 },
                gains: gained, performance: performed, portfolio: portfolio, portfolios: portfolios)
            return .portfolio(view)
        case "books":
            let books = await state.books.values.sorted { $0.book < $1.book }
            guard !books.isEmpty else { throw RPCError.unavailable("No books yet: Bitso's data has not arrived from rates-fetcher.") }
            let selected = parameters["market"].map { DepthChoice(feed: parameters["feed"] ?? "bitso-ws", market: $0.uppercased()) }
            let depths = await state.depths
            let chosen = selected.flatMap { depths[$0] } ?? depths.values.min { ($0.source, $0.market.symbol) < ($1.source, $1.market.symbol) }
            var trades: [MarketTrade] = []
            if let chosen { trades = await state.depth(feed: chosen.source, market: chosen.market.symbol).trades }
            let view = BooksView.make(
                books: books, tickers: await state.bitsoQuotes(), depths: Array(depths.values), trades: trades, selected: selected,
                context: context, asOf: updated[RatesFetcherAPI.limits.kind], notices: notices)
            return .books(view)
        case "book":
            let book = try required("book", parameters).lowercased()
            guard let quote = await state.bitsoQuote(book: book) else { throw RPCError.notFound("No ticker for book \(book).") }
            let view = BookView.make(quote: quote, book: book, context: context, notices: notices)
            return .book(view)
        case "products":
            let products = try await sources.products()
            let view = ProductsView.make(products: products, context: context, notices: notices)
            return .products(view)
        case "product":
            let detail = try await sources.product(ProductRequest(sku: try required("sku", parameters)))
            let view = ProductView.make(detail: detail, context: context, notices: notices)
            return .product(view)
        default:
            throw RPCError.notFound("No screen \"\(name)\"; screens: \(ScreenView.screens.joined(separator: ", ")).")
        }
    }

    /// The portfolio a screen's `portfolio` parameter names: trimmed, "main" when empty or absent (the portfolio checks the
    /// rest of the rules of names, and answers invalid params for a name that breaks them).
    public static func portfolioName(_ text: String?) -> String {
        let name = text?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        return name.isEmpty ? Trade.mainPortfolio : name
    }

    /// The Portfolio screen's `range` parameter (`Max` when absent, letter case aside).
    static func performanceRange(_ text: String?) throws -> PerformanceRange {
        guard let text, !text.isEmpty else { return .max }
        guard let range = PerformanceRange.allCases.first(where: { $0.rawValue.lowercased() == text.lowercased() }) else {
            throw RPCError.invalidParams("range must be one of \(PerformanceRange.allCases.map(\.rawValue).joined(separator: ", ")), got \"\(text)\"")
        }
        return range
    }

    /// `body`'s answer, or the notice that says why `what` is unavailable.
    private static func attempt<T: Sendable>(_ what: String, _ body: @Sendable () async throws -> T) async -> (T?, String?) {
        do {
            return (try await body(), nil)
        } catch {
            return (nil, "\(what) unavailable: \(describe(error))")
        }
    }

    /// Every coin with a price in `currency` (or only the watch list), watched ones marked.
    private func coins(scope: String?, currency: String) async throws -> [CoinSnapshot] {
        guard [nil, "all", "watchlist"].contains(scope) else {
            throw RPCError.invalidParams("scope must be all or watchlist, got \"\(scope ?? "")\"")
        }
        let watched = Set((try? await sources.watchlist()) ?? [])
        let prices = await state.prices(in: currency)
        let symbols = scope == "watchlist" ? watched : Set(prices.keys).union(watched)
        var snapshots: [CoinSnapshot] = []
        for symbol in symbols.sorted() {
            let (name, image) = await identity(of: symbol)
            let change = prices[symbol]?.changePercent24h == nil
                ? await change24h(of: symbol, currency: currency, priced: Self.pricedIn(prices[symbol])) : nil
            snapshots.append(CoinSnapshot(
                symbol: symbol, name: name, image: image, price: prices[symbol], watched: watched.contains(symbol), change24h: change))
        }
        return snapshots
    }

    /// The 24 h change of `symbol` when the converter's price has none: the best quote's, else computed from
    /// its history (in `currency`, else in a source's currency: a percentage needs no conversion).
    private func change24h(of symbol: String, currency: String, priced: String?) async -> ExactDecimal? {
        if let change = await state.changePercent24h(of: symbol) { return change }
        for candidate in await historyCurrencies(of: symbol, display: currency, priced: priced) {
            if let history = try? await sources.history(HistoryRequest(asset: symbol, currency: candidate, days: 2)) {
                return history.changePercent24h
            }
        }
        return nil
    }

    /// The currencies to ask a history in: the one the converter priced the coin from (so chart and price come
    /// from one market and agree), the display currency, CoinGecko's USD, then the fiat currencies the coin is
    /// quoted in, then the others (a crypto quote needs one conversion more).
    private func historyCurrencies(of symbol: String, display: String, priced: String?) async -> [String] {
        let quoted = await state.quotes.values.filter { $0.market.base == symbol }.map(\.market.quote)
            .sorted { (Currency.iso($0) == nil ? 1 : 0, $0) < (Currency.iso($1) == nil ? 1 : 0, $1) }
        return ([priced, display.uppercased(), "USD"].compactMap { $0 } + quoted).reduce(into: [String]()) { list, code in
            if !list.contains(code) { list.append(code) }
        }
    }

    /// The converter's rate from `from` into `to`, with when its source's rates arrived.
    private func displayRate(from: String, to: String) async throws -> DisplayRate {
        let result = try await sources.convert(ConvertRequest(amount: 1, from: from, to: to))
        return DisplayRate(result, from: from, asOf: await state.rateTimes[result.source])
    }

    /// `symbol`'s history over `range` in `currency` (``CoinChartRange/history(of:in:sources:now:)``: stored candles, and
    /// rates-fetcher's history before them): as the source has it, else in a source's currency converted point by point
    /// by the converter at each day's rate (today's where it has none), with a note saying which. Throws the first
    /// failure when no source has one.
    func history(of symbol: String, currency: String, priced: String?, range: CoinChartRange, now: Date = Date()) async throws
        -> (history: PriceHistory, note: String?, candlesFrom: Date?) {
        var firstError: (any Error)?
        let candidates = await historyCurrencies(of: symbol, display: currency, priced: priced)
        // The candles' backfill in the candidate's currency, and before its first point (or without one) another
        // currency's converted: a market of the display currency with candles and a short history of its own (a replay's
        // Bitso BTC-MXN, which the hub has kept since the replay began) is backfilled from CoinGecko's USD history too.
        var backfilled = sources
        backfilled.history = { request in
            let own: Result<PriceHistory, any Error>
            do {
                own = .success(try await self.sources.history(request))
            } catch {
                own = .failure(error)
            }
            let days = TimeInterval(request.days ?? range.days)
            let since = now.addingTimeInterval(-days * 86_400 + days * 3_600)
            let ownPoints = (try? own.get())?.points ?? []
            if let first = ownPoints.first?.time, first <= since { return try own.get() }
            guard let wanted = request.currency else { return try own.get() }
            for other in candidates where other != wanted {
                guard let history = try? await self.sources.history(HistoryRequest(asset: request.asset, currency: other, days: request.days)),
                      let (converted, _) = try? await self.converted(history, to: wanted) else { continue }
                let start = ownPoints.first?.time ?? .distantFuture
                return PriceHistory(asset: request.asset, currency: wanted, points: converted.points.filter { $0.time < start } + ownPoints)
            }
            return try own.get()
        }
        for candidate in candidates {
            do {
                let (history, origin, candlesFrom) = try await range.history(of: symbol, in: candidate, sources: backfilled, now: now)
                guard history.currency.uppercased() != currency.uppercased() else { return (history, origin, candlesFrom) }
                let (converted, note) = try await converted(history, to: currency.uppercased())
                return (converted, [origin, note].compactMap { $0 }.joined(separator: " "), candlesFrom)
            } catch {
                firstError = firstError ?? error
            }
        }
        throw firstError ?? RPCError.notFound("no price history for \(symbol)")
    }

    /// `history` in `currency` through the converter's `convert.series`, with the note the chart shows; when
    /// the converter cannot convert a series (an older one, or it failed), every point at its current rate.
    private func converted(_ history: PriceHistory, to currency: String) async throws -> (history: PriceHistory, note: String) {
        let from = history.currency.uppercased()
        do {
            let series = try await sources.convertSeries(ConvertSeriesRequest(history: history, to: currency))
            return (series.history, await Self.seriesNote(series, from: from, today: { try await self.displayRate(from: from, to: currency) }))
        } catch {
            let rate = try await displayRate(from: from, to: currency)
            return (try rate.convert(history), "Converted from \(from) at today's rate (no daily rates: \(Self.describe(error))): \(rate.explanation).")
        }
    }

    /// What the chart says about a converted series: "Converted from USD at each day's ECB rate.", or which
    /// days are at today's rate (`today`, for its path in words) and why.
    static func seriesNote(_ series: ConvertSeriesResult, from: String, today: () async throws -> DisplayRate) async -> String {
        let source = series.source.uppercased()
        let reason = series.reason ?? "none given"
        // Today's points are at the current rate, the live prices' (the converter's rule), and said so apart.
        let currentDay = CalendarDay(Date()).iso
        let current = series.days.contains { $0.day == currentDay && $0.rateDay == nil }
        let daily = "Converted from \(from) at each day's \(source) rate" + (current ? ", today's at the current rate" : "")
        let todays = series.days.filter { $0.rateDay == nil && $0.day != currentDay }.map(\.day)
        switch series.kind {
        case .mixed where !todays.isEmpty:
            let days = todays.count == 1 ? "\(todays[0]) is" : "\(todays.count) days (\(todays.first ?? "")–\(todays.last ?? "")) are"
            return "\(daily); \(days) at today's rate (\(reason))."
        case .daily, .mixed:
            return daily + "."
        case .today:
            let explanation = (try? await today())?.explanation
            return "Converted from \(from) at today's rate (no daily rates: \(reason))" + (explanation.map { ": \($0)." } ?? ".")
        }
    }

    /// `quote`'s market data in `currency`: as it is, or converted at the converter's rate, with the path in words.
    private func market(_ quote: Quote?, currency: String) async -> (quote: Quote?, note: String?) {
        guard let quote, quote.market.quote.uppercased() != currency.uppercased() else { return (quote, nil) }
        guard let rate = try? await displayRate(from: quote.market.quote, to: currency.uppercased()),
              let converted = try? rate.convert(quote) else { return (quote, nil) }
        return (converted, rate.explanation)
    }

    private func coin(_ symbol: String, portfolio: String, range: CoinChartRange, context: ViewContext, notices: [String]) async throws -> CoinView {
        var notices = notices
        let (name, image) = await identity(of: symbol)
        let watched = ((try? await sources.watchlist()) ?? []).contains(symbol)
        let price = await state.price(symbol, in: context.currency)
        let priced = Self.pricedIn(price)
        let quote = await state.quote(of: symbol, in: context.currency, preferring: priced)
        guard price != nil || quote != nil else { throw RPCError.notFound("No prices for \(symbol).") }
        var history: PriceHistory?
        var chartNote: String?
        var candlesFrom: Date?
        do {
            (history, chartNote, candlesFrom) = try await self.history(of: symbol, currency: context.currency, priced: priced, range: range)
        } catch {
            notices.append("No \(range.title) history in \(context.currency): \(ScreenBuilder.describe(error))")
        }
        let (market, marketNote) = await market(quote, currency: context.currency)
        let change = price?.changePercent24h == nil && market?.changePercent24h == nil
            ? await state.changePercent24h(of: symbol) ?? history?.changePercent24h : nil
        let valuation = try? await sources.holdings(HoldingsRequest(currency: context.currency, portfolio: portfolio))
        return CoinView.make(
            coin: CoinSnapshot(symbol: symbol, name: name, image: image, price: price, watched: watched, change24h: change),
            quote: market, history: history, holding: valuation?.holdings.first { $0.asset == symbol }, context: context, notices: notices,
            marketNote: marketNote, chartNote: chartNote, candlesFrom: candlesFrom, tradePrices: await state.prices(of: symbol), portfolio: portfolio)
    }

    /// The currency of the market the converter priced a coin from: the second step of its price's path
    /// (`["ETH", "MXN", "USD"]`: MXN), nil when there is no price.
    private static func pricedIn(_ price: AssetPrice?) -> String? {
        guard let path = price?.path, path.count > 1 else { return nil }
        return path[1]
    }

    /// A coin's name (CoinGecko's, else the masterdata's, else its symbol) and its icon on the presenter.
    private func identity(of symbol: String) async -> (String, String?) {
        let icon = IconPath.light(symbol)
        if let coin = await state.coins[symbol] { return (coin.name, icon) }
        if let asset = await state.masterdata.assets.first(where: { $0.symbol == symbol }) { return (asset.name, icon) }
        return (symbol, icon)
    }

    /// Notices for feeds that are failing and streams that are down.
    private func streamNotices(now: Date) async -> [String] {
        let streams = await state.streams.filter { $0.value != "ok" }.sorted { $0.key < $1.key }
        return Notices.feedProblems(Array(await state.statuses.values).sorted { $0.feed < $1.feed }, now: now)
            + streams.map { "\($0.key): \($0.value)" }
    }

    private func required(_ name: String, _ parameters: [String: String]) throws -> String {
        guard let value = parameters[name], !value.isEmpty else { throw RPCError.invalidParams("missing \(name)") }
        return value
    }

    /// A remote failure in a sentence.
    public static func describe(_ error: any Error) -> String {
        (error as? RPCError)?.message ?? String(describing: error)
    }
}

extension ViewError: RPCErrorConvertible {
    /// A view request with a bad parameter is invalid params.
    public var rpcError: RPCError { .invalidParams(description) }
}

/// The Coins screen's suggestions (rates-fetcher's `coins.known`), kept for five minutes and fetched in the
/// background: a page waits at most 300 ms for them, and shows none while rates-fetcher cannot answer
/// (asked again after 30 s).
actor CoinSuggestions {
    private let fetch: @Sendable () async throws -> [KnownCoin]
    private var coins: [KnownCoin] = []
    private var nextFetch = ContinuousClock.now
    private var fetching: Task<Void, Never>?

    init(fetch: @escaping @Sendable () async throws -> [KnownCoin]) {
        self.fetch = fetch
    }

    /// The suggestions held, refreshed first if they are due and come within 300 ms.
    func current() async -> [KnownCoin] {
        if fetching == nil, ContinuousClock.now >= nextFetch {
            let fetch = fetch
            fetching = Task {
                let fetched = try? await fetch()
                self.store(fetched)
            }
        }
        if let fetching { await Self.wait(for: fetching, atMost: .milliseconds(300)) }
        return coins
    }

    /// Returns when `task` has finished or `limit` has passed, whichever comes first; `task` runs on. (A task group
    /// would wait for both: it returns only once every child has, and awaiting a task's value ignores cancellation.)
    private static func wait(for task: Task<Void, Never>, atMost limit: Duration) async {
        let waiter = ResumeOnce()
        await withCheckedContinuation { continuation in
            waiter.set(continuation)
            let timer = Task {
                try? await Task.sleep(for: limit)
                waiter.resume()
            }
            Task {
                await task.value
                timer.cancel()
                waiter.resume()
            }
        }
    }

    private func store(_ fetched: [KnownCoin]?) {
        if let fetched { coins = fetched }
        nextFetch = ContinuousClock.now + (fetched == nil ? .seconds(30) : .seconds(300))
        fetching = nil
    }
}

/// A continuation resumed by the first of several callers; the others find it taken.
private final class ResumeOnce: Sendable {
    private let continuation = Mutex<CheckedContinuation<Void, Never>?>(nil)

    func set(_ continuation: CheckedContinuation<Void, Never>) {
        self.continuation.withLock { $0 = continuation }
    }

    func resume() {
        continuation.withLock { $0.take() }?.resume()
    }
}
