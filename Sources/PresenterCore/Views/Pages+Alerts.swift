import PresenterViews

extension Pages {
    /// price-alerts' rules (`tr.rule-row`) and the alerts they fired (`#fired tr.alert-row`, newest first,
    /// new ones added live from the `alert` events of `/events`).
    public static func alerts(_ view: AlertsView, context: PageContext) -> String {
        let rules = view.rules.map { rule in
            """
            <tr class="rule-row" data-rule="\(escapeHTML(rule.id))"><td>\(escapeHTML(rule.asset))</td><td>\(escapeHTML(rule.condition))</td>\
            \(HTML.amountCell(rule.threshold, classes: "num"))<td>\(rule.holds ? "holds" : "armed")</td>\
            <td>\(escapeHTML(rule.lastFired ?? "never"))</td></tr>
            """
        }
        let fired = view.fired.map { alert in
            """
            <tr class="alert-row" data-rule="\(escapeHTML(alert.ruleId))"><td><time datetime="\(escapeHTML(alert.firedAt))">\(escapeHTML(alert.firedAtText))</time></td>\
            <td>\(escapeHTML(alert.asset))</td><td>\(escapeHTML(alert.condition))</td>\
            \(HTML.amountCell(alert.threshold, classes: "num"))\(HTML.amountCell(alert.price, classes: "num"))</tr>
            """
        }
        let body = """
            <h2>Rules</h2>
            <table id="rules"><thead><tr><th>Asset</th><th>When</th><th class="num">Threshold</th><th>State</th><th>Last fired</th></tr></thead>
            <tbody>\(rules.joined(separator: "\n"))</tbody></table>
            <h2>Alerts fired <span id="live-status" class="live-status">connecting…</span></h2>
            <table id="fired"><thead><tr><th>When</th><th>Asset</th><th>Condition</th><th class="num">Threshold</th><th class="num">Price</th></tr></thead>
            <tbody>\(fired.joined(separator: "\n"))</tbody></table>
            """
        return Layout.document(title: "Alerts", context: context, notices: view.notices, dataAge: nil, body: body,
                               scripts: Scripts.tag("live-alerts.js", data: [("currency", context.currency)]))
    }
}
