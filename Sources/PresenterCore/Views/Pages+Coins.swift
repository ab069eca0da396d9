import Money
import PresenterViews
import TickwireContract
extension Pages {
    /// The coin list with live prices (Server-Sent Events), watch-list buttons, the add box and remove buttons.
    ///
    /// Rows are `tr.coin-row[data-asset=SYMBOL]`; the price cell is `[data-price-for=SYMBOL]`, the change
    /// cell `[data-change-for=SYMBOL]`. Watching posts to `/coins/{symbol}/watch`, unwatching to `/coins/{symbol}/unwatch`.
    /// The add box (`form#add-coin`) posts a CoinGecko id, symbol or name to `/coins/add`, suggested from
    /// `datalist#coin-suggestions`; a coin CoinGecko polls has a remove button posting to `/coins/{symbol}/remove`.
    public static func coins(_ view: CoinsView, context: PageContext) -> String {
        let rows = view.rows.map { row in
            let symbol = escapeHTML(row.symbol)
            let image = HTML.icon(symbol: row.symbol, size: 24)
            return """
                <tr class="coin-row\(row.watched ? " watched" : "")" data-asset="\(symbol)">\
                <td>\(image)</td><td class="name"><a href="\(escapeHTML(context.href(page: "/coins/\(row.symbol)")))">\(escapeHTML(row.name))</a> \
                <span class="symbol">\(symbol)</span></td>\
                \(priceCell(row.price, symbol: row.symbol))\
                \(HTML.amountCell(row.change24h, classes: "num change \(HTML.trendClass(row.trend))", attributes: " data-change-for=\"\(symbol)\""))\
                <td>\(watchForm(symbol: row.symbol, watched: row.watched, context: context))</td>\
                <td>\(row.tracked == true ? removeCoinForm(symbol: row.symbol, context: context) : "")</td></tr>
                """
        }
        let body = """
            <p class="live-status" id="live-status">live prices starting…</p>
            <table id="coins"><thead><tr><th></th><th>Coin</th><th class="num">Price (\(escapeHTML(view.currency ?? "")))</th><th class="num">24 h</th><th>Watch</th><th>List</th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            \(addCoinForm(suggestions: view.suggestions ?? [], context: context))
            """
        return Layout.document(
            title: "Coins", context: context, notices: view.notices, dataAge: view.dataAge, body: body,
            scripts: Scripts.tag("live-prices.js", data: [("currency", view.currency ?? context.currency)])
        )
    }

