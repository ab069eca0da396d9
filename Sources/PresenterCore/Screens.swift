import Bus
import PresenterViews
import TickwireClients
import Foundation
import Market
import TickwireContract
import Money

/// One screen ready to show: its view as JSON, the same view as an HTML page, and the HTTP status.
public struct RenderedScreen: Sendable {
    /// 200, or 400/404/503 for a bad request, a missing thing or an unavailable upstream.
    public var status: Int
    /// The view, as the REP `view` method and `GET /api/views/<screen>` return it.
    public var view: ScreenView
    /// The page a browser shows.
    public var html: String
}

/// A built screen: its view, and the page that shows it (rendered only when a browser asks).
struct Screen: Sendable {
    /// The view, as clients receive it.
    let view: ScreenView
    /// The HTML page of the view.
    let page: @Sendable (PageContext) -> String
}

/// Builds every screen from the presenter's state and the other services' answers.
struct Screens: Sendable {
    /// The screens there are.
    static let names = ScreenView.screens

    let state: PresenterState
    let portfolio: PortfolioClient
    let fetcher: RatesFetcherClient

    /// The screen `name` with `parameters` as a page for `page`'s locale and currency; never throws:
    /// a failure is a page that says what went wrong, with the HTTP status that fits.
    func render(_ name: String, parameters: [String: String], page: PageContext, notices: [String] = []) async -> RenderedScreen {
        let context = ViewContext(locale: page.locale, currency: page.currency, now: page.now)
        do {
            let built = try await screen(name, parameters: parameters, context: context, notices: notices)
            return RenderedScreen(status: 200, view: built.view, html: built.page(page))
        } catch let error as ViewError {
            return failure(400, "Bad request", error.description, page: page, context: context)
        } catch let error as RPCError where error.code == -32001 {
            return failure(404, "Not found", error.message, page: page, context: context)
        } catch let error as RPCError where error.code == -32602 {
            return failure(400, "Bad request", error.message, page: page, context: context)
        } catch {
            return failure(503, "Unavailable", describeRemote(error), page: page, context: context)
        }
    }

    /// The screen `name` with `parameters` for `context`; `notices` are shown on top of the view's own.
    func screen(_ name: String, parameters: [String: String], context: ViewContext, notices extra: [String] = []) async throws -> Screen {
        let notices = extra + (await streamNotices(now: context.now))
        let updated = await state.updated
        switch name {
        case "assets":
            let masterdata = await state.masterdata
            guard !masterdata.assets.isEmpty else { throw RPCError.unavailable("No assets yet: the masterdata has not arrived from rates-fetcher.") }
            let view = try AssetsView.make(assets: masterdata.assets, wallets: masterdata.wallets, filter: parameters["filter"],
                                           context: context, asOf: updated["assets"], notices: notices)
            return Screen(view: .assets(view)) { Pages.assets(view, context: $0) }
        case "wallets":
            let groups = try await portfolio.wallets()
            let view = WalletsView.make(groups: groups, context: context, asOf: updated["wallets"], notices: notices)
            return Screen(view: .wallets(view)) { Pages.wallets(view, context: $0) }
        case "coins":
            let view = CoinsView.make(coins: try await coins(scope: parameters["scope"], currency: context.currency), context: context, notices: notices)
            return Screen(view: .coins(view)) { Pages.coins(view, context: $0) }
        case "coin":
            let view = try await coin(try required("symbol", parameters).uppercased(), context: context, notices: notices)
            return Screen(view: .coin(view)) { Pages.coin(view, context: $0) }
        case "portfolio":
            let valuation = try await portfolio.holdings(HoldingsRequest(currency: context.currency))
            let trades = try await portfolio.trades()
            let view = PortfolioView.make(valuation: valuation, trades: trades, context: context, notices: notices)
            return Screen(view: .portfolio(view)) { Pages.portfolio(view, context: $0) }
        case "books":
            let books = await state.books.values.sorted { $0.book < $1.book }
            guard !books.isEmpty else { throw RPCError.unavailable("No books yet: Bitso's data has not arrived from rates-fetcher.") }
            let view = BooksView.make(books: books, tickers: await state.bitsoQuotes(), context: context, asOf: updated["book"], notices: notices)
            return Screen(view: .books(view)) { Pages.books(view, context: $0) }
        case "book":
            let book = try required("book", parameters).lowercased()
            guard let quote = await state.bitsoQuote(book: book) else { throw RPCError.notFound("No ticker for book \(book).") }
            let view = BookView.make(quote: quote, book: book, context: context, notices: notices)
            return Screen(view: .book(view)) { Pages.book(view, context: $0) }
        case "products":
            let products = try await portfolio.products()
            let view = ProductsView.make(products: products, context: context, notices: notices)
            return Screen(view: .products(view)) { Pages.products(view, context: $0) }
        case "product":
            let detail = try await portfolio.product(ProductRequest(sku: try required("sku", parameters)))
            let view = ProductView.make(detail: detail, context: context, notices: notices)
            return Screen(view: .product(view)) { Pages.product(view, context: $0) }
        default:
            throw RPCError.notFound("No screen \"\(name)\"; screens: \(Self.names.joined(separator: ", ")).")
        }
    }

