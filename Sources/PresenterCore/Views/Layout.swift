import PresenterViews
/// The frame every page shares: document head linking the stylesheet, navigation, locale and currency switches,
/// the notices area, the data-age footer, and the script that keeps the page live (``Scripts/live``).
enum Layout {
    /// A link of the navigation bar.
    struct Link: Sendable, Equatable {
        /// Where it goes, e.g. `/coins`.
        var path: String
        /// Its text.
        var title: String
    }

    /// The pages the navigation bar links, in order.
    static let pages: [Link] = [
        Link(path: "/assets", title: "Assets"), Link(path: "/wallets", title: "Wallets"), Link(path: "/coins", title: "Coins"),
        Link(path: "/portfolio", title: "Portfolio"), Link(path: "/books", title: "Books"), Link(path: "/products", title: "Products"),
    ]

    /// The pages of the plugins that answer now (``Plugins/links()``), linked after ``pages``: set for each request the
    /// dashboard serves, so every page it renders links them.
    @TaskLocal static var pluginLinks: [Link] = []

    /// The locales the switch offers.
    static let locales = ["de_AT", "en_US", "sv_SE", "es_MX", "de_DE"]

    /// The display currencies the switch offers: the converter's default ones (MXN too: a replay's Bitso markets are in it).
    static let currencies = ["USD", "SEK", "EUR", "MXN"]

    /// A complete HTML5 document around `body`; `head` adds to the head, `scripts` closes the body; the footer
    /// says `withoutAge` when there is no `dataAge`. `fixedCurrency` is the one currency a page shows whatever the
    /// reader chose (Assets: EUR): the header then shows it (`#currency-fixed`) instead of offering the currency
    /// switch.
    static func document(
        title: String, context: PageContext, notices: [String], dataAge: DataAge?, withoutAge: String = "Data age unknown.",
        head: String = "", body: String, scripts: String = "", fixedCurrency: String? = nil
    ) -> String {
        """
        <!DOCTYPE html>
        <html lang="\(escapeHTML(context.locale.replacing("_", with: "-")))">
        <head>
        <meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <meta name="color-scheme" content="light dark">
        <title>\(escapeHTML(title)) · Tickwire</title>
        <link rel="stylesheet" href="/static/tickwire.css">
        \(head)
        </head>
        <body>
        <header class="top">
        \(navigation(context))
        <div class="switches">
        \(switcher(id: "locale-switch", label: "Locale", name: "locale", options: locales.map { ($0, $0) }, current: context.locale, context: context))
        \(fixedCurrency.map(currencyFixed) ?? switcher(id: "currency-switch", label: "Currency", name: "currency", options: currencies.map { ($0, $0) }, current: context.currency, context: context))
        </div>
        </header>
        <main>
        <h1>\(escapeHTML(title))</h1>
        \(noticesArea(notices))
        \(body)
        </main>
        \(footer(dataAge, withoutAge: withoutAge))
        \(liveScript(context))
        \(scripts)
        </body>
        </html>
        """
    }

    /// The streams every page's notices follow: a change of their state refreshes every page.
    static let upstreams = ["rates-fetcher", "converter", "portfolio"]

    /// How a page follows its data: the kinds of change (``StateWatch``) after which it fetches itself again
    /// and swaps its content in place (always the ``upstreams``' states, which its notices show), how often it
    /// does so anyway (0: never), and whether it shows live prices.
    static func live(path: String) -> (refreshOn: [String], every: Int, prices: Bool) {
        let own = content(path: path)
        return (own.refreshOn + upstreams.filter { !own.refreshOn.contains($0) }, own.every, own.prices)
    }

    private static func content(path: String) -> (refreshOn: [String], every: Int, prices: Bool) {
        let parts = path.split(separator: "/")
        switch parts.first ?? "" {
        case "assets": return (["assets"], 0, false)
        case "wallets": return (["wallets", "portfolio"], 0, false)
        case "coins": return parts.count == 1 ? (["coin", "price", "portfolio"], 0, true) : ([], 0, true)
        case "portfolio": return (["portfolio"], 0, true)
        case "books": return (["limits"], Pages.booksRefreshSeconds, false)
        case "products": return (["portfolio"], 0, false)
        case "plugins": return parts.count > 1 ? ([Plugins.kind(of: String(parts[1]))], 0, false) : ([], 0, false)
        default: return ([], 0, false)
        }
    }

    /// The `<script>` of ``Scripts/live``, with the page's parameters; the Portfolio screen's names the portfolio it shows, whose
    /// changes alone it fetches itself again for.
    static func liveScript(_ context: PageContext) -> String {
        let live = live(path: context.path)
        let portfolio = context.path == "/portfolio" ? [("portfolio", ScreenBuilder.portfolioName(context.portfolio))] : []
        return Scripts.tag("live.js", data: [
            ("currency", context.currency), ("locale", context.locale), ("prices", live.prices ? "1" : "0"),
            ("refresh-on", live.refreshOn.joined(separator: " ")), ("refresh-every", String(live.every)),
        ] + portfolio)
    }

    /// The navigation bar, the live plugins' pages last; the current page (or the list a detail page belongs to) is marked.
    static func navigation(_ context: PageContext) -> String {
        let links = (pages + pluginLinks).map { page in
            let current = context.isWithin(page.path) ? " aria-current=\"page\"" : ""
            return "<a href=\"\(escapeHTML(context.href(page: page.path)))\"\(current)>\(escapeHTML(page.title))</a>"
        }
        return "<nav class=\"pages\" aria-label=\"Pages\">\(links.joined())</nav>"
    }

    /// A row of links that each set query item `name` on the current page, the current value marked.
    static func switcher(id: String, label: String, name: String, options: [(value: String, title: String)], current: String, context: PageContext) -> String {
        let links = options.map { option in
            let selected = option.value.lowercased() == current.lowercased() ? " aria-current=\"true\" class=\"selected\"" : ""
            return "<a href=\"\(escapeHTML(context.href(setting: name, to: option.value)))\" data-\(name)=\"\(escapeHTML(option.value))\"\(selected)>\(escapeHTML(option.title))</a>"
        }
        return "<nav class=\"switch\" id=\"\(id)\" aria-label=\"\(escapeHTML(label))\"><span class=\"switch-label\">\(escapeHTML(label))</span>\(links.joined())</nav>"
    }

    /// In place of the currency switch on a page whose amounts are in one currency only: that currency, not a link.
    static func currencyFixed(_ code: String) -> String {
        "<div class=\"switch\" id=\"currency-fixed\"><span class=\"switch-label\">Currency</span><span class=\"selected\">\(escapeHTML(code))</span></div>"
    }

    /// The notices area, present on every page (empty when all is well) so alerts have one place.
    static func noticesArea(_ notices: [String]) -> String {
        let items = notices.map { "<li>\(escapeHTML($0))</li>" }.joined()
        return "<div id=\"notices\" class=\"notices\" role=\"alert\">\(items.isEmpty ? "" : "<ul>\(items)</ul>")</div>"
    }

    /// "Data as of … (5 min old)", or `withoutAge` (that the age is unknown).
    static func footer(_ age: DataAge?, withoutAge: String = "Data age unknown.") -> String {
        guard let age else { return "<footer id=\"data-age\" class=\"data-age\">\(escapeHTML(withoutAge))</footer>" }
        return """
            <footer id="data-age" class="data-age" data-seconds="\(age.seconds)">Data as of \
            <time datetime="\(escapeHTML(age.asOf))">\(escapeHTML(age.asOfText))</time> (\(escapeHTML(age.text)) old).</footer>
            """
    }
}
