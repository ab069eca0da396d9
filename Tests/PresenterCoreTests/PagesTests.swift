import PresenterViews
import Foundation
import Market
import Money
import TickwireContract
import Testing
@testable import PresenterCore

struct PagesTests {
    private func page(_ path: String, query: String = "", locale: String = "en_US", currency: String = "USD") -> PageContext {
        PageContext(locale: locale, currency: currency, path: path, query: PageContext.parseQuery(query), now: SampleData.now, requestId: "req-1")
    }

    private func count(_ needle: String, in text: String) -> Int {
        text.components(separatedBy: needle).count - 1
    }

    /// `escapeHTML` neutralises markup and both quote kinds.
    @Test func escaping() {
        #expect(escapeHTML("<script>alert(\"x\")</script>") == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;")
        #expect(escapeHTML("Tom & Jerry's") == "Tom &amp; Jerry&#39;s")
        #expect(escapeHTML("€ 1.298,99") == "€ 1.298,99")
    }

    /// A hostile name from a feed reaches the page only escaped.
    @Test func pagesEscapeData() throws {
        let coin = CoinSnapshot(symbol: "EVIL", name: "<script>alert('x')</script>", price: nil, watched: false)
        let html = Pages.coins(CoinsView.make(coins: [coin], context: SampleData.context()), context: page("/coins"))
        #expect(!html.contains("<script>alert"))
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"))
    }

    /// Every page is a full document with navigation, the switches and a notices area.
    @Test func layout() throws {
        let html = Pages.products(ProductsView.make(products: [], context: SampleData.context()), context: page("/products", query: "locale=de_AT&x=1"))
        #expect(html.hasPrefix("<!DOCTYPE html>\n<html lang=\"en-US\">"))
        #expect(html.hasSuffix("</html>"))
        for path in ["/assets", "/wallets", "/coins", "/portfolio", "/books", "/products"] {
            #expect(html.contains("<a href=\"\(path)?locale=de_AT\""))
        }
        #expect(html.contains("<a href=\"/products?locale=de_AT\" aria-current=\"page\">Products</a>"))
        #expect(html.contains("href=\"/products?locale=sv_SE&amp;x=1\" data-locale=\"sv_SE\""))
        #expect(html.contains("href=\"/products?locale=de_AT&amp;x=1&amp;currency=SEK\" data-currency=\"SEK\""))
        #expect(html.contains("<div id=\"notices\" class=\"notices\" role=\"alert\"><ul><li>No products to show.</li></ul></div>"))
        #expect(html.contains("<link rel=\"stylesheet\" href=\"/static/tickwire.css\">"))
        #expect(Stylesheet.css.contains("@media (prefers-color-scheme: dark)"))
    }

    /// Asset rows carry their symbol, both icons and the filter switch links every filter.
    @Test func assetsPage() throws {
        let view = try AssetsView.make(assets: SampleData.assets(), wallets: SampleData.wallets(), filter: "crypto", context: SampleData.context())
        let html = Pages.assets(view, context: page("/assets", query: "filter=crypto"))
        #expect(count("<tr class=\"asset-row", in: html) == 3)
        #expect(html.contains("<tr class=\"asset-row cryptocoin\" data-symbol=\"BTC\" data-kind=\"cryptocoin\">"))
        #expect(html.contains("<source media=\"(prefers-color-scheme: dark)\" srcset=\"/icons/BTC-dark.svg\">"))
        #expect(html.contains("<img src=\"/icons/BTC-light.svg\""))
        #expect(html.contains("data-raw=\"8936.50\">€8,936.50</td>"))
        for filter in ["all", "crypto", "commodity", "fiat"] {
            #expect(html.contains("href=\"/assets?filter=\(filter)\" data-filter=\"\(filter)\""))
        }
    }

    /// Fiat wallet rows have the `fiat` class; the default wallet a badge.
    @Test func walletsPage() throws {
        let html = Pages.wallets(WalletsView.make(groups: try SampleData.walletGroups(), context: SampleData.context()), context: page("/wallets"))
        #expect(count("<tr class=\"wallet-row fiat\"", in: html) == 4)
        #expect(count("class=\"wallet-row holding default\"", in: html) == 3)
        #expect(html.contains("<section class=\"wallet-group\" id=\"wallets-fiat\">"))
        #expect(html.contains("BTC Wallet<span class=\"badge default-badge\">default</span>"))
    }

