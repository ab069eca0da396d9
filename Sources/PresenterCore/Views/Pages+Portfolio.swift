import PresenterViews
import TickwireContract
extension Pages {
    /// The portfolio: totals (`#total-value`, `#total-cost`, `#total-gain`), performance (`ul#returns` with one
    /// `li[data-range]` per range linking to its chart, `#twr-<range>`, the value chart `svg#price-chart`), gains
    /// (`table#gains-table`, `tr.gain-row[data-asset]`, `#realized-total`, `#unrealized-total`, `#gain-total`), holdings
    /// (`tr.holding-row[data-asset]`, price cells live-updated), activities (`tr.trade-row[data-trade-id]` with kind and fee, and
    /// `a.remove-activity` to its confirm page; `a#history-link` to the portfolio's history), the
    /// import form and export links (``importSection(content:format:portfolio:limitBytes:context:)``) and, after an import, its
    /// notice; above them the portfolio switch (``portfolioSwitch(_:current:context:)``), and the portfolio's name in the title.
    public static func portfolio(_ view: PortfolioView, context: PageContext) -> String {
        let name = view.portfolio ?? PortfolioView.mainPortfolio
        let trades = view.trades.map { trade in
            """
            <tr class="trade-row" data-trade-id="\(escapeHTML(trade.id))" data-asset="\(escapeHTML(trade.asset))">\
            <td><time datetime="\(escapeHTML(trade.date))">\(escapeHTML(trade.dateText))</time></td>\
            <td class="kind" data-kind="\(escapeHTML(trade.kind))">\(escapeHTML(trade.kindText))</td>\
            <td><a href="\(escapeHTML(context.href(page: "/coins/\(trade.asset)")))">\(escapeHTML(trade.asset))</a></td>\
            \(HTML.amountCell(trade.amount, classes: "num amount"))\(HTML.amountCell(trade.price, classes: "num price"))\
            \(HTML.amountCell(trade.fee, classes: "num fee"))\
            <td class="actions"><a class="remove-activity" href="\(escapeHTML(removeLink(trade.id, portfolio: name, context: context)))">Remove</a></td></tr>
            """
        }
        let tradesSection = trades.isEmpty
            ? "<p class=\"muted\">No activities yet.</p>"
            : """
            <table id="trades"><thead><tr><th>Date</th><th>Kind</th><th>Asset</th><th class="num">Amount</th><th class="num">Price</th>\
            <th class="num">Fee</th><th></th></tr></thead><tbody>\(trades.joined(separator: "\n"))</tbody></table>
            """
        let history = "<a id=\"history-link\" class=\"small\" href=\"\(escapeHTML(context.href(page: "/portfolio/history", portfolio: name)))\">History</a>"
        let body = """
            \(portfolioSwitch(view, current: name, context: context))
            <section id="totals"><dl class="figures">\
            \(HTML.figure("Value", view.totalValue, id: "total-value"))\(HTML.figure("Cost", view.totalCost, id: "total-cost"))\
            <dt>Gain</dt><dd id="total-gain" class="\(HTML.trendClass(view.trend))" data-raw="\(escapeHTML(view.totalGain.raw))">\(escapeHTML(view.totalGain.text))</dd>\
            </dl>\(view.offline ? "<p class=\"offline muted\" id=\"offline\">Offline: stored prices.</p>" : "")</section>
            <p class="live-status" id="live-status">live prices starting…</p>
            \(performanceSection(view.performance, currency: view.currency ?? context.currency, context: context))
            \(gainsSection(view.gains, currency: view.currency ?? context.currency))
            <section id="holdings"><h2>Holdings (\(escapeHTML(view.currency ?? "")))</h2>\
            \(view.holdings.isEmpty ? "<p class=\"muted\">Nothing held.</p>" : holdingTable(view.holdings, context: context))</section>
            <section id="trade-list"><h2>Activities \(history)</h2>\(tradesSection)</section>
            \(importSection(portfolio: name, context: context))
            """
        return Layout.document(
            title: portfolioTitle(name), context: context, notices: importedNotice(context) + removedNotice(context) + view.notices, dataAge: view.dataAge, body: body,
            scripts: Scripts.tag("live-prices.js", data: [("currency", view.currency ?? context.currency)]) + Scripts.tag("import-file.js")
        )
    }

    /// The title of a portfolio's page: "Portfolio · Savings".
    static func portfolioTitle(_ name: String) -> String {
        "Portfolio · \(name)"
    }

