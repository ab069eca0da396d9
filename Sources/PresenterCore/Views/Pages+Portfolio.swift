import PresenterViews
extension Pages {
    /// The portfolio: totals (`#total-value`, `#total-cost`, `#total-gain`), holdings (`tr.holding-row[data-asset]`,
    /// price cells live-updated) and trades (`tr.trade-row[data-trade-id]`).
    public static func portfolio(_ view: PortfolioView, context: PageContext) -> String {
        let trades = view.trades.map { trade in
            """
            <tr class="trade-row" data-trade-id="\(escapeHTML(trade.id))" data-asset="\(escapeHTML(trade.asset))">\
            <td><time datetime="\(escapeHTML(trade.date))">\(escapeHTML(trade.dateText))</time></td>\
            <td><a href="\(escapeHTML(context.href(page: "/coins/\(trade.asset)")))">\(escapeHTML(trade.asset))</a></td>\
            \(HTML.amountCell(trade.amount, classes: "num amount"))\(HTML.amountCell(trade.price, classes: "num price"))</tr>
            """
        }
        let tradesSection = trades.isEmpty
            ? "<p class=\"muted\">No trades yet.</p>"
            : "<table id=\"trades\"><thead><tr><th>Date</th><th>Asset</th><th class=\"num\">Amount</th><th class=\"num\">Price</th></tr></thead><tbody>\(trades.joined(separator: "\n"))</tbody></table>"
        let body = """
            <section id="totals"><dl class="figures">\
            \(HTML.figure("Value", view.totalValue, id: "total-value"))\(HTML.figure("Cost", view.totalCost, id: "total-cost"))\
            <dt>Gain</dt><dd id="total-gain" class="\(HTML.trendClass(view.trend))" data-raw="\(escapeHTML(view.totalGain.raw))">\(escapeHTML(view.totalGain.text))</dd>\
            </dl>\(view.offline ? "<p class=\"offline muted\" id=\"offline\">Offline: stored prices.</p>" : "")</section>
            <p class="live-status" id="live-status">live prices starting…</p>
            <section id="holdings"><h2>Holdings (\(escapeHTML(view.currency ?? "")))</h2>\
            \(view.holdings.isEmpty ? "<p class=\"muted\">Nothing held.</p>" : holdingTable(view.holdings, context: context))</section>
            <section id="trade-list"><h2>Trades</h2>\(tradesSection)</section>
            """
        return Layout.document(
            title: "Portfolio", context: context, notices: view.notices, dataAge: view.dataAge, body: body,
            scripts: Scripts.tag("live-prices.js", data: [("currency", view.currency ?? context.currency)])
        )
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