    /// Coin rows and price cells are marked for live updates, and the SSE script listens in the page's currency.
    @Test func coinsPage() throws {
        let coins = [
            CoinSnapshot(symbol: "BTC", name: "Bitcoin", price: try SampleData.price("BTC", "70187", change: "3.12502"), watched: true),
            CoinSnapshot(symbol: "DOGE", name: "Dogecoin", price: nil, watched: false),
        ]
        let html = Pages.coins(CoinsView.make(coins: coins, context: SampleData.context()), context: page("/coins"))
        #expect(html.contains("<tr class=\"coin-row watched\" data-asset=\"BTC\">"))
        #expect(html.contains("<td class=\"num price\" data-raw=\"70187\" data-price-for=\"BTC\">$70,187.00</td>"))
        #expect(html.contains("data-change-for=\"BTC\">+3.13%</td>"))
        #expect(html.contains("<td class=\"num price missing\" data-price-for=\"DOGE\">no price</td>"))
        #expect(html.contains("<script src=\"/static/live-prices.js\" data-currency=\"USD\"></script>"))
        #expect(!html.contains("<script>"), "no inline script: the Content-Security-Policy refuses it")
        #expect(html.contains("action=\"/coins/BTC/unwatch\""))
        #expect(html.contains("action=\"/coins/DOGE/watch\""))
    }