    /// The portfolios to switch to (`nav#portfolio-switch`, one `a[data-portfolio]` each with its number of activities, the one
    /// shown marked; it is listed, as new, while it has no activity) and the form that opens another by name
    /// (`form#new-portfolio`, a GET of this screen keeping locale, currency and range): a new portfolio starts with its first
    /// activity, added from a coin's page or imported here.
    static func portfolioSwitch(_ view: PortfolioView, current: String, context: PageContext) -> String {
        var choices = view.portfolios ?? []
        let listed = choices.contains { $0.name == current }
        if !listed { choices.append(PortfolioSummary(name: current, activities: view.trades.count)) }
        let links = choices.map { choice in
            let selected = choice.name == current ? " aria-current=\"page\" class=\"selected\"" : ""
            return """
                <a href="\(escapeHTML(context.href(switchingTo: choice.name)))" data-portfolio="\(escapeHTML(choice.name))"\(selected)>\
                \(escapeHTML(choice.name)) <span class="count" title="activities">\(choice.activities)</span></a>
                """
        }.joined()
        let kept = context.query.filter { ["locale", "currency", "range"].contains($0.name) }.map {
            "<input type=\"hidden\" name=\"\(escapeHTML($0.name))\" value=\"\(escapeHTML($0.value))\">"
        }.joined()
        let note = listed ? "" : """
            <p id="portfolio-new" class="muted small">\(escapeHTML(current)) has no activities yet: it starts with the first one you \
            add from a coin's page or import below.</p>
            """
        let unlisted = view.portfolios == nil ? "<p id=\"portfolios-unavailable\" class=\"muted small\">The other portfolios could not be listed.</p>" : ""
        return """
            <section id="portfolios" class="portfolios"><nav class="switch portfolio-switch" id="portfolio-switch" aria-label="Portfolio">\
            <span class="switch-label">Portfolio</span>\(links)</nav>
            <form id="new-portfolio" class="inline new-portfolio" method="get" action="/portfolio">\(kept)\
            <label>Another portfolio<input name="portfolio" id="new-portfolio-name" required autocomplete="off" placeholder="Savings" \
            title="1 to 40 letters, digits, spaces, '-', '_' or '.'"></label><button type="submit">Open</button></form>
            \(note)\(unlisted)</section>
            """
    }

    /// After an import (`?imported=N&duplicates=M`), how many activities it added and skipped.
    static func importedNotice(_ context: PageContext) -> [String] {
        func number(_ name: String) -> Int? { context.query.first { $0.name == name }.flatMap { Int($0.value) } }
        guard let imported = number("imported") else { return [] }
        let skipped = number("duplicates") ?? 0
        return ["Imported \(imported) \(imported == 1 ? "activity" : "activities")"
            + (skipped > 0 ? "; \(skipped) already imported, skipped." : ".")]
    }

    /// After a removal (`?removed=1`), that it was done.
    static func removedNotice(_ context: PageContext) -> [String] {
        context.query.contains { $0.name == "removed" } ? ["Removed the activity; the history keeps it."] : []
    }

    /// The time-weighted return of every range (each a link to its chart) and the value chart of the range shown.
    static func performanceSection(_ section: PerformanceSection?, currency: String, context: PageContext) -> String {
        guard let section else { return "<section id=\"performance\"><h2>Performance</h2><p class=\"muted\">No performance to show.</p></section>" }
        let tiles = section.returns.map { item in
            let selected = item.range == section.range
            let figure = item.twr.map {
                "<span class=\"twr \(HTML.trendClass(item.trend))\" id=\"twr-\(escapeHTML(item.range))\" data-raw=\"\(escapeHTML($0.raw))\">\(escapeHTML($0.text))</span>"
            } ?? "<span class=\"twr missing\" id=\"twr-\(escapeHTML(item.range))\">—</span>"
            let title = item.missing.map { " title=\"\(escapeHTML($0))\"" } ?? ""
            return """
                <li data-range="\(escapeHTML(item.range))"\(selected ? " class=\"selected\"" : "")><a href="\(escapeHTML(context.href(setting: "range", to: item.range)))"\
                \(selected ? " aria-current=\"true\"" : "")\(title)><span class="range">\(escapeHTML(item.range))</span>\(figure)</a></li>
                """
        }.joined()
        let chart = section.chart.map { chart in
            """
            \(Chart.svg(chart, title: "Portfolio value over \(section.range) in \(chart.currency)"))
            <p id="chart-readout" class="muted">Low \(escapeHTML(chart.min.price.text)) (\(escapeHTML(chart.min.tick))) · \
            High \(escapeHTML(chart.max.price.text)) (\(escapeHTML(chart.max.tick))) · Now \(escapeHTML(chart.last.price.text))</p>
            """
        } ?? "<p class=\"muted\" id=\"no-chart\">No value history to draw for \(escapeHTML(section.range)).</p>"
        let notes = section.notes.isEmpty ? "" : "<ul id=\"performance-notes\" class=\"muted small\">\(section.notes.map { "<li>\(escapeHTML($0))</li>" }.joined())</ul>"
        return """
            <section id="performance"><h2>Performance in \(escapeHTML(currency)) · time-weighted return</h2>
            <ul class="returns" id="returns">\(tiles)</ul>
            \(chart)\(notes)</section>
            """
    }

