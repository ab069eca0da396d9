import PresenterViews
extension Pages {
    /// Seconds between reloads of the books pages.
    static let booksRefreshSeconds = 30

    /// The exchange books (`li.book[data-book]`): maximum price highlighted, min/max value secondary.
    /// Fetched again every 30 s (``refreshWithoutScript``); the Refresh button posts to `/books/refresh`.
    public static func books(_ view: BooksView, context: PageContext) -> String {
        let items = view.rows.map { row in
            let last = row.last.map { "<span class=\"secondary last\" data-raw=\"\(escapeHTML($0.raw))\">Last \(escapeHTML($0.text))</span>" } ?? ""
            return """
                <li class="book" data-book="\(escapeHTML(row.book))"><a href="\(escapeHTML(context.href(page: "/books/\(row.book)")))">\(escapeHTML(row.name))</a>\
                <span class="highlight max-price" data-raw="\(escapeHTML(row.maximumPrice.raw))" title="Maximum price">\(escapeHTML(row.maximumPrice.text))</span>\
                <span class="secondary min-value" data-raw="\(escapeHTML(row.minimumValue.raw))">Min value \(escapeHTML(row.minimumValue.text))</span>\
                <span class="secondary max-value" data-raw="\(escapeHTML(row.maximumValue.raw))">Max value \(escapeHTML(row.maximumValue.text))</span>\(last)</li>
                """
        }
        let body = """
            \(refreshForm(context: context))
            \(depthSection(view.depth, choices: view.depthChoices, context: context))
            <h2 id="limits-title">Order limits</h2>
            <ul class="books" id="books" aria-labelledby="limits-title">\(items.joined(separator: "\n"))</ul>
            """
        let script = view.depth.map { ladder in
            Scripts.tag("depth-ladder.js", data: [("feed", ladder.feed), ("market", ladder.market), ("locale", context.locale)])
        } ?? ""
        return Layout.document(
            title: "Books", context: context, notices: view.notices, dataAge: view.dataAge,
            head: refreshWithoutScript, body: body, scripts: script
        )
    }

    /// The depth ladder (`#depth`): a switch between the order books known, the spread, sequence and feed, the bids
    /// (`table#bids`) and asks (`table#asks`) with their cumulative sizes and depth bars, and the last trades
    /// (`table#trades`); kept live by `depth-ladder.js` from `/events/depth`.
    static func depthSection(_ ladder: DepthLadder?, choices: [DepthChoice], context: PageContext) -> String {
        guard let ladder else {
            return "<section id=\"depth\" class=\"depth\"><h2>Order book</h2><p class=\"muted\">No feed publishes an order book yet.</p></section>"
        }
        let links = choices.map { choice in
            let current = choice.feed == ladder.feed && choice.market == ladder.market
            let href = context.href(setting: [.init(name: "feed", value: choice.feed), .init(name: "market", value: choice.market)])
            let marked = current ? " aria-current=\"true\" class=\"selected\"" : ""
            return "<a href=\"\(escapeHTML(href))\"\(marked)>\(escapeHTML(choice.market)) · \(escapeHTML(choice.feed))</a>"
        }.joined()
        let spread = ladder.spread.map { "<span id=\"spread\" data-raw=\"\(escapeHTML($0.raw))\">\(escapeHTML($0.text))</span>" }
            ?? "<span id=\"spread\" class=\"missing\">—</span>"
        let percent = ladder.spreadPercent.map { "<span id=\"spread-percent\" data-raw=\"\(escapeHTML($0.raw))\">(\(escapeHTML($0.text)))</span>" }
            ?? "<span id=\"spread-percent\"></span>"
        return """
            <section id="depth" class="depth" aria-labelledby="depth-title" data-feed="\(escapeHTML(ladder.feed))" data-market="\(escapeHTML(ladder.market))">
            <h2 id="depth-title">Order book \(escapeHTML(ladder.name))</h2>
            <nav class="switch" id="depth-choice" aria-label="Order books"><span class="switch-label">Book</span>\(links)</nav>
            <dl class="figures depth-figures">\
            <dt>Spread</dt><dd>\(spread) \(percent)</dd>\
            <dt>Sequence</dt><dd id="sequence">\(ladder.sequence)</dd>\
            <dt>Feed</dt><dd id="depth-feed">\(escapeHTML(ladder.feed))</dd></dl>
            <div class="ladder">
            \(ladderTable(id: "bids", caption: "Bids (buy orders), best first", ladder.bids, ladder: ladder))
            \(ladderTable(id: "asks", caption: "Asks (sell orders), best first", ladder.asks, ladder: ladder))
            </div>
            \(tradesTable(ladder))
            </section>
            """
    }

