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
        let body = "\(refreshForm(context: context))\n<ul class=\"books\" id=\"books\">\(items.joined(separator: "\n"))</ul>"
        return Layout.document(
            title: "Books", context: context, notices: view.notices, dataAge: view.dataAge,
            head: refreshWithoutScript, body: body
        )
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