    /// One coin: price, market data, the 30-day chart, the holding, and the form that adds a trade
    /// (`POST /coins/{symbol}/trades` with amount, price, currency, date and a hidden `requestId`).
    public static func coin(_ view: CoinView, context: PageContext) -> String {
        let symbol = escapeHTML(view.symbol)
        let change = view.change24h.map {
            " <span class=\"change \(HTML.trendClass(view.trend))\" data-change-for=\"\(symbol)\" data-raw=\"\(escapeHTML($0.raw))\">\(escapeHTML($0.text))</span>"
        } ?? ""
        let price = view.price.map {
            "<span class=\"price-big\" data-price-for=\"\(symbol)\" data-raw=\"\(escapeHTML($0.raw))\">\(escapeHTML($0.text))</span>"
        } ?? "<span class=\"price-big missing\" data-price-for=\"\(symbol)\">\(escapeHTML(view.priceText))</span>"
        let figures = [
            HTML.figure("Market cap", view.marketCap, id: "market-cap"),
            view.rank.map { "<dt>Rank</dt><dd id=\"rank\">#\($0)</dd>" } ?? "",
            HTML.figure("Volume (24 h)", view.volume, id: "volume"),
            HTML.figure("High (24 h)", view.high24h, id: "high"),
            HTML.figure("Low (24 h)", view.low24h, id: "low"),
            HTML.figure("All-time high", view.allTimeHigh, id: "ath"),
            HTML.figure("Ask", view.ask, id: "ask"),
            HTML.figure("Bid", view.bid, id: "bid"),
            HTML.figure("Circulating supply", view.supply.circulating, id: "supply-circulating"),
            HTML.figure("Total supply", view.supply.total, id: "supply-total"),
            HTML.figure("Max supply", view.supply.max, id: "supply-max"),
        ].joined()
        let range = (try? CoinChartRange(parameter: context.query.last { $0.name == "range" }?.value)) ?? .standard
        let ranges = chartRanges(selected: range, context: context)
        let chart = view.chart.map { chart in
            let periodChange = chart.change.map { " <span class=\"change\">\(escapeHTML($0.text))</span>" } ?? ""
            return """
                <section id="chart"><h2>\(range.title)\(periodChange)</h2>\(ranges)
                \(Chart.svg(chart, title: "\(view.symbol) price over \(range.title) in \(chart.currency)"))
                <p id="chart-readout" class="muted">Low \(escapeHTML(chart.min.price.text)) (\(escapeHTML(chart.min.tick))) · \
                High \(escapeHTML(chart.max.price.text)) (\(escapeHTML(chart.max.tick)))</p>\
                \(view.chartNote.map { "<p id=\"chart-note\" class=\"muted small\">\(escapeHTML($0))</p>" } ?? "")</section>
                """
        } ?? "<section id=\"chart\"><h2>\(range.title)</h2>\(ranges)<p class=\"muted\">No price history to draw.</p></section>"
        let marketTitle = view.marketNote.map { " title=\"\(escapeHTML($0))\"" } ?? ""
        let marketNote = view.marketNote.map { "<p id=\"market-note\" class=\"muted small\">Market data converted: \(escapeHTML($0)).</p>" } ?? ""
        let portfolio = view.portfolio ?? PortfolioView.mainPortfolio
        let holding = view.holding.map { holdingTable([$0], context: context) }
            ?? "<p class=\"muted\">You hold no \(symbol) in \(escapeHTML(portfolio)) yet.</p>"
        let body = """
            <section id="coin" data-asset="\(symbol)"><div class="coin-head">\(HTML.icon(symbol: view.symbol, size: 40)) \
            <span class="symbol">\(symbol)</span> \(price)\(change) \(watchForm(symbol: view.symbol, watched: view.watched, context: context))</div>
            <p class="live-status" id="live-status">live prices starting…</p>
            \(figures.isEmpty ? "<p class=\"muted\">No market data yet.</p>" : "<dl class=\"figures\"\(marketTitle)>\(figures)</dl>\(marketNote)")</section>
            \(chart)
            <section id="holding"><h2>Your holding in <a id="holding-portfolio" href="\(escapeHTML(context.href(page: "/portfolio", portfolio: portfolio)))">\
            \(escapeHTML(portfolio))</a></h2>\(holding)</section>
            <section id="add-trade"><h2>Add a trade</h2>\(tradeForm(
                symbol: view.symbol, currency: view.currency ?? context.currency, prices: view.tradePrices, portfolio: portfolio, context: context))</section>
            """
        return Layout.document(
            title: "\(view.name) (\(view.symbol))", context: context, notices: view.notices, dataAge: view.dataAge, body: body,
            scripts: Scripts.tag("live-prices.js", data: [("currency", view.currency ?? context.currency)])
                + Scripts.tag("chart-readout.js") + Scripts.tag("trade-price.js")
        )
    }