    /// Every coin with a price in `currency` (or only the watch list), watched ones marked.
    private func coins(scope: String?, currency: String) async throws -> [CoinSnapshot] {
        guard [nil, "all", "watchlist"].contains(scope) else {
            throw RPCError.invalidParams("scope must be all or watchlist, got \"\(scope ?? "")\"")
        }
        let watched = Set((try? await portfolio.watchlist()) ?? [])
        let prices = await state.prices(in: currency)
        let symbols = scope == "watchlist" ? watched : Set(prices.keys).union(watched)
        var snapshots: [CoinSnapshot] = []
        for symbol in symbols.sorted() {
            let (name, image) = await identity(of: symbol)
            snapshots.append(CoinSnapshot(symbol: symbol, name: name, image: image, price: prices[symbol], watched: watched.contains(symbol)))
        }
        return snapshots
    }

    private func coin(_ symbol: String, context: ViewContext, notices: [String]) async throws -> CoinView {
        var notices = notices
        let (name, image) = await identity(of: symbol)
        let watched = ((try? await portfolio.watchlist()) ?? []).contains(symbol)
        let price = await state.price(symbol, in: context.currency)
        let quote = await state.quote(of: symbol, in: context.currency)
        guard price != nil || quote != nil else { throw RPCError.notFound("No prices for \(symbol).") }
        var history: PriceHistory?
        do {
            history = try await fetcher.history(HistoryRequest(asset: symbol, currency: context.currency, days: 30))
        } catch {
            notices.append("No 30-day history in \(context.currency): \(describeRemote(error))")
        }
        let valuation = try? await portfolio.holdings(HoldingsRequest(currency: context.currency))
        return CoinView.make(
            coin: CoinSnapshot(symbol: symbol, name: name, image: image, price: price, watched: watched),
            quote: quote, history: history, holding: valuation?.holdings.first { $0.asset == symbol }, context: context, notices: notices)
    }

    /// A coin's name and image: CoinGecko's, else the masterdata's, else its symbol.
    private func identity(of symbol: String) async -> (String, String?) {
        if let coin = await state.coins[symbol] { return (coin.name, coin.image) }
        if let asset = await state.masterdata.assets.first(where: { $0.symbol == symbol }) { return (asset.name, asset.iconLight) }
        return (symbol, nil)
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

    private func failure(_ status: Int, _ title: String, _ message: String, page: PageContext, context: ViewContext) -> RenderedScreen {
        let view = ErrorView.make(title: title, message: message, lastGood: nil, context: context)
        return RenderedScreen(status: status, view: .error(view), html: Pages.error(view, context: page))
    }
}

/// A remote failure in a sentence.
func describeRemote(_ error: any Error) -> String {
    (error as? RPCError)?.message ?? String(describing: error)
}

extension ViewError: RPCErrorConvertible {
    /// A view request with a bad parameter is invalid params.
    public var rpcError: RPCError { .invalidParams(description) }
}