    /// One side of the ladder as a table: price, size, cumulative size and the depth bar of each level.
    static func ladderTable(id: String, caption: String, _ levels: [DepthLadder.Level], ladder: DepthLadder) -> String {
        let rows = levels.map(ladderRow).joined()
        return """
            <table id="\(id)" class="ladder-side \(id)"><caption>\(escapeHTML(caption))</caption>\
            <thead><tr><th scope="col" class="num">Price (\(escapeHTML(ladder.quote)))</th><th scope="col" class="num">Size (\(escapeHTML(ladder.base)))</th>\
            <th scope="col" class="num">Total (\(escapeHTML(ladder.base)))</th><th scope="col" class="depth-col">Depth</th></tr></thead>\
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"4\" class=\"muted\">No orders.</td></tr>" : rows)</tbody></table>
            """
    }

    /// One level's row; the bar's length is a class (`w0`...`w100`), as the Content-Security-Policy allows no inline style.
    static func ladderRow(_ level: DepthLadder.Level) -> String {
        let depth = min(max(level.depth, 0), 100)
        return """
            <tr>\(HTML.amountCell(level.price, classes: "num price"))\(HTML.amountCell(level.size, classes: "num size"))\
            \(HTML.amountCell(level.total, classes: "num total"))<td class="depth-cell"><span class="bar w\(depth)"></span>\
            <span class="visually-hidden">\(depth) %</span></td></tr>
            """
    }

    /// The last trades, newest first: time, side, price and size.
    static func tradesTable(_ ladder: DepthLadder) -> String {
        let rows = ladder.trades.map { trade in
            """
            <tr><td><time datetime="\(escapeHTML(trade.time))">\(escapeHTML(trade.timeText))</time></td>\
            <td class="side \(trade.side == "buy" ? "up" : trade.side == "sell" ? "down" : "flat")">\(escapeHTML(tradeSide(trade.side)))</td>\
            \(HTML.amountCell(trade.price, classes: "num price"))\(HTML.amountCell(trade.size, classes: "num size"))</tr>
            """
        }.joined()
        return """
            <table id="trades" class="trades"><caption>Last trades</caption>\
            <thead><tr><th scope="col">Time (UTC)</th><th scope="col">Side</th><th scope="col" class="num">Price (\(escapeHTML(ladder.quote)))</th>\
            <th scope="col" class="num">Size (\(escapeHTML(ladder.base)))</th></tr></thead>\
            <tbody>\(rows.isEmpty ? "<tr><td colspan=\"4\" class=\"muted\">No trades yet.</td></tr>" : rows)</tbody></table>
            """
    }

    /// A taker side as shown: "Buy", "Sell", or "—" when the exchange does not say.
    static func tradeSide(_ side: String?) -> String {
        switch side {
        case "buy": "Buy"
        case "sell": "Sell"
        case .some(let other): other
        case .none: "—"
        }
    }

    /// One book's ticker: last, volume, high, low, 24 h change, VWAP, and ask and bid in their own section.
    public static func book(_ view: BookView, context: PageContext) -> String {
        let change = [view.change24h?.text, view.changePercent24h.map { "(\($0.text))" }].compactMap { $0 }.joined(separator: " ")
        let changeFigure = change.isEmpty ? "" : "<dt>Change (24 h)</dt><dd id=\"change\" class=\"\(HTML.trendClass(view.trend))\">\(escapeHTML(change))</dd>"
        let figures = [
            HTML.figure("Last", view.last, id: "last"), HTML.figure("Volume (24 h)", view.volume, id: "volume"),
            HTML.figure("High (24 h)", view.high, id: "high"), HTML.figure("Low (24 h)", view.low, id: "low"),
            changeFigure, HTML.figure("VWAP", view.vwap, id: "vwap"),
        ].joined()
        let orders = [HTML.figure("Ask", view.ask, id: "ask"), HTML.figure("Bid", view.bid, id: "bid")].joined()
        let body = """
            \(refreshForm(context: context))
            <section id="ticker" data-book="\(escapeHTML(view.book))"><dl class="figures">\(figures)</dl></section>
            <section id="orders"><h2>Ask and bid</h2>\(orders.isEmpty ? "<p class=\"muted\">No ask or bid known.</p>" : "<dl class=\"figures\">\(orders)</dl>")</section>
            <p><a href="\(escapeHTML(context.href(page: "/books")))">All books</a></p>
            """
        return Layout.document(
            title: view.name, context: context, notices: view.notices, dataAge: view.dataAge,
            head: refreshWithoutScript, body: body
        )
    }

    /// A reload every 30 s for a browser without scripts; with them, the page's script fetches it again
    /// and swaps the figures in place (``Layout/live(path:)``).
    static let refreshWithoutScript = "<noscript><meta http-equiv=\"refresh\" content=\"\(booksRefreshSeconds)\"></noscript>"

    /// The on-demand refresh: `POST /books/refresh`, then the server redirects back.
    static func refreshForm(context: PageContext) -> String {
        """
        <form id="refresh" class="inline" method="post" action="/books/refresh">\
        <input type="hidden" name="requestId" value="\(escapeHTML(context.requestId))">\
        <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">\
        <input type="hidden" name="return" value="\(escapeHTML(context.href(page: context.path)))">\
        <button type="submit">Refresh</button></form>
        """
    }
}
