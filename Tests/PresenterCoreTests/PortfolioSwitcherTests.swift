import Foundation
import Hummingbird
import HummingbirdTesting
import Money
import PresenterViews
import Testing
import TickwireClients
import TickwireMocks
import TickwireContract
@testable import PresenterCore

@Suite("The Portfolio screen's switcher between portfolios (issue 34)")
struct PortfolioSwitcherTests {
    /// The fields of the coin page's trade form: a buy of `amount` at `price` USD into `portfolio`.
    static func buy(_ amount: String, at price: String, into portfolio: String, requestId: String) -> [(String, String)] {
        [("kind", "buy"), ("amount", amount), ("price", price), ("currency", "USD"), ("date", "2026-01-02"), ("requestId", requestId),
         ("portfolio", portfolio)]
    }

    /// Adds an activity through the coin page's trade form of `symbol` (`fields`, as ``buy(_:at:into:requestId:)`` makes them),
    /// which must answer its redirect.
    static func add(_ symbol: String, _ fields: [(String, String)], client: some TestClientProtocol, csrf: CSRFToken) async throws {
        let added = try await client.execute(uri: "/coins/\(symbol)/trades", method: .post, headers: csrf.headers, body: csrf.form(fields))
        #expect(added.status == .seeOther, "\(added.text.prefix(300))")
    }

    /// The view of `uri`, which must be the Portfolio screen's.
    static func portfolioView(_ client: some TestClientProtocol, _ uri: String) async throws -> PortfolioView {
        let response = try await client.execute(uri: uri, method: .get)
        #expect(response.status == .ok, "\(uri): \(response.text.prefix(300))")
        guard case .portfolio(let view) = try JSONDecoder().decode(ScreenView.self, from: Data(buffer: response.body)) else {
            throw PresenterTestFailure("\(uri) is not the Portfolio screen's view")
        }
        return view
    }

