import Money
import PresenterViews
/// Server-rendered pages: each turns a view and a ``PageContext`` into a complete HTML5 document.
///
/// Element ids and classes are stable for browser tests: `tr.asset-row[data-symbol]`, `tr.wallet-row.fiat`,
/// `tr.coin-row[data-asset]`, `li.book[data-book]`, `tr.product-row[data-sku]`, `#total`, `#notices`.
public enum Pages {
    /// The page of any view.
    public static func page(_ view: ScreenView, context: PageContext) -> String {
        switch view {
        case .assets(let view): assets(view, context: context)
        case .wallets(let view): wallets(view, context: context)
        case .coins(let view): coins(view, context: context)
        case .coin(let view): coin(view, context: context)
        case .portfolio(let view): portfolio(view, context: context)
        case .books(let view): books(view, context: context)
        case .book(let view): book(view, context: context)
        case .products(let view): products(view, context: context)
        case .product(let view): product(view, context: context)
        case .error(let view): error(view, context: context)
        }
    }

    /// The assets list with its filter switch (all / crypto / commodity / fiat). Average prices are the masterdata's,
    /// in EUR whatever display currency the reader chose: the page says so (`#currency-note`) and its header shows
    /// the currency instead of offering the switch.
    public static func assets(_ view: AssetsView, context: PageContext) -> String {
        let currency = view.currency ?? Currency.eur.code
        let filters = AssetsView.Filter.allCases.map { ($0.rawValue, $0.rawValue.capitalized) }
        let rows = view.rows.map { row in
            let unit = row.unit.map { " <span class=\"symbol\">/ \(escapeHTML($0))</span>" } ?? ""
            return """
                <tr class="asset-row \(row.kind.rawValue)" data-symbol="\(escapeHTML(row.symbol))" data-kind="\(row.kind.rawValue)">\
                <td>\(HTML.icon(light: row.iconLight, dark: row.iconDark, alt: row.symbol))</td>\
                <td class="name">\(escapeHTML(row.name))</td><td class="symbol">\(escapeHTML(row.symbol))</td>\
                \(row.averagePrice.map { "<td class=\"num price\" data-raw=\"\(escapeHTML($0.raw))\">\(escapeHTML($0.text))\(unit)</td>" } ?? "<td class=\"num price missing\">—</td>")\
                \(HTML.amountCell(row.change24h, classes: "num change \(HTML.trendClass(row.trend))"))</tr>
                """
        }
        let body = """
            \(Layout.switcher(id: "filter-switch", label: "Show", name: "filter", options: filters, current: view.filter.rawValue, context: context))
            <p id="currency-note" class="muted small">Average prices are in \(escapeHTML(currency)), as the masterdata gives them.</p>
            <table id="assets"><thead><tr><th></th><th>Name</th><th>Symbol</th><th class="num">Average price (\(escapeHTML(currency)))</th><th class="num">24 h</th></tr></thead>
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            """
        return Layout.document(title: "Assets", context: context, notices: view.notices, dataAge: view.dataAge, body: body, fixedCurrency: currency)
    }

    /// The wallets, grouped fiat / crypto / commodity; fiat rows carry the `fiat` class, the default wallet a badge.
    public static func wallets(_ view: WalletsView, context: PageContext) -> String {
        let sections = view.groups.map { group in
            let rows = group.rows.map { row in
                let classes = ["wallet-row", row.isFiat ? "fiat" : "holding", row.isDefault ? "default" : nil].compactMap { $0 }.joined(separator: " ")
                let badge = row.isDefault ? "<span class=\"badge default-badge\">default</span>" : ""
                return """
                    <tr class="\(classes)" data-wallet-id="\(escapeHTML(row.id))" data-symbol="\(escapeHTML(row.symbol))">\
                    <td>\(HTML.icon(light: row.iconLight, dark: row.iconDark, alt: row.symbol))</td>\
                    <td class="name">\(escapeHTML(row.name))\(badge)</td><td>\(escapeHTML(row.assetName)) <span class="symbol">\(escapeHTML(row.symbol))</span></td>\
                    \(HTML.amountCell(row.balance, classes: "num balance"))</tr>
                    """
            }
            let content = rows.isEmpty
                ? "<p class=\"muted\">No \(escapeHTML(group.title.lowercased())).</p>"
                : "<table><thead><tr><th></th><th>Wallet</th><th>Asset</th><th class=\"num\">Balance</th></tr></thead><tbody>\(rows.joined(separator: "\n"))</tbody></table>"
            return "<section class=\"wallet-group\" id=\"wallets-\(group.kind.rawValue)\"><h2>\(escapeHTML(group.title))</h2>\(content)</section>"
        }
        return Layout.document(title: "Wallets", context: context, notices: view.notices, dataAge: view.dataAge, body: sections.joined(separator: "\n"))
    }

    /// The page for a screen whose data is unavailable: the message and the age of the last good data.
    public static func error(_ view: ErrorView, context: PageContext) -> String {
        let body = """
            <section id="error" class="error"><p class="message">\(escapeHTML(view.message))</p>\
            <p class="age">\(escapeHTML(view.dataAgeText))</p>\
            <p><a href="\(escapeHTML(context.href(page: context.path)))">Try again</a></p></section>
            """
        return Layout.document(title: view.title, context: context, notices: view.notices, dataAge: view.dataAge, body: body)
    }
}
