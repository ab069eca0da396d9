import Bus
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PresenterViews
import ServiceSupport
import Testing
import TickwireClients
import TickwireContract
@testable import PresenterCore
import BusContract
import Market

/// Pages before their data: what each waits for, the page that says so, the presenter answering it at once
/// with no upstream there, and what tells an open page that data came (issue 35).
@Suite("UI before data")
struct WaitingPagesTests {
    private static let everything = Availability(
        streams: ["rates-fetcher": "ok", "converter": "ok", "portfolio": "ok"], assets: true, wallets: true,
        books: ["btc_mxn", "eth_mxn"], tickers: ["btc_mxn", "eth_mxn"], priceCurrencies: ["USD", "SEK"])

    private static let pages: [(screen: String, parameters: [String: String])] = [
        ("assets", [:]), ("wallets", [:]), ("coins", [:]), ("coin", ["symbol": "BTC"]), ("portfolio", [:]), ("books", [:]),
        ("book", ["book": "btc_mxn"]), ("products", [:]), ("product", ["sku": "T2006"]),
    ]

    /// With nothing yet, every page waits, naming the service and what it brings; with everything, none does.
    @Test func whatEachPageWaitsFor() {
        let nothing = Availability(streams: ["rates-fetcher": "waiting for a snapshot", "converter": "waiting for a snapshot",
                                             "portfolio": "snapshot from ipc://p failed: timeout"])
        var texts: [String: [String]] = [:]
        for page in Self.pages {
            texts[page.screen] = nothing.waits(screen: page.screen, parameters: page.parameters, currency: "usd").map(\.text)
            #expect(Self.everything.waits(screen: page.screen, parameters: page.parameters, currency: "SEK").isEmpty, "\(page.screen)")
        }
        #expect(texts == [
            "assets": ["Waiting for the masterdata’s assets from rates-fetcher…"],
            "wallets": ["Waiting for the masterdata’s wallets from rates-fetcher…", "Waiting for the wallets from the portfolio…"],
            "coins": ["Waiting for prices in USD from the converter…", "Waiting for the watch list from the portfolio…"],
            "coin": ["Waiting for prices in USD from the converter…", "Waiting for the 30-day history from rates-fetcher…",
                     "Waiting for your holding from the portfolio…"],
            "portfolio": ["Waiting for your trades and holdings from the portfolio…"],
            "books": ["Waiting for Bitso’s books from rates-fetcher…"],
            "book": ["Waiting for Bitso’s ticker of btc_mxn from rates-fetcher…"],
            "products": ["Waiting for the products’ transactions from the portfolio…"],
            "product": ["Waiting for the products’ transactions from the portfolio…"],
        ])
        let portfolio = nothing.waits(screen: "portfolio", parameters: [:], currency: "USD")
        #expect(portfolio.map(\.state) == ["portfolio: snapshot from ipc://p failed: timeout"])
        #expect(portfolio.map(\.service) == ["portfolio"])
    }

    /// Prices in one currency do not do for a page in another; a book with no ticker yet waits, an unknown one does
    /// not (its page says it is not there).
    @Test func pricesAndTickersArePerCurrencyAndBook() {
        var some = Self.everything
        some.priceCurrencies = ["USD"]
        some.tickers = ["eth_mxn"]
        #expect(some.waits(screen: "coins", parameters: [:], currency: "SEK").map(\.what) == ["prices in SEK"])
        #expect(some.waits(screen: "coins", parameters: [:], currency: "USD").isEmpty)
        #expect(some.waits(screen: "book", parameters: ["book": "BTC_MXN"], currency: "USD").map(\.what) == ["Bitso’s ticker of btc_mxn"])
        #expect(some.waits(screen: "book", parameters: ["book": "nope_mxn"], currency: "USD").isEmpty)
        some.streams["portfolio"] = "no heartbeat from ipc://p for 3 seconds"
        #expect(some.waits(screen: "wallets", parameters: [:], currency: "USD").map(\.state) == ["portfolio: no heartbeat from ipc://p for 3 seconds"])
    }

    /// The waiting page is the page's frame (navigation, switches, title) with what it waits for, placeholder rows,
    /// and the live script that fills it in; no inline script or style.
    @Test func theWaitingPage() {
        let context = PageContext(locale: "de_AT", currency: "SEK", path: "/coins", now: SampleData.now, requestId: "req-1")
        let view = WaitingView.make(
            title: Pages.title("coins", parameters: [:]),
            waits: Availability(streams: ["converter": "waiting for a snapshot"]).waits(screen: "coins", parameters: [:], currency: "SEK"),
            context: SampleData.context("de_AT", currency: "SEK"))
        let html = Pages.waiting(view, context: context)
        #expect(html.contains("<title>Coins · Tickwire</title>") && html.contains("<h1>Coins</h1>"))
        #expect(html.contains("<nav class=\"pages\" aria-label=\"Pages\">") && html.contains("id=\"currency-switch\""))
        #expect(html.contains("<section id=\"waiting\" class=\"waiting\" aria-busy=\"true\">"))
        #expect(html.contains("<li class=\"wait\" data-service=\"converter\">Waiting for prices in SEK from the converter… "
            + "<span class=\"wait-state\">converter: waiting for a snapshot</span></li>"))
        #expect(html.contains("<li class=\"wait\" data-service=\"portfolio\">Waiting for the watch list from the portfolio…</li>"))
        #expect(html.contains("<script src=\"/static/live.js\" data-currency=\"SEK\" data-locale=\"de_AT\" data-prices=\"1\" "
            + "data-refresh-on=\"coin price portfolio rates-fetcher converter\" data-refresh-every=\"0\"></script>"))
        #expect(html.contains("<footer id=\"data-age\" class=\"data-age\">No data yet.</footer>"))
        #expect(!html.contains("<script>") && !html.contains("<style>") && !html.contains(" style=\""))
    }

    /// Titles as the complete pages have them, where they can be told without data.
    @Test func titles() {
        #expect(Pages.title("coin", parameters: ["symbol": "btc"]) == "BTC")
        #expect(Pages.title("book", parameters: ["book": "btc_mxn"]) == "BTC MXN")
        #expect(Pages.title("product", parameters: ["sku": "T2006"]) == "Product T2006")
        #expect(Pages.title("wallets", parameters: [:]) == "Wallets")
    }

    /// Each page's live script follows the changes its content depends on, and every page the upstreams' states
    /// (its notices); books are fetched again every 30 s (a reload only without scripts).
    @Test func howEachPageFollowsItsData() {
        #expect(Layout.live(path: "/coins").refreshOn == ["coin", "price", "portfolio", "rates-fetcher", "converter"] && Layout.live(path: "/coins").prices)
        #expect(Layout.live(path: "/coins/BTC").refreshOn == ["rates-fetcher", "converter", "portfolio"] && Layout.live(path: "/coins/BTC").prices)
        #expect(Layout.live(path: "/books/btc_mxn").every == 30 && !Layout.live(path: "/books").prices)
        #expect(Layout.live(path: "/plugins/notes").refreshOn == ["plugin:notes", "rates-fetcher", "converter", "portfolio"])
        #expect(!Layout.live(path: "/plugins/notes").prices)
        #expect(Pages.refreshWithoutScript == "<noscript><meta http-equiv=\"refresh\" content=\"30\"></noscript>")
    }

    /// The presenter started before its upstreams (no stream followed yet, every call failing) answers every page
    /// at once with 200 and what it waits for, not an error; the JSON views still say they are unavailable.
    @Test func thePresenterAloneAnswersEveryPage() async throws {
        var logger = Logger(label: "presenter-test")
        logger.logLevel = .critical
        let core = Presenter.Core(
            upstreams: PresenterUpstreams(portfolio: .failing, converter: .failing, fetcher: .failing),
            runtime: try Runtime(service: "presenter", logger: logger))
        try await core.web.application(host: "127.0.0.1", port: 0).test(.router) { client in
            for path in ["/coins", "/coins/BTC", "/assets", "/wallets", "/portfolio", "/books", "/books/btc_mxn", "/products",
                         "/products/T2006"] {
                // Every upstream is `.failing` and no stream has data: the page comes from what the presenter holds.
                let response = try await client.execute(uri: path, method: .get)
                #expect(response.status == .ok, "\(path): \(response.text.prefix(300))")
                #expect(response.text.contains("<section id=\"waiting\""), "\(path) waits")
                #expect(response.text.contains("Waiting for "), "\(path) says for what")
                #expect(!response.text.contains("id=\"error\""), "\(path) is no error page")
            }
            let coins = try await client.execute(uri: "/coins/BTC", method: .get)
            #expect(coins.text.contains("<h1>BTC</h1>"))
            #expect(try await client.execute(uri: "/api/views/assets", method: .get).status == .serviceUnavailable)
            #expect(try await client.execute(uri: "/coins?locale=xx_YY", method: .get).status == .badRequest)
        }
    }

    /// The watch reports each stream whose state changed and each kind of data that changed, prices, quotes and
    /// statuses only when they first arrive; coins and priced assets also when one comes or goes.
    @Test func theWatchReportsWhatChanged() {
        let t0 = Date(timeIntervalSince1970: 0), t1 = Date(timeIntervalSince1970: 1)
        let first = StateWatch.Sample(streams: ["converter": "waiting for a snapshot", "portfolio": "ok"], updated: ["assets": t0])
        #expect(StateWatch.changes(from: nil, to: first) == ["converter", "portfolio", "assets"])
        #expect(StateWatch.changes(from: first, to: first).isEmpty)
        let second = StateWatch.Sample(streams: ["converter": "ok", "portfolio": "ok"], updated: ["assets": t1, "price": t0, "book": t0])
        #expect(StateWatch.changes(from: first, to: second) == ["converter", "assets", "price", "book"])
        let third = StateWatch.Sample(streams: second.streams, updated: ["assets": t1, "price": t1, "book": t1, "quote": t1])
        #expect(StateWatch.changes(from: second, to: third) == ["book", "quote"])
        // A coin added, then its first price; a coin removed with its price: no new arrival time, other members.
        let added = StateWatch.Sample(streams: third.streams, updated: third.updated, members: ["coin": ["BTC", "DOT"], "price": ["BTC"]])
        #expect(StateWatch.changes(from: third, to: added) == ["coin", "price"])
        let priced = StateWatch.Sample(streams: third.streams, updated: third.updated, members: ["coin": ["BTC", "DOT"], "price": ["BTC", "DOT"]])
        #expect(StateWatch.changes(from: added, to: priced) == ["price"])
        let removed = StateWatch.Sample(streams: third.streams, updated: third.updated, members: ["coin": ["BTC"], "price": ["BTC"]])
        #expect(StateWatch.changes(from: priced, to: removed) == ["coin", "price"])
        #expect(StateWatch.changes(from: removed, to: removed).isEmpty)
    }

    /// While no page listens the watch rests, keeping its last look: the first listener after a while hears what
    /// changed meanwhile (a page rendered before its `/events` connected misses nothing).
    @Test func theWatchRestsWhileNobodyListens() async throws {
        let state = PresenterState(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let broadcast = PriceBroadcast()
        let watch = StateWatch(state: state, broadcast: broadcast)
        await watch.look()
        await state.apply(.snapshot([StreamUpdate(
            topic: try Topic("coin.coingecko.DOT"), seq: 1, time: SampleData.now, source: "coingecko",
            value: .coin(CoinInfo(id: "polkadot", symbol: "DOT", name: "Polkadot", image: "")))]), from: "rates-fetcher")
        await watch.look()
        let listener = broadcast.subscribe(prices: false)
        await watch.look()
        broadcast.keepalive()
        var events = listener.makeAsyncIterator()
        #expect(await events.next() == .changed(["rates-fetcher", "coin"]))
    }

    /// Changes waiting for a slow listener become one event with every kind, in the first one's place; a page that
    /// shows no prices gets none; the event on the wire.
    @Test func changesConflateIntoOneEvent() async {
        let broadcast = PriceBroadcast()
        let listener = broadcast.subscribe(currency: "USD")
        let quiet = broadcast.subscribe(currency: "USD", prices: false)
        broadcast.send(changed: ["converter"])
        let price = AssetPrice(asset: "BTC", currency: "USD", price: 1, changePercent24h: nil, path: ["BTC", "USD"], quoteTime: nil)
        broadcast.send(price)
        broadcast.send(changed: ["assets", "converter"])
        broadcast.send(changed: [])
        broadcast.close()
        var events: [PriceBroadcast.Event] = []
        for await event in listener { events.append(event) }
        #expect(events == [.changed(["converter", "assets"]), .price(price)])
        var quietEvents: [PriceBroadcast.Event] = []
        for await event in quiet { quietEvents.append(event) }
        #expect(quietEvents == [.changed(["converter", "assets"])], "no prices for a page that shows none")
        #expect(ChangedEvent(kinds: ["assets", "converter"], initial: false).sse
            == "event: changed\ndata: {\"kinds\":[\"assets\",\"converter\"],\"initial\":false}\n\n")
    }
}
