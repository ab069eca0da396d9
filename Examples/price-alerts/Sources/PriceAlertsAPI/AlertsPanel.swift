import Foundation
import TickwireContract

/// price-alerts' page on the dashboard (`panel`): its rules, each with a Remove button, a form to add one, and the
/// alerts fired lately; the dashboard reloads it when an `alert.` message comes. Built the same way by the service
/// and by the client's mock and test values.
public enum AlertsPanel {
    /// The currencies the add form offers until the converter's first prices say which it quotes: the converter's
    /// default display currencies.
    public static let defaultCurrencies = ["USD", "SEK", "EUR", "MXN"]

    /// How many fired alerts the page lists, newest first.
    public static let recentLimit = 20

    /// The page of `rules` (oldest first) and `fired` (newest first; the first ``recentLimit`` are shown), whose add form
    /// offers `currencies` (``defaultCurrencies`` when empty), those of ``defaultCurrencies`` first in its order.
    public static func make(rules: [AlertRule], fired: [AlertFired], currencies: [String]) -> Panel {
        Panel(
            title: "Alerts",
            summary: "Rules on the converter's prices: a rule fires when its condition starts to hold, and again only after it stopped holding.",
            sections: [
                PanelSection(title: "Rules", table: PanelTable(
                    columns: ["Asset", "Currency", "Condition", "Threshold", "Holds", "Last fired"],
                    rows: rules.map(row),
                    empty: "No rules yet: add one below.")),
                PanelSection(title: "Add a rule", text: "Give one of above and below: the rule fires when the price rises to it or falls to it.",
                             form: addForm(currencies: ordered(currencies))),
                PanelSection(title: "Recent alerts", table: PanelTable(
                    columns: ["Fired", "Asset", "Currency", "Condition", "Threshold", "Price"],
                    rows: fired.prefix(recentLimit).map { alert in
                        PanelRow(cells: [format(alert.firedAt), alert.asset, alert.currency, alert.condition, alert.threshold.description,
                                         alert.price.description])
                    },
                    empty: "No alert has fired since price-alerts started.")),
            ],
            topics: [PriceAlertsAPI.alerts.prefix])
    }

    /// `currencies` without repeats, the default display currencies first in their order, then the others alphabetically;
    /// ``defaultCurrencies`` when there are none.
    static func ordered(_ currencies: [String]) -> [String] {
        let given = Set(currencies)
        guard !given.isEmpty else { return defaultCurrencies }
        return defaultCurrencies.filter(given.contains) + given.subtracting(defaultCurrencies).sorted()
    }

    /// A rule's row, with its Remove button (`alerts.remove {id}`, confirmed first).
    static func row(_ rule: AlertRule) -> PanelRow {
        PanelRow(
            cells: [rule.asset, rule.currency, rule.condition, rule.threshold.description, rule.holds ? "yes" : "no",
                    rule.lastFired.map(format) ?? "never"],
            action: PanelForm(method: PriceAlertsAPI.remove.name, submit: "Remove",
                              fields: [PanelField(name: "id", kind: .hidden, value: rule.id)], confirm: true))
    }

    /// The form that sends `alerts.add {asset, currency, above?, below?}`, the thresholds as decimal strings.
    static func addForm(currencies: [String]) -> PanelForm {
        PanelForm(method: PriceAlertsAPI.add.name, submit: "Add rule", fields: [
            PanelField(name: "asset", label: "Asset", kind: .text, required: true, placeholder: "BTC"),
            PanelField(name: "currency", label: "Currency", kind: .select, value: currencies.first, options: currencies, required: true),
            PanelField(name: "above", label: "Above", kind: .decimal, placeholder: "65000"),
            PanelField(name: "below", label: "Below", kind: .decimal, placeholder: "50000"),
        ])
    }

    /// A moment as the page shows it, in UTC to the second: `2026-11-25 01:33:51Z`.
    static func format(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(dateSeparator: .dash, dateTimeSeparator: .space, timeZone: .gmt))
    }
}