    /// Over the mock portfolio holding two portfolios (a BTC buy in main, an ETH buy in "Savings 2", both added through the coin
    /// page's form), each Portfolio screen shows its own activities, holdings and gains, names itself in its title and heading,
    /// and switches to the other keeping the currency and range; its import form and export links carry it; the JSON view says
    /// which portfolio it is and lists both.
    @Test func twoPortfoliosEachTheirOwn() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client, path: "/coins/BTC")
            let main = try await client.execute(uri: "/coins/BTC/trades", method: .post, headers: csrf.headers,
                                                body: csrf.form(Self.buy("0.25", at: "60000", into: "", requestId: "switch-1")))
            #expect(main.status == .seeOther && main.headers[.location] == "/coins/BTC?added=1", "an empty name is main")
            let savings = try await client.execute(uri: "/coins/ETH/trades", method: .post, headers: csrf.headers,
                                                   body: csrf.form(Self.buy("2", at: "2000", into: " Savings 2 ", requestId: "switch-2")))
            #expect(savings.status == .seeOther, "\(savings.text.prefix(300))")
            #expect(savings.headers[.location] == "/coins/ETH?portfolio=Savings%202&added=1")
            #expect(try await presenter.portfolio.trades(TradesRequest()).map(\.asset) == ["BTC"])
            #expect(try await presenter.portfolio.trades(TradesRequest(portfolio: "Savings 2")).map(\.asset) == ["ETH"])

            let first = try await client.execute(uri: "/portfolio?currency=SEK&range=30D", method: .get)
            #expect(first.status == .ok)
            let page = first.text
            #expect(page.contains("<title>Portfolio · main · Tickwire</title>") && page.contains("<h1>Portfolio · main</h1>"))
            #expect(page.contains("<tr class=\"trade-row\"") && page.contains("data-asset=\"BTC\"") && !page.contains("data-asset=\"ETH\""))
            #expect(page.contains("""
                <a href="/portfolio?currency=SEK&amp;range=30D&amp;portfolio=main" data-portfolio="main" aria-current="page" class="selected">\
                main <span class="count" title="activities">1</span></a>
                """))
            #expect(page.contains("""
                <a href="/portfolio?currency=SEK&amp;range=30D&amp;portfolio=Savings%202" data-portfolio="Savings 2">\
                Savings 2 <span class="count" title="activities">1</span></a>
                """))
            #expect(page.contains("<input type=\"hidden\" name=\"currency\" value=\"SEK\"><input type=\"hidden\" name=\"range\" value=\"30D\">"),
                    "opening another portfolio keeps the currency and range")
            #expect(page.contains("href=\"/portfolio/export.csv\"") && page.contains("name=\"portfolio\" required autocomplete=\"off\" value=\"main\""))
            #expect(page.contains("<script src=\"/static/live.js\"") && page.contains("data-portfolio=\"main\"></script>"))

            let second = try await client.execute(uri: "/portfolio?currency=SEK&range=30D&portfolio=Savings%202", method: .get)
            #expect(second.status == .ok, "\(second.text.prefix(300))")
            let other = second.text
            #expect(other.contains("<title>Portfolio · Savings 2 · Tickwire</title>") && other.contains("<h1>Portfolio · Savings 2</h1>"))
            #expect(other.contains("<tr class=\"holding-row\" data-asset=\"ETH\">") && !other.contains("<tr class=\"holding-row\" data-asset=\"BTC\">"))
            #expect(other.contains("<tr class=\"gain-row\" data-asset=\"ETH\">") && !other.contains("<tr class=\"gain-row\" data-asset=\"BTC\">"))
            #expect(other.contains("data-portfolio=\"Savings 2\" aria-current=\"page\" class=\"selected\""))
            #expect(other.contains("href=\"/portfolio/export.csv?portfolio=Savings%202\"") && other.contains("href=\"/portfolio/export.json?portfolio=Savings%202\""))
            #expect(other.contains("id=\"import-portfolio\" name=\"portfolio\" required autocomplete=\"off\" value=\"Savings 2\""))
            #expect(other.contains("<a href=\"/coins/ETH?currency=SEK&amp;portfolio=Savings%202\">ETH</a>"), "a holding's coin page shows the same portfolio")
            #expect(other.contains("href=\"/portfolio?currency=SEK&amp;range=7D&amp;portfolio=Savings%202\""), "the range switch keeps the portfolio")
            #expect(other.contains("href=\"/portfolio?currency=USD&amp;range=30D&amp;portfolio=Savings%202\" data-currency=\"USD\""),
                    "the currency switch keeps the portfolio")
            #expect(other.contains("<a href=\"/coins?currency=SEK&amp;portfolio=Savings%202\">Coins</a>"), "navigation keeps the portfolio")

            let coin = try await client.execute(uri: "/coins/ETH?portfolio=Savings%202", method: .get)
            #expect(coin.text.contains("<tr class=\"holding-row\" data-asset=\"ETH\">"), "the coin page's holding is the portfolio's")
            #expect(coin.text.contains("id=\"trade-portfolio\" required autocomplete=\"off\" value=\"Savings 2\""))
            let mainCoin = try await client.execute(uri: "/coins/ETH", method: .get)
            #expect(mainCoin.text.contains("You hold no ETH in main yet."))

            let view = try await Self.portfolioView(client, "/api/views/portfolio?portfolio=Savings%202&currency=USD")
            #expect(view.portfolio == "Savings 2")
            #expect(view.portfolios == [.init(name: "main", activities: 1), .init(name: "Savings 2", activities: 1)])
            #expect(view.trades.map(\.asset) == ["ETH"] && view.holdings.map(\.asset) == ["ETH"])
            #expect(view.gains?.rows.map(\.asset) == ["ETH"])
            let mainView = try await Self.portfolioView(client, "/api/views/portfolio")
            #expect(mainView.portfolio == "main" && mainView.trades.map(\.asset) == ["BTC"])
            guard case .portfolio(let rep) = try await presenter.core.builder.view(
                ViewRequest(screen: "portfolio", currency: "SEK", range: "30D", portfolio: "Savings 2")) else {
                throw PresenterTestFailure("the view method answered another screen")
            }
            #expect(rep.portfolio == "Savings 2" && rep.trades.map(\.asset) == ["ETH"] && rep.performance?.range == "30D", "the view method takes portfolio and range")
        }
    }

    /// A portfolio with no activity yet opens (it starts with its first one) and says so; a name the portfolio refuses is its
    /// -32602 message, as a 400 page, from the address, the trade form and the import form, escaped.
    @Test func newAndInvalidNames() async throws {
        try await InProcessPresenter.mocks().test { client in
            let fresh = try await client.execute(uri: "/portfolio?portfolio=Fresh%20start", method: .get)
            #expect(fresh.status == .ok)
            #expect(fresh.text.contains("<h1>Portfolio · Fresh start</h1>"))
            #expect(fresh.text.contains("data-portfolio=\"Fresh start\" aria-current=\"page\" class=\"selected\""))
            #expect(fresh.text.contains("<p id=\"portfolio-new\" class=\"muted small\">Fresh start has no activities yet"))
            #expect(fresh.text.contains("<form id=\"new-portfolio\" class=\"inline new-portfolio\" method=\"get\" action=\"/portfolio\">"))

            let rule = "invalid params: portfolio must be 1 to 40 letters, digits, spaces, &#39;-&#39;, &#39;_&#39; or &#39;.&#39; (trimmed)"
            let bad = try await client.execute(uri: "/portfolio?portfolio=%3Cb%3Ebold%3C%2Fb%3E", method: .get)
            #expect(bad.status == .badRequest)
            #expect(bad.text.contains(rule), "\(bad.text.prefix(2000))")
            #expect(bad.text.contains("got &quot;&lt;b&gt;bold&lt;/b&gt;&quot;") && !bad.text.contains("<b>bold"))
            let api = try await client.execute(uri: "/api/views/portfolio?portfolio=a/b", method: .get)
            #expect(api.status == .badRequest)

            let csrf = try await CSRFToken(from: client, path: "/coins/BTC")
            let refused = try await client.execute(uri: "/coins/BTC/trades", method: .post, headers: csrf.headers,
                                                   body: csrf.form(Self.buy("1", at: "60000", into: "no/slash", requestId: "switch-bad")))
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("The trade was not added: \(rule), got &quot;no/slash&quot;"))
            #expect(refused.text.contains("id=\"trade-portfolio\" required autocomplete=\"off\" value=\"no/slash\""), "the form keeps the name typed")

            let posted = try await client.execute(uri: "/portfolio/import", method: .post, headers: csrf.headers, body: csrf.form([
                ("format", "csv"), ("content", ActivityImportPageTests.csv), ("portfolio", "x<y"),
            ]))
            let location = try #require(posted.headers[.location])
            let preview = try await client.execute(uri: location, method: .get, headers: [.cookie: "tickwire_csrf=\(csrf.value)"])
            #expect(preview.status == .badRequest)
            #expect(preview.text.contains("Nothing was imported: \(rule), got &quot;x&lt;y&quot;"))
            #expect(preview.text.contains("value=\"x&lt;y\"") && !preview.text.contains("x<y"))
            let export = try await client.execute(uri: "/portfolio/export.csv?portfolio=%22q%22", method: .get)
            #expect(export.status == .badRequest && export.text.contains("Nothing was exported: \(rule)"))
        }
    }

    /// A file imported through the form into a second portfolio goes there alone: the preview names it, the confirm lands on its
    /// screen with the notice, and its export downloads its activities under its name.
    @Test func importIntoASecondPortfolio() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client, path: "/portfolio")
            let (preview, draft) = try await ActivityImportPageTests.preview(client, csrf, [
                ("format", "csv"), ("content", ActivityImportPageTests.csv), ("portfolio", "Second"),
            ])
            #expect(preview.status == .ok)
            #expect(preview.text.contains("<p id=\"import-into\">Into portfolio <b data-portfolio=\"Second\">Second</b></p>"))
            #expect(preview.text.contains("<a id=\"back-to-portfolio\" href=\"/portfolio?portfolio=Second\">← Portfolio · Second</a>"))
            #expect(preview.text.contains("Import 4 activities</button>"))
            let confirmed = try await client.execute(uri: "/portfolio/import/confirm", method: .post, headers: csrf.headers,
                                                     body: csrf.form([("draft", draft)]))
            #expect(confirmed.headers[.location] == "/portfolio?portfolio=Second&imported=4&duplicates=0")
            #expect(try await presenter.portfolio.trades(TradesRequest(portfolio: "Second")).count == 4)
            #expect(try await presenter.portfolio.trades(TradesRequest()).isEmpty, "nothing went into main")
            let screen = try await client.execute(uri: "/portfolio?portfolio=Second&imported=4&duplicates=0", method: .get)
            #expect(screen.text.contains("Imported 4 activities."))
            #expect(screen.text.components(separatedBy: "<tr class=\"trade-row\"").count - 1 == 4)
            #expect(screen.text.contains("href=\"/portfolio?portfolio=main\" data-portfolio=\"main\""), "switching drops the import's notice")
            let export = try await client.execute(uri: "/portfolio/export.csv?portfolio=Second", method: .get)
            #expect(export.status == .ok)
            let disposition = try #require(export.headers[.contentDisposition])
            #expect(disposition.hasPrefix("attachment; filename=\"tickwire-activities-Second-") && disposition.hasSuffix(".csv\""))
            #expect(export.text.split(separator: "\n").count == 5, "a header and four activities: \(export.text)")
            let empty = try await client.execute(uri: "/portfolio/export.csv", method: .get)
            #expect(empty.text.split(separator: "\n").count == 1, "main has none: \(empty.text)")
        }
    }

    /// Removing an activity and the history are of the portfolio shown: each activity links to its confirm page, which posts the
    /// portfolio back; a removal that would leave a later sell short is refused with the portfolio's reason; a done one lands on
    /// the portfolio's screen with a notice; the history lists that portfolio's revisions alone, newest first.
    @Test func removeAndHistoryOfOnePortfolio() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client, path: "/coins/BTC")
            var sell = Self.buy("0.5", at: "65000", into: "Savings 2", requestId: "history-2")
            sell[0] = ("kind", "sell")
            sell[4] = ("date", "2026-02-02")
            for (symbol, fields) in [("BTC", Self.buy("1", at: "60000", into: "Savings 2", requestId: "history-1")), ("BTC", sell),
                                     ("ETH", Self.buy("3", at: "2000", into: "main", requestId: "history-3"))] {
                try await Self.add(symbol, fields, client: client, csrf: csrf)
            }
            let trades = try await presenter.portfolio.trades(TradesRequest(portfolio: "Savings 2"))
            #expect(trades.map(\.kind) == [.buy, .sell])
            let (buyID, sellID) = (trades[0].id, trades[1].id)

            let screen = try await client.execute(uri: "/portfolio?portfolio=Savings%202&currency=SEK", method: .get).text
            #expect(screen.contains("<a class=\"remove-activity\" href=\"/portfolio/trades/\(buyID)/remove?currency=SEK&amp;portfolio=Savings%202\">Remove</a>"))
            #expect(screen.contains("<a id=\"history-link\" class=\"small\" href=\"/portfolio/history?currency=SEK&amp;portfolio=Savings%202\">History</a>"))

            let ask = try await client.execute(uri: "/portfolio/trades/\(buyID)/remove?portfolio=Savings%202", method: .get)
            #expect(ask.status == .ok)
            #expect(ask.text.contains("Remove this activity from <b>Savings 2</b>?") && ask.text.contains("data-trade-id=\"\(buyID)\""))
            #expect(ask.text.contains("<input type=\"hidden\" name=\"portfolio\" value=\"Savings 2\">"))
            let elsewhere = try await client.execute(uri: "/portfolio/trades/\(buyID)/remove", method: .get)
            #expect(elsewhere.status == .notFound && elsewhere.text.contains("main has no activity \(buyID)"))

            let refused = try await client.execute(uri: "/portfolio/trades/\(buyID)/remove", method: .post, headers: csrf.headers,
                                                   body: csrf.form([("requestId", "remove-1"), ("portfolio", "Savings 2")]))
            #expect(refused.status == .badRequest)
            #expect(refused.text.contains("The activity was not removed: invalid params:"), "\(refused.text.prefix(3000))")
            #expect(refused.text.contains("data-trade-id=\"\(buyID)\""), "the activity is shown again")
            let removed = try await client.execute(uri: "/portfolio/trades/\(sellID)/remove", method: .post, headers: csrf.headers,
                                                   body: csrf.form([("requestId", "remove-2"), ("portfolio", "Savings 2")]))
            #expect(removed.status == .seeOther && removed.headers[.location] == "/portfolio?portfolio=Savings%202&removed=1")
            #expect(try await presenter.portfolio.trades(TradesRequest(portfolio: "Savings 2")).map(\.id) == [buyID])
            let after = try await client.execute(uri: "/portfolio?portfolio=Savings%202&removed=1", method: .get).text
            #expect(after.contains("<li>Removed the activity; the history keeps it.</li>"))

            let history = try await client.execute(uri: "/portfolio/history?portfolio=Savings%202", method: .get)
            #expect(history.status == .ok)
            #expect(history.text.contains("<title>History · Savings 2 · Tickwire</title>"))
            let actions = history.text.components(separatedBy: "class=\"revision-row\"").dropFirst().compactMap { row in
                row.firstRange(of: "data-action=\"").map { String(row[$0.upperBound...].prefix { $0 != "\"" }) }
            }
            #expect(actions == ["removed", "added", "added"], "newest first, Savings 2's alone")
            #expect(history.text.contains("data-trade-id=\"\(sellID)\" data-action=\"removed\"") && history.text.contains("<td class=\"by\">dashboard</td>"))
            #expect(history.text.contains("Sell BTC\u{A0}0.50000000 at $65,000.00, Feb 2, 2026"), "the removed activity as it was")
        }
    }

    /// A removal's form that cannot be read removes nothing (400, the activity shown again to try once more); nor does one naming
    /// a portfolio the activity is not in (404). The same form sent again after its removal lands on the screen again; another
    /// request for the removed activity is the portfolio's "not found".
    @Test func removalChecksItsFormAndPortfolio() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client, path: "/coins/BTC")
            try await Self.add("BTC", Self.buy("1", at: "60000", into: "Savings 2", requestId: "check-1"), client: client, csrf: csrf)
            let id = try #require(try await presenter.portfolio.trades(TradesRequest(portfolio: "Savings 2")).first?.id)
            let path = "/portfolio/trades/\(id)/remove"

            let unreadable = try await client.execute(uri: path + "?portfolio=Savings%202", method: .post, headers: csrf.headers,
                                                      body: csrf.form([("requestId[x]", "remove-check-1"), ("portfolio", "Savings 2")]))
            #expect(unreadable.status == .badRequest)
            #expect(unreadable.text.contains("The form could not be read, so nothing was removed:"), "\(unreadable.text.prefix(3000))")
            #expect(unreadable.text.contains("data-trade-id=\"\(id)\"") && unreadable.text.contains("Remove the activity</button>"),
                    "the activity is shown again with its form")
            #expect(try await presenter.portfolio.trades(TradesRequest(portfolio: "Savings 2")).map(\.id) == [id])

            for named in ["main", "Other"] {
                let elsewhere = try await client.execute(uri: path, method: .post, headers: csrf.headers,
                                                         body: csrf.form([("requestId", "remove-check-\(named)"), ("portfolio", named)]))
                #expect(elsewhere.status == .notFound)
                #expect(elsewhere.text.contains("\(named) has no activity \(id), so nothing was removed"), "\(elsewhere.text.prefix(3000))")
                #expect(!elsewhere.text.contains("Remove the activity</button>"))
            }
            let badName = try await client.execute(uri: path, method: .post, headers: csrf.headers,
                                                   body: csrf.form([("requestId", "remove-check-bad"), ("portfolio", "a/b")]))
            #expect(badName.status == .badRequest && badName.text.contains("The activity was not removed: invalid params: portfolio must be"))
            #expect(try await presenter.portfolio.trades(TradesRequest(portfolio: "Savings 2")).map(\.id) == [id], "nothing was removed")
            #expect(try await presenter.portfolio.tradeHistory(TradeHistoryRequest(id: id)).map(\.action) == [.added])

            let fields = [("requestId", "remove-check-2"), ("portfolio", "Savings 2")]
            for _ in 0..<2 {
                let removed = try await client.execute(uri: path, method: .post, headers: csrf.headers, body: csrf.form(fields))
                #expect(removed.status == .seeOther && removed.headers[.location] == "/portfolio?portfolio=Savings%202&removed=1",
                        "\(removed.text.prefix(3000))")
            }
            #expect(try await presenter.portfolio.trades(TradesRequest(portfolio: "Savings 2")).isEmpty)
            #expect(try await presenter.portfolio.tradeHistory(TradeHistoryRequest(id: id)).map(\.action) == [.added, .removed], "removed once")
            let another = try await client.execute(uri: path, method: .post, headers: csrf.headers,
                                                   body: csrf.form([("requestId", "remove-check-3"), ("portfolio", "Savings 2")]))
            #expect(another.status == .notFound && another.text.contains("The activity was not removed: "), "\(another.text.prefix(3000))")
            let retriedElsewhere = try await client.execute(uri: path, method: .post, headers: csrf.headers,
                                                            body: csrf.form([("requestId", "remove-check-2"), ("portfolio", "main")]))
            #expect(retriedElsewhere.status == .notFound && retriedElsewhere.text.contains("main has no activity \(id)"))
        }
    }

    /// Names that came from elsewhere (an older or hostile portfolio's list) reach the page only escaped.
    @Test func hostileNamesAreEscaped() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        let converter = ConverterClient.mock(fetcher: fetcher)
        var portfolio = PortfolioClient.mock(fetcher: fetcher, converter: converter)
        portfolio.portfolios = {
            PortfolioList(portfolios: [.init(name: "main", activities: 0), .init(name: "<img src=x onerror=alert(1)>", activities: 2),
                                       .init(name: "\"quoted' & more", activities: 1)])
        }
        try await InProcessPresenter(portfolio: portfolio, converter: converter, fetcher: fetcher).test { client in
            let page = try await client.execute(uri: "/portfolio", method: .get).text
            #expect(!page.contains("<img src=x"))
            #expect(page.contains("data-portfolio=\"&lt;img src=x onerror=alert(1)&gt;\">&lt;img src=x onerror=alert(1)&gt; <span"))
            #expect(page.contains("href=\"/portfolio?portfolio=%3Cimg%20src%3Dx%20onerror%3Dalert%281%29%3E\""))
            #expect(page.contains("data-portfolio=\"&quot;quoted&#39; &amp; more\">&quot;quoted&#39; &amp; more <span"))
        }
    }

    /// Without `portfolios.list` the screen still shows the portfolio asked for, and says the others could not be listed.
    @Test func withoutTheList() async throws {
        let fetcher = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        let converter = ConverterClient.mock(fetcher: fetcher)
        var portfolio = PortfolioClient.mock(fetcher: fetcher, converter: converter)
        portfolio.portfolios = PortfolioClient.failing.portfolios
        try await InProcessPresenter(portfolio: portfolio, converter: converter, fetcher: fetcher).test { client in
            let response = try await client.execute(uri: "/portfolio?portfolio=Other", method: .get)
            #expect(response.status == .ok)
            #expect(response.text.contains("data-portfolio=\"Other\" aria-current=\"page\" class=\"selected\""))
            #expect(response.text.contains("id=\"portfolios-unavailable\""))
        }
    }

    /// A change of one portfolio is `portfolio:<name>`, which the Portfolio screen of another does not fetch itself again for;
    /// the watch list's (all portfolios') and an edit's (it may move an activity out) stay `portfolio`, which every page takes.
    @Test func liveReloadOnlyForTheShownPortfolio() {
        #expect(StateWatch.kind(of: PortfolioChange(reason: "trade.added", subject: "t1", portfolio: "Savings 2")) == "portfolio:Savings 2")
        #expect(StateWatch.kind(of: PortfolioChange(reason: "trades.imported", subject: "4", portfolio: "main")) == "portfolio:main")
        #expect(StateWatch.kind(of: PortfolioChange(reason: "watchlist.added", subject: "BTC")) == "portfolio")
        #expect(StateWatch.kind(of: PortfolioChange(reason: "trade.edited", subject: "t1", portfolio: "main")) == "portfolio")
        let page = PageContext(locale: "en_US", currency: "USD", path: "/portfolio", query: PageContext.parseQuery("portfolio=Savings+2"), now: SampleData.now)
        #expect(Layout.liveScript(page).contains("data-refresh-on=\"portfolio rates-fetcher converter\" data-refresh-every=\"0\" data-portfolio=\"Savings 2\""))
        let coins = PageContext(locale: "en_US", currency: "USD", path: "/coins", query: [], now: SampleData.now)
        #expect(!Layout.liveScript(coins).contains("data-portfolio"), "other pages take every portfolio's change")
        #expect(Scripts.live.contains("if (portfolio !== null) return kind === \"portfolio:\" + portfolio;"))
    }
}

/// A test's own failure, with what went wrong.
struct PresenterTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