    /// The coin page draws the history as an SVG path with one point per history point, and offers the trade form.
    @Test func coinPage() throws {
        let html = Pages.coin(try CoinViewTests.make(), context: page("/coins/BTC"))
        let svg = try #require(html.range(of: "<svg").flatMap { start in html.range(of: "</svg>").map { String(html[start.lowerBound..<$0.upperBound]) } })
        let path = try #require(svg.range(of: "<path class=\"line\" d=\"").flatMap { start in
            svg[start.upperBound...].firstIndex(of: "\"").map { String(svg[start.upperBound..<$0]) }
        })
        #expect(path.hasPrefix("M84.0,"), "the plot starts after the longest price label ($71,246.95)")
        #expect(count("M", in: path) + count("L", in: path) == 3)
        #expect(count("<circle class=\"point\"", in: svg) == 3)
        #expect(svg.contains("<title>Apr 1, 2024 at 3:01\u{202F}PM: $68,887.75</title>"))
        #expect(svg.contains(">$71,246.95</text>"))
        #expect(svg.contains(">$68,887.75</text>"))
        #expect(svg.contains(">Mar 31</text>"))
        #expect(html.contains("<form id=\"trade-form\" class=\"card\" method=\"post\" action=\"/coins/BTC/trades\">"))
        #expect(html.contains("<input type=\"hidden\" name=\"requestId\" value=\"req-1\">"))
        #expect(html.contains("<input name=\"date\" type=\"date\" required value=\"2025-06-15\" max=\"2025-06-15\">"))
        for field in ["amount", "price", "currency"] { #expect(html.contains("name=\"\(field)\"")) }
        #expect(html.contains("<a href=\"/coins\" aria-current=\"page\">Coins</a>"))
        #expect(html.contains("<tr class=\"holding-row\" data-asset=\"BTC\">"))
    }

    /// The room left of the chart follows its longest price label, in every locale: a million pesos' label starts inside
    /// the drawing (it was cut at its left edge), a short one leaves the plot wide.
    @Test(arguments: ["en_US", "de_DE", "es_MX", "sv_SE"]) func chartLabelsFitTheirRoom(locale: String) throws {
        func left(_ low: String, _ high: String, _ currency: String) throws -> (axis: Double, labels: [String]) {
            let points = [PricePoint(time: SampleData.now, price: try ExactDecimal(low)),
                          PricePoint(time: SampleData.now.addingTimeInterval(300), price: try ExactDecimal(high))]
            let chart = try #require(ChartData.make(history: PriceHistory(asset: "BTC", currency: currency, points: points), locale: locale))
            let svg = Chart.svg(chart, title: "BTC")
            let axis = try #require(svg.range(of: "<line class=\"axis y-axis\" x1=\"").flatMap { start in
                svg[start.upperBound...].firstIndex(of: "\"").flatMap { Double(svg[start.upperBound..<$0]) }
            })
            #expect(svg.contains("<text class=\"y-label max-label\" x=\"\(String(format: "%.1f", axis - Chart.labelGap))\""))
            return (axis, [chart.max.price.text, chart.min.price.text])
        }
        let (wide, labels) = try left("1187300.5", "1287300.25", "MXN")
        for label in labels {
            #expect(wide - Chart.labelGap - Chart.labelWidth(label) >= 4, "\(label) starts inside the drawing")
            #expect(Chart.labelWidth(label) >= Double(label.count) * 7, "\(label) is not under-estimated")
        }
        let (narrow, _) = try left("1.5", "2.25", "USD")
        #expect(narrow >= Chart.minimumLeft && narrow < wide)
        if locale == "en_US" {
            #expect(labels == ["MX$1,287,300.25", "MX$1,187,300.50"])
            #expect(wide > 110, "the old fixed room (110) cut these labels")
            #expect(narrow == Chart.minimumLeft, "$2.25 needs less than the least room")
        }
    }

    /// Where candles follow an older history (a backfill or a mock's, which need not meet them at one price), the chart
    /// marks the join with a dashed line through the first candle's point; a history of one kind has no mark.
    @Test func chartMarksWhereCandlesBegin() throws {
        let prices = ["70010", "70020", "69808", "71348.1", "71961.9"]
        let points = try prices.enumerated().map { index, price in
            PricePoint(time: SampleData.now.addingTimeInterval(Double(index - prices.count) * 600), price: try ExactDecimal(price))
        }
        let history = PriceHistory(asset: "BTC", currency: "USD", points: points)
        let chart = try #require(ChartData.make(history: history, locale: "en_US", candlesFrom: points[3].time))
        #expect(chart.candlesFrom?.price.text == "$71,348.10")
        let svg = Chart.svg(chart, title: "BTC")
        let circle = try #require(svg.range(of: "data-raw=\"71348.1\"").map { svg[..<$0.lowerBound] })
        let cx = try #require(circle.range(of: "cx=\"", options: .backwards).flatMap { start in
            circle[start.upperBound...].firstIndex(of: "\"").map { String(circle[start.upperBound..<$0]) }
        })
        #expect(svg.contains("<line class=\"guide join-guide\" x1=\"\(cx)\" y1=\"16.0\" x2=\"\(cx)\" y2=\"260.0\""))
        #expect(svg.contains(">candles →</text>"))
        for unmarked in [ChartData.make(history: history, locale: "en_US"),
                         ChartData.make(history: history, locale: "en_US", candlesFrom: points[0].time)] {
            let chart = try #require(unmarked)
            #expect(chart.candlesFrom == nil)
            #expect(!Chart.svg(chart, title: "BTC").contains("join-guide"))
        }
    }

    /// A chart of a day (1D, a replay's minutes) labels its time axis with times of day, not the same day three times; a
    /// longer one (39 h, 3 days) with days. The read-out names the low's and high's tick too.
    @Test func dayChartsTickInTimes() throws {
        func chart(hours: Double, locale: String = "en_US") throws -> ChartData {
            let points = try [("90100", 0.0), ("90000", 0.5), ("90300", 1.0)].map { price, share in
                PricePoint(time: SampleData.now.addingTimeInterval(-hours * 3_600 * (1 - share)), price: try ExactDecimal(price))
            }
            return try #require(ChartData.make(history: PriceHistory(asset: "BTC", currency: "USD", points: points), locale: locale))
        }
        let day = try chart(hours: 24)
        #expect(day.points.map(\.tick) == ["3:06\u{202F}PM", "3:06\u{202F}AM", "3:06\u{202F}PM"])
        #expect(day.points.map(\.day) == ["Jun 14", "Jun 15", "Jun 15"])
        let svg = Chart.svg(day, title: "BTC")
        #expect(svg.contains("text-anchor=\"start\">3:06\u{202F}PM</text>") && svg.contains("text-anchor=\"end\">3:06\u{202F}PM</text>"))
        #expect(try chart(hours: 1, locale: "de_DE").points.map(\.tick) == ["14:06", "14:36", "15:06"])
        #expect(try chart(hours: 72).points.map(\.tick) == ["Jun 12", "Jun 14", "Jun 15"])
        #expect(try chart(hours: 39).points.map(\.tick) == ["Jun 14", "Jun 14", "Jun 15"])
    }

    /// The currency switch offers every display currency the converter publishes by default, the current one marked.
    @Test func currencySwitchOffersTheConvertersCurrencies() throws {
        let html = Pages.coin(try CoinViewTests.make(), context: page("/coins/BTC"))
        for currency in ["USD", "SEK", "EUR", "MXN"] {
            #expect(html.contains("data-currency=\"\(currency)\""), "\(currency) is offered")
        }
        #expect(html.contains("data-currency=\"MXN\">MXN</a>") && html.contains("data-currency=\"USD\" aria-current=\"true\""))
    }

    /// A fresh page context gets a UUID for its forms.
    @Test func generatedRequestId() {
        let context = PageContext(SampleData.context(), path: "/coins/BTC")
        #expect(UUID(uuidString: context.requestId) != nil)
    }

    /// Books refresh every 30 s and on demand; each book is an `li.book` with the maximum price highlighted.
    @Test func booksPage() throws {
        let view = BooksView.make(books: try SampleData.books(), context: SampleData.context())
        let html = Pages.books(view, context: page("/books"))
        #expect(html.contains("<meta http-equiv=\"refresh\" content=\"30\">"))
        #expect(html.contains("<form id=\"refresh\" class=\"inline\" method=\"post\" action=\"/books/refresh\">"))
        #expect(count("<li class=\"book\"", in: html) == 3)
        #expect(html.contains("<li class=\"book\" data-book=\"btc_mxn\"><a href=\"/books/btc_mxn\">BTC MXN</a><span class=\"highlight max-price\" data-raw=\"80000.00\" title=\"Maximum price\">MX$80,000.00</span>"))
        #expect(html.contains("Min value MX$5.00"))
        #expect(html.contains("Max value MX$10,000,000.00"))
    }

    /// The ticker page keeps ask and bid in their own section.
    @Test func bookPage() throws {
        let html = Pages.book(BookView.make(quote: try SampleData.btcMxnTicker(), context: SampleData.context()), context: page("/books/btc_mxn"))
        #expect(html.contains("<section id=\"orders\"><h2>Ask and bid</h2><dl class=\"figures\"><dt>Ask</dt><dd id=\"ask\" data-raw=\"5632.24\">MX$5,632.24</dd>"))
        #expect(html.contains("<dd id=\"vwap\" data-raw=\"5393.45\">MX$5,393.45</dd>"))
        #expect(html.contains("<dd id=\"change\" class=\"up\">+MX$133.98 (+2.44%)</dd>"))
    }

    /// Product rows by SKU; the product page's total in `#total`.
    @Test func productPages() throws {
        let list = Pages.products(ProductsView.make(products: [ProductSummary(sku: "T2006", transactions: 2)], context: SampleData.context()), context: page("/products"))
        #expect(list.contains("<tr class=\"product-row\" data-sku=\"T2006\"><td><a href=\"/products/T2006\">T2006</a></td><td class=\"num\">2</td></tr>"))
        let detail = Pages.product(ProductView.make(detail: try SampleData.productT2006(), context: SampleData.context()), context: page("/products/T2006"))
        #expect(detail.contains("<span id=\"total\" data-raw=\"14.99\" data-currency=\"EUR\">€14.99</span>"))
        #expect(count("<tr class=\"transaction-row\"", in: detail) == 2)
        #expect(detail.contains("<td class=\"path\">USD → EUR</td>"))
    }

    /// Portfolio totals, holdings with live price cells, trades, and the offline notice.
    @Test func portfolioPage() throws {
        let view = PortfolioView.make(valuation: try PortfolioViewTests.valuation(offline: true), trades: try PortfolioViewTests.trades(), context: SampleData.context())
        let html = Pages.portfolio(view, context: page("/portfolio"))
        #expect(html.contains("<dd id=\"total-value\" data-raw=\"35093.56\">$35,093.56</dd>"))
        #expect(html.contains("<dd id=\"total-gain\" class=\"down\" data-raw=\"-906.44\">-$906.44</dd>"))
        #expect(html.contains("data-price-for=\"BTC\">$70,187.12</td>"))
        #expect(count("<tr class=\"trade-row\"", in: html) == 2)
        #expect(html.contains("<li>Prices are 5 min old: the converter is unreachable.</li>"))
        #expect(html.contains("/static/live-prices.js"))
    }

    /// An unavailable screen still renders: the message and the age of the last good data.
    @Test func errorPage() {
        let view = ErrorView.make(title: "Books", message: "The exchange is unreachable.", lastGood: SampleData.now.addingTimeInterval(-720), context: SampleData.context())
        let html = Pages.error(view, context: page("/books"))
        #expect(html.contains("<p class=\"message\">The exchange is unreachable.</p>"))
        #expect(html.contains("<p class=\"age\">Last good data: 12 min ago (Jun 15, 2025 at 2:54\u{202F}PM).</p>"))
        #expect(html.contains("<footer id=\"data-age\" class=\"data-age\" data-seconds=\"720\">"))
        let never = ErrorView.make(title: "Coins", message: "No prices.", lastGood: nil, context: SampleData.context())
        #expect(Pages.error(never, context: page("/coins")).contains("No data has arrived yet."))
    }

    /// Feed statuses that are neither ok nor a live plugin's become notices: a plugin's live state is its normal one.
    @Test func feedNotices() {
        let statuses = [
            FeedStatus(feed: "coingecko", state: .ok, lastSuccess: SampleData.now),
            FeedStatus(feed: "bitso", state: .error, message: "HTTP 503", lastSuccess: SampleData.now.addingTimeInterval(-720)),
            FeedStatus(feed: "bitso-ws", state: .live, message: "reconnects 0", lastSuccess: SampleData.now.addingTimeInterval(-200)),
            FeedStatus(feed: "kraken-ws", state: .gone, message: "no message for 30 s", lastSuccess: SampleData.now.addingTimeInterval(-60)),
        ]
        #expect(Notices.feedProblems(statuses, now: SampleData.now) == [
            "bitso is failing (HTTP 503); last good data 12 min ago", "kraken-ws is gone (no message for 30 s); last good data 1 min ago",
        ])
    }
}
