import PresenterViews
import TickwireContract

extension Pages {
    /// The name of the posted field that carries a form field's value: `p.<name>` (so a plugin's field cannot take the
    /// place of the form's own `csrf` and `method`).
    static func pluginFieldName(_ name: String) -> String { "p.\(name)" }

    /// Plugin `name`'s page, built from its `panel` (``Panel``): the summary under the title, then each section's
    /// heading, paragraph, table (`table.plugin-table`, rows `tr.plugin-row`, its `empty` text when it has none, a row's
    /// action as a button at its end) and form (`form.plugin-form[data-method]`), every text the plugin's own and so
    /// escaped. Each form posts to `/plugins/<name>/call` with the reader's CSRF token, its `method` and its fields
    /// (``pluginFieldName(_:)``); one marked `confirm` asks first.
    static func plugin(_ panel: Panel, name: String, notices: [String], context: PageContext) -> String {
        let action = "\(Plugins.path(of: name))/call"
        var confirms = false
        func form(_ form: PanelForm, classes: String) -> String {
            confirms = confirms || form.confirm == true
            let fields = form.fields.map { pluginField($0) }.joined()
            return """
                <form class="\(classes)" method="post" action="\(escapeHTML(action))" data-method="\(escapeHTML(form.method))"\
                \(form.confirm == true ? " data-confirm" : "")>\
                <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">\
                <input type="hidden" name="method" value="\(escapeHTML(form.method))">\
                \(fields)<button type="submit"\(form.fields.allSatisfy { $0.kind == .hidden } ? " class=\"link\"" : "")>\(escapeHTML(form.submit))</button></form>
                """
        }
        let sections = panel.sections.enumerated().map { index, section in
            var parts: [String] = []
            if let title = section.title { parts.append("<h2>\(escapeHTML(title))</h2>") }
            if let text = section.text { parts.append("<p class=\"plugin-text\">\(escapeHTML(text))</p>") }
            if let table = section.table {
                let actions = table.rows.contains { $0.action != nil }
                let head = table.columns.map { "<th>\(escapeHTML($0))</th>" }.joined() + (actions ? "<th></th>" : "")
                let rows = table.rows.map { row in
                    let cells = (0..<max(table.columns.count, row.cells.count)).map { column in
                        "<td>\(escapeHTML(column < row.cells.count ? row.cells[column] : ""))</td>"
                    }.joined()
                    let key = row.action.map { $0.fields.compactMap(\.value).joined(separator: " ") }.flatMap { $0.isEmpty ? nil : $0 }
                        ?? row.cells.joined(separator: " ")
                    let end = actions ? "<td class=\"row-action\">\(row.action.map { form($0, classes: "inline plugin-action") } ?? "")</td>" : ""
                    return "<tr class=\"plugin-row\" data-row=\"\(escapeHTML(key))\">\(cells)\(end)</tr>"
                }
                parts.append(table.rows.isEmpty
                    ? "<table class=\"plugin-table\"><thead><tr>\(head)</tr></thead></table><p class=\"muted plugin-empty\">\(escapeHTML(table.empty ?? "Nothing yet."))</p>"
                    : "<table class=\"plugin-table\"><thead><tr>\(head)</tr></thead><tbody>\(rows.joined(separator: "\n"))</tbody></table>")
            }
            if let panelForm = section.form { parts.append(form(panelForm, classes: "card plugin-form")) }
            return "<section class=\"plugin-section\" id=\"section-\(index + 1)\">\(parts.joined(separator: "\n"))</section>"
        }
        let summary = panel.summary.map { "<p class=\"muted plugin-summary\">\(escapeHTML($0))</p>\n" } ?? ""
        return Layout.document(
            title: panel.title, context: context, notices: notices, dataAge: nil, withoutAge: "Shown as the plugin \(name) gives it, live.",
            body: summary + sections.joined(separator: "\n"), scripts: confirms ? Scripts.tag("confirm-forms.js") : "")
    }

    /// One field of a plugin's form: a label around its input (none around a hidden one); a decimal is text that must
    /// look like one, an integer a whole number, a select one of its options.
    static func pluginField(_ field: PanelField) -> String {
        let name = " name=\"\(escapeHTML(pluginFieldName(field.name)))\""
        let required = field.required == true ? " required" : ""
        let placeholder = field.placeholder.map { " placeholder=\"\(escapeHTML($0))\"" } ?? ""
        let value = field.value.map { " value=\"\(escapeHTML($0))\"" } ?? ""
        let input: String
        switch field.kind {
        case .hidden:
            return "<input type=\"hidden\"\(name)\(value)>"
        case .text:
            input = "<input type=\"text\"\(name)\(value)\(placeholder)\(required)>"
        case .decimal:
            input = "<input type=\"text\" inputmode=\"decimal\" pattern=\"-?[0-9]+([.][0-9]+)?\"\(name)\(value)\(placeholder)\(required)>"
        case .integer:
            input = "<input type=\"number\" step=\"1\"\(name)\(value)\(placeholder)\(required)>"
        case .select:
            let options = (field.options ?? []).map { option in
                "<option value=\"\(escapeHTML(option))\"\(option == field.value ? " selected" : "")>\(escapeHTML(option))</option>"
            }.joined()
            let blank = field.required == true ? "" : "<option value=\"\"></option>"
            input = "<select\(name)\(required)>\(blank)\(options)</select>"
        }
        return "<label>\(escapeHTML(field.label ?? field.name))\(input)</label>"
    }

    /// Plugin `name`'s page while it does not answer (`#error`, so the page fetches itself again until it does).
    static func pluginNotRunning(name: String, reason: String, context: PageContext) -> String {
        let body = """
            <section id="error" class="error"><p class="message">The plugin \(escapeHTML(name)) is not running: its page shows here \
            as soon as it answers again.</p><p class="age muted small">\(escapeHTML(reason))</p></section>
            """
        return Layout.document(title: name, context: context, notices: [], dataAge: nil, withoutAge: "No data from the plugin.", body: body)
    }
}
