import Bus
import Foundation
import PriceAlertsAPI
import PriceAlertsCore
import Testing
import TickwireClients
import BusContract
import TickwireContract

/// The params a dashboard sends when `form` is submitted with `values` typed in: one JSON string per field that has a
/// value (a hidden field's own value, an empty field left out), as docs/protocol.md's "Plugin panels" says.
func params(of form: PanelForm, _ values: [String: String] = [:]) -> [String: String] {
    var params: [String: String] = [:]
    for field in form.fields {
        let value = field.kind == .hidden ? field.value : values[field.name] ?? field.value
        if let value, !value.isEmpty { params[field.name] = value }
    }
    return params
}

/// A JSON-RPC request of `method` with `params`, as bytes.
func request(_ method: String, _ params: [String: String], id: Int = 1) throws -> Data {
    try JSONSerialization.data(withJSONObject: ["jsonrpc": "2.0", "id": id, "method": method, "params": params] as [String: Any])
}

@Suite("Panel: price-alerts' page on the dashboard")
struct PanelTests {
    /// Before any price: the Alerts page with no rules and no alerts, a form offering the converter's default
    /// currencies, and the `alert.` topics that make the dashboard reload it.
    @Test func emptyPanel() async throws {
        let (state, _) = try makeState()
        let panel = await state.panel()
        #expect(panel.title == "Alerts")
        #expect(panel.topics == ["alert."])
        #expect(panel.sections.map(\.title) == ["Rules", "Add a rule", "Recent alerts"])
        let rules = try #require(panel.sections[0].table)
        #expect(rules.columns == ["Asset", "Currency", "Condition", "Threshold", "Holds", "Last fired"])
        #expect(rules.rows.isEmpty && rules.empty == "No rules yet: add one below.")
        let form = try #require(panel.sections[1].form)
        #expect(form.method == "alerts.add" && form.submit == "Add rule" && form.confirm == nil)
        #expect(form.fields.map(\.name) == ["asset", "currency", "above", "below"])
        #expect(form.fields.map(\.kind) == [.text, .select, .decimal, .decimal])
        #expect(form.fields.map(\.required) == [true, true, nil, nil])
        #expect(form.fields[1].options == ["USD", "SEK", "EUR", "MXN"] && form.fields[1].value == "USD")
        let fired = try #require(panel.sections[2].table)
        #expect(fired.columns == ["Fired", "Asset", "Currency", "Condition", "Threshold", "Price"])
        #expect(fired.rows.isEmpty && fired.empty == "No alert has fired since price-alerts started.")
    }

