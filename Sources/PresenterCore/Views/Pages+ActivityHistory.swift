import Foundation
import PresenterViews
import TickwireContract

extension Pages {
    /// The link that asks to remove activity `id` of `portfolio` (its confirm page).
    static func removeLink(_ id: String, portfolio: String, context: PageContext) -> String {
        context.href(page: removePath(id), portfolio: portfolio)
    }

    /// `/portfolio/trades/{id}/remove`, the id percent-encoded.
    static func removePath(_ id: String) -> String {
        "/portfolio/trades/\(id.addingPercentEncoding(withAllowedCharacters: PageContext.unreserved) ?? "")/remove"
    }

    /// The page that asks before removing an activity of `portfolio`: the activity (`tr.trade-row`) and `form#remove-activity`,
    /// posting to `/portfolio/trades/{id}/remove` with the portfolio and a `requestId`; without a row (not found, or the
    /// portfolio did not answer) only the notices and the way back.
    static func removeActivity(_ row: PortfolioView.TradeRow?, id: String, portfolio: String, notices: [String], context: PageContext) -> String {
        var body = "<p><a id=\"back-to-portfolio\" href=\"\(escapeHTML(context.href(page: "/portfolio", portfolio: portfolio)))\">← \(escapeHTML(portfolioTitle(portfolio)))</a></p>"
        if let row {
            body += """
                <p>Remove this activity from <b>\(escapeHTML(portfolio))</b>? Its history keeps it (\
                <a href="\(escapeHTML(context.href(page: "/portfolio/history", portfolio: portfolio)))">History</a>).</p>
                <table id="trades"><thead><tr><th>Date</th><th>Kind</th><th>Asset</th><th class="num">Amount</th><th class="num">Price</th>\
                <th class="num">Fee</th></tr></thead><tbody><tr class="trade-row" data-trade-id="\(escapeHTML(row.id))" data-asset="\(escapeHTML(row.asset))">\
                <td><time datetime="\(escapeHTML(row.date))">\(escapeHTML(row.dateText))</time></td>\
                <td class="kind" data-kind="\(escapeHTML(row.kind))">\(escapeHTML(row.kindText))</td><td>\(escapeHTML(row.asset))</td>\
                \(HTML.amountCell(row.amount, classes: "num amount"))\(HTML.amountCell(row.price, classes: "num price"))\
                \(HTML.amountCell(row.fee, classes: "num fee"))</tr></tbody></table>
                <form id="remove-activity" class="import" method="post" action="\(escapeHTML(removePath(id)))">
                <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">
                <input type="hidden" name="requestId" value="\(escapeHTML(context.requestId))">
                <input type="hidden" name="portfolio" value="\(escapeHTML(portfolio))">
                <button type="submit">Remove the activity</button></form>
                """
        }
        return Layout.document(title: "Remove an activity", context: context, notices: notices, dataAge: nil, withoutAge: "", body: body)
    }

    /// The audit history of `portfolio`'s activities (`trades.history`), newest first: one `tr.revision-row[data-seq]` per
    /// revision with when, what was done (`data-action`), the activity after it (before it for a removal; an edit also says
    /// what it was) and who did it.
    static func activityHistory(_ revisions: [TradeRevision]?, portfolio: String, notices: [String], context: PageContext) -> String {
        func describe(_ trade: Trade) -> String {
            let row = PortfolioView.row(trade, locale: context.locale)
            let fee = row.fee.map { ", fee \($0.text)" } ?? ""
            return "\(row.kindText) \(row.amount.text) at \(row.price.text)\(fee), \(row.dateText)"
                + (trade.portfolio == portfolio ? "" : " (in \(trade.portfolio))")
        }
        let rows = (revisions ?? []).sorted { $0.seq > $1.seq }.map { revision in
            let shown = revision.after ?? revision.before
            let was = revision.action == .edited ? revision.before.map { "<br><span class=\"muted small\">was: \(escapeHTML(describe($0)))</span>" } ?? "" : ""
            return """
                <tr class="revision-row" data-seq="\(revision.seq)" data-trade-id="\(escapeHTML(revision.tradeId))" data-action="\(revision.action.rawValue)">\
                <td class="num">\(revision.seq)</td><td><time datetime="\(escapeHTML(DisplayDate.iso(revision.at)))">\
                \(escapeHTML(DisplayDate.dateTime(revision.at, locale: context.locale)))</time></td>\
                <td class="action">\(revision.action.rawValue.prefix(1).uppercased() + revision.action.rawValue.dropFirst())</td>\
                <td>\(escapeHTML(shown?.asset ?? ""))</td><td>\(shown.map { escapeHTML(describe($0)) } ?? "")\(was)</td>\
                <td class="by">\(escapeHTML(revision.by))</td></tr>
                """
        }.joined(separator: "\n")
        let table = revisions == nil ? "" : rows.isEmpty ? "<p class=\"muted\" id=\"no-history\">No activity of \(escapeHTML(portfolio)) was ever added.</p>" : """
            <table id="history"><thead><tr><th class="num">#</th><th>When</th><th>What</th><th>Asset</th><th>Activity</th><th>By</th></tr></thead>
            <tbody>\(rows)</tbody></table>
            """
        let body = """
            <p><a id="back-to-portfolio" href="\(escapeHTML(context.href(page: "/portfolio", portfolio: portfolio)))">← \(escapeHTML(portfolioTitle(portfolio)))</a></p>
            \(table)
            """
        return Layout.document(title: "History · \(portfolio)", context: context, notices: notices, dataAge: nil, withoutAge: "", body: body)
    }
}