    /// Realized and unrealized gains per asset and their totals, with the cost basis method.
    static func gainsSection(_ section: GainsSection?, currency: String) -> String {
        guard let section else { return "" }
        let rows = section.rows.map { row in
            """
            <tr class="gain-row" data-asset="\(escapeHTML(row.asset))"><td>\(escapeHTML(row.asset))</td>\
            \(HTML.amountCell(row.quantity, classes: "num quantity"))\(HTML.amountCell(row.costBasis, classes: "num cost-basis"))\
            \(HTML.amountCell(row.realized, classes: "num realized \(HTML.trendClass(row.realizedTrend))"))\
            \(HTML.amountCell(row.unrealized, classes: "num unrealized \(HTML.trendClass(row.unrealizedTrend))"))\
            \(HTML.amountCell(row.fees, classes: "num fees"))</tr>
            """
        }.joined(separator: "\n")
        let table = rows.isEmpty ? "" : """
            <table id="gains-table"><thead><tr><th>Asset</th><th class="num">Held</th><th class="num">Cost basis</th><th class="num">Realized</th>\
            <th class="num">Unrealized</th><th class="num">Fees</th></tr></thead><tbody>\(rows)</tbody></table>
            """
        func total(_ label: String, _ amount: DisplayAmount, _ trend: Trend, id: String) -> String {
            "<dt>\(label)</dt><dd id=\"\(id)\" class=\"\(HTML.trendClass(trend))\" data-raw=\"\(escapeHTML(amount.raw))\">\(escapeHTML(amount.text))</dd>"
        }
        return """
            <section id="gains"><h2>Gains in \(escapeHTML(currency)) · cost basis \
            <span id="cost-basis-method" data-method="\(escapeHTML(section.methodCode))">\(escapeHTML(section.method))</span></h2>
            <dl class="figures gain-totals">\(total("Realized", section.realized, section.realizedTrend, id: "realized-total"))\
            \(total("Unrealized", section.unrealized, section.unrealizedTrend, id: "unrealized-total"))\
            \(total("Total gain", section.total, section.trend, id: "gain-total"))\(HTML.figure("Fees", section.fees, id: "fees-total"))</dl>
            \(table)</section>
            """
    }

    /// A table of holdings; each price cell is `[data-price-for=ASSET]` so live prices reach it.
    static func holdingTable(_ holdings: [HoldingRow], context: PageContext) -> String {
        let rows = holdings.map { row in
            """
            <tr class="holding-row" data-asset="\(escapeHTML(row.asset))">\
            <td><a href="\(escapeHTML(context.href(page: "/coins/\(row.asset)")))">\(escapeHTML(row.asset))</a></td>\
            \(HTML.amountCell(row.amount, classes: "num amount"))\
            \(HTML.amountCell(row.price, classes: "num price", attributes: " data-price-for=\"\(escapeHTML(row.asset))\""))\
            \(HTML.amountCell(row.value, classes: "num value"))\(HTML.amountCell(row.cost, classes: "num cost"))\
            \(HTML.amountCell(row.gain, classes: "num gain \(HTML.trendClass(row.trend))"))</tr>
            """
        }
        return """
            <table class="holdings"><thead><tr><th>Asset</th><th class="num">Amount</th><th class="num">Price</th>\
            <th class="num">Value</th><th class="num">Cost</th><th class="num">Gain</th></tr></thead>\
            <tbody>\(rows.joined(separator: "\n"))</tbody></table>
            """
    }
}