    /// Rules are rows, oldest first, each with a confirmed Remove that sends its id; the alerts fired are listed
    /// newest first; the form offers the currencies the converter prices in.
    @Test func rulesAndAlerts() async throws {
        let (state, _) = try makeState()
        await state.apply(.snapshot(try [("BTC", "USD", "70000"), ("BTC", "SEK", "650000"), ("ETH", "USD", "2500")].map { asset, currency, price in
            StreamUpdate(topic: try Topics.price(asset: asset, currency: currency).topic, seq: 1, time: now, source: "converter",
                         value: try AssetPrice.of(asset, currency, price))
        }))
        let holding = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", above: 65_000))
        let waiting = try await state.add(AddAlertRequest(asset: "ETH", currency: "USD", below: try dec("2000.5")))
        await state.apply(try update("ETH", "USD", "1999"))

        let panel = await state.panel()
        let rules = try #require(panel.sections[0].table)
        #expect(rules.rows.map(\.cells) == [
            ["BTC", "USD", "above", "65000", "yes", "2025-12-06 05:46:40Z"],
            ["ETH", "USD", "below", "2000.5", "yes", "2025-12-06 05:46:40Z"],
        ])
        for (row, rule) in zip(rules.rows, [holding, waiting]) {
            #expect(row.action == PanelForm(method: "alerts.remove", submit: "Remove",
                                            fields: [PanelField(name: "id", kind: .hidden, value: rule.id)], confirm: true))
        }
        #expect(panel.sections[1].form?.fields[1].options == ["USD", "SEK"], "the converter's order")
        #expect(AlertsPanel.make(rules: [], fired: [], currencies: ["NOK", "EUR", "BRL", "EUR", "USD"]).sections[1].form?.fields[1].options
                == ["USD", "EUR", "BRL", "NOK"])
        #expect(panel.sections[2].table?.rows.map(\.cells) == [
            ["2025-12-06 05:46:40Z", "ETH", "USD", "below", "2000.5", "1999"],
            ["2025-12-06 05:46:40Z", "BTC", "USD", "above", "65000", "70000"],
        ])
    }

    /// A rule that never fired says so; the recent alerts keep the newest twenty.
    @Test func neverFiredAndTheRecentLimit() async throws {
        let (state, _) = try makeState()
        _ = try await state.add(AddAlertRequest(asset: "BTC", currency: "USD", below: 1))
        let flapping = try await state.add(AddAlertRequest(asset: "ETH", currency: "USD", above: 100))
        for step in 1...25 {
            await state.apply(try update("ETH", "USD", "99"))
            await state.apply(try update("ETH", "USD", "\(100 + step)"))
        }
        let panel = await state.panel()
        #expect(panel.sections[0].table?.rows.map { $0.cells[4...5] } == [["no", "never"], ["yes", "2025-12-06 05:46:40Z"]])
        let recent = try #require(panel.sections[2].table?.rows)
        #expect(recent.count == AlertsPanel.recentLimit)
        #expect(recent.first?.cells[5] == "125" && recent.last?.cells[5] == "106", "newest first")
        #expect(await state.list().first { $0.id == flapping.id }?.holds == true)
    }

    /// Over JSON-RPC: `panel` answers the state's page; the add form's params (strings, the empty threshold left out)
    /// add a rule, and its row's Remove params remove it.
    @Test func formsCallTheMethods() async throws {
        let (state, _) = try makeState()
        let methods = PriceAlerts.methods(state)
        let rpc = LocalRPC(methods)
        let empty = try await rpc.call(PluginAPI.panel)
        #expect(empty == (await state.panel()))

        let add = try #require(empty.sections.compactMap(\.form).first)
        let sent = params(of: add, ["asset": " eth ", "currency": "SEK", "above": "", "below": "25000.50"])
        #expect(sent == ["asset": " eth ", "currency": "SEK", "below": "25000.50"])
        let added = try JSONSerialization.jsonObject(with: await methods.handle(request(add.method, sent))) as? [String: Any]
        let rule = try #require(added?["result"] as? [String: Any], "\(String(describing: added))")
        #expect(rule["asset"] as? String == "ETH" && rule["currency"] as? String == "SEK" && rule["below"] as? String == "25000.50")

        let panel = try await rpc.call(PluginAPI.panel)
        let row = try #require(panel.sections[0].table?.rows.first)
        #expect(row.cells.prefix(4) == ["ETH", "SEK", "below", "25000.50"])
        let remove = try #require(row.action)
        #expect(params(of: remove) == ["id": rule["id"] as? String ?? "?"])
        let removed = try JSONSerialization.jsonObject(with: await methods.handle(request(remove.method, params(of: remove)))) as? [String: Any]
        #expect(removed?["result"] as? Bool == true)
        #expect(try await rpc.call(PluginAPI.panel).sections[0].table?.rows.isEmpty == true)

        // A form sent with both thresholds, or none, is refused with words the dashboard shows.
        for values in [["asset": "BTC", "currency": "USD", "above": "1", "below": "2"], ["asset": "BTC", "currency": "USD"]] {
            let reply = try JSONSerialization.jsonObject(with: await methods.handle(request(add.method, params(of: add, values)))) as? [String: Any]
            let error = try #require(reply?["error"] as? [String: Any])
            #expect(error["code"] as? Int == -32602)
            #expect(error["message"] as? String == "invalid params: give exactly one of above and below")
        }
    }
}