    /// The chart's ranges as links (`?range=1D`, the page's other query items kept), so they work without JavaScript;
    /// the one shown is marked for assistive technology.
    static func chartRanges(selected: CoinChartRange, context: PageContext) -> String {
        let items = CoinChartRange.allCases.map { range in
            let current = range == selected
            return "<li data-range=\"\(range.rawValue)\"\(current ? " class=\"selected\"" : "")><a href=\"\(escapeHTML(context.href(setting: "range", to: range.rawValue)))\""
                + "\(current ? " aria-current=\"page\"" : "") aria-label=\"\(range.title)\"><span class=\"range\">\(range.rawValue)</span></a></li>"
        }.joined()
        return "<nav aria-label=\"Chart range\"><ul class=\"returns\" id=\"chart-ranges\">\(items)</ul></nav>"
    }

    /// A price cell live updates write into; "no price" when there is none.
    static func priceCell(_ price: DisplayAmount?, symbol: String) -> String {
        let key = " data-price-for=\"\(escapeHTML(symbol))\""
        guard let price else { return "<td class=\"num price missing\"\(key)>\(escapeHTML(CoinsView.noPrice))</td>" }
        return HTML.amountCell(price, classes: "num price", attributes: key)
    }

    /// A price as the trade form suggests it: at most 8 places, and at least the currency's minor units.
    static func suggestion(_ price: ExactDecimal) -> ExactDecimal {
        price.rounded(scale: ExactDecimal(1) <= price ? 2 : 8)
    }

    /// The add box: a CoinGecko id, symbol or name, with the known coins as suggestions (`option` values are ids).
    static func addCoinForm(suggestions: [KnownCoin], context: PageContext) -> String {
        let options = suggestions.map { coin in
            let label = [coin.name, coin.symbol.map { "(\($0))" }].compactMap { $0 }.joined(separator: " ")
            return "<option value=\"\(escapeHTML(coin.id))\"\(label.isEmpty ? "" : " label=\"\(escapeHTML(label))\"")></option>"
        }.joined()
        return """
            <section id="add-coin-section"><h2>Add a coin</h2>
            <form id="add-coin" class="card" method="post" action="/coins/add">
            <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">
            <label>CoinGecko id, symbol or name<input name="coin" list="coin-suggestions" required autocomplete="off" placeholder="polkadot, DOT or Polkadot"></label>
            <datalist id="coin-suggestions">\(options)</datalist>
            <button type="submit">Add coin</button>
            </form></section>
            """
    }

    /// The button that stops rates-fetcher polling a coin on CoinGecko (`POST /coins/{symbol}/remove`).
    static func removeCoinForm(symbol: String, context: PageContext) -> String {
        """
        <form class="inline remove-coin" method="post" action="\(escapeHTML("/coins/\(symbol)/remove"))">\
        <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">\
        <button type="submit" class="link" title="Stop following \(escapeHTML(symbol)) on CoinGecko">Remove</button></form>
        """
    }

    /// The button that adds a coin to the watch list or removes it.
    static func watchForm(symbol: String, watched: Bool, context: PageContext) -> String {
        let action = "/coins/\(symbol)/\(watched ? "unwatch" : "watch")"
        return """
            <form class="inline watch" method="post" action="\(escapeHTML(action))">\
            <input type="hidden" name="requestId" value="\(escapeHTML(context.requestId))-\(escapeHTML(symbol))">\
            <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">\
            <button type="submit" class="link" aria-pressed="\(watched)" title="\(watched ? "Remove from" : "Add to") watch list">\(watched ? "★" : "☆")</button></form>
            """
    }

    /// The form that records an activity of `symbol` (a buy, sell, fee or transfer, with an optional fee in its own
    /// currency); a resubmission carries the same `requestId`. Its price field suggests the coin's own current price in
    /// the currency chosen (`prices`, by currency; none when unknown). Amount and price may be left empty for none (a
    /// fee activity, a transfer out); the portfolio says what a kind needs. It adds to `portfolio` unless the reader names another
    /// in its `portfolio` field: a new name starts a new portfolio.
    static func tradeForm(symbol: String, currency: String, prices: [String: ExactDecimal], portfolio: String, context: PageContext) -> String {
        let today = DisplayDate.isoDay(context.now)
        let currencies = ([currency] + Layout.currencies + ["EUR"]).reduce(into: [String]()) { list, code in
            if !list.contains(code) { list.append(code) }
        }
        let options = currencies.map { code in
            let suggested = prices[code].map { " data-price=\"\(escapeHTML(suggestion($0).description))\"" } ?? ""
            return "<option value=\"\(escapeHTML(code))\"\(suggested)\(code == currency ? " selected" : "")>\(escapeHTML(code))</option>"
        }.joined()
        let placeholder = prices[currency].map { suggestion($0).description } ?? ""
        let kinds = ActivityKind.allCases.map { "<option value=\"\($0.rawValue)\">\(escapeHTML(PortfolioView.kindText($0)))</option>" }.joined()
        let feeOptions = currencies.map { "<option value=\"\(escapeHTML($0))\"\($0 == currency ? " selected" : "")>\(escapeHTML($0))</option>" }.joined()
        return """
            <form id="trade-form" class="card" method="post" action="\(escapeHTML("/coins/\(symbol)/trades"))">
            <input type="hidden" name="requestId" value="\(escapeHTML(context.requestId))">
            <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">
            <label>Kind<select name="kind">\(kinds)</select></label>
            <label>Amount (\(escapeHTML(symbol)))<input name="amount" inputmode="decimal" pattern="[0-9]+([.][0-9]+)?" placeholder="0.5"></label>
            <label>Price per unit<input name="price" inputmode="decimal" pattern="[0-9]+([.][0-9]+)?" placeholder="\(escapeHTML(placeholder))"></label>
            <label>Currency<select name="currency">\(options)</select></label>
            <label>Fee (optional)<input name="feeAmount" inputmode="decimal" pattern="[0-9]+([.][0-9]+)?" placeholder="0"></label>
            <label>Fee currency<select name="feeCurrency">\(feeOptions)</select></label>
            <label>Date<input name="date" type="date" required value="\(today)" max="\(today)"></label>
            <label>Portfolio<input name="portfolio" id="trade-portfolio" required autocomplete="off" value="\(escapeHTML(portfolio))" \
            title="an existing portfolio, or a new name: 1 to 40 letters, digits, spaces, '-', '_' or '.'"></label>
            <button type="submit">Add trade</button>
            </form>
            """
    }
}
