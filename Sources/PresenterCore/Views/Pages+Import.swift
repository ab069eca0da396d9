import Foundation
import PresenterViews
import TickwireContract

extension Pages {
    /// The largest file the import form takes, in UTF-8 bytes: a form's text grows when percent-encoded, and the
    /// dashboard reads requests of at most 64 KiB by default (the wire's limit of `activities.import` is 1 MiB).
    static let importLimitBytes = 32 << 10

    /// The Portfolio screen's import and export part: `form#import-form` (a Ghostfolio CSV or JSON pasted in
    /// `textarea#import-content`, its format picked in `select#import-format`, the portfolio it goes into in
    /// `input#import-portfolio`, `portfolio` unless the reader names another, a new one included) posted to
    /// `/portfolio/import` for a preview, and the export links `a#export-csv` and `a#export-json` of `portfolio`.
    static func importSection(
        content: String = "", format: String = "auto", portfolio: String, limitBytes: Int = importLimitBytes, context: PageContext
    ) -> String {
        let options = [("auto", "From the text"), ("csv", "CSV"), ("json", "JSON")].map { value, label in
            "<option value=\"\(value)\"\(value == format ? " selected" : "")>\(label)</option>"
        }.joined()
        return """
            <section id="import"><h2>Import activities</h2>
            <p class="muted small">A file in Ghostfolio's activity format: CSV (<code>Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,Note</code>; \
            actions buy, sell, fee, transfer_in, transfer_out) or its JSON export. Choose it or paste it below, at most \(limitBytes / 1024) KiB \
            (the dashboard's form limit; larger files go over <code>activities.import</code> in parts). You see every line before anything is written.</p>
            <form id="import-form" class="import" method="post" action="/portfolio/import">
            <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">
            <label>A file (.csv or .json), read into the box below<input type="file" id="import-file" accept=".csv,.json,text/csv,application/json" \
            data-limit="\(limitBytes)"></label><p id="import-file-note" class="muted small" aria-live="polite"></p>
            <label>File content<textarea id="import-content" name="content" rows="8" required spellcheck="false" \
            placeholder="Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,Note">\(escapeHTML(content))</textarea></label>
            <div class="import-actions"><label>Format<select id="import-format" name="format">\(options)</select></label>\
            <label>Into portfolio<input id="import-portfolio" name="portfolio" required autocomplete="off" value="\(escapeHTML(portfolio))" \
            title="an existing portfolio, or a new name: 1 to 40 letters, digits, spaces, '-', '_' or '.'"></label>\
            <button type="submit" id="import-preview">Preview import</button></div>
            </form>
            <p class="export">Export every activity of \(escapeHTML(portfolio)): \
            <a id="export-csv" href="\(escapeHTML(exportLink(.csv, portfolio: portfolio)))" download>Export CSV</a> · \
            <a id="export-json" href="\(escapeHTML(exportLink(.json, portfolio: portfolio)))" download>Export JSON</a></p></section>
            """
    }

    /// The download of `portfolio`'s activities: `/portfolio/export.csv`, with `?portfolio=` unless it is "main".
    static func exportLink(_ format: ActivityFileFormat, portfolio: String) -> String {
        PageContext.url(path: "/portfolio/export.\(format.rawValue)",
                        query: portfolio == PortfolioView.mainPortfolio ? [] : [.init(name: "portfolio", value: portfolio)])
    }

    /// The preview of an import: every line (`tr.import-line[data-line][data-status]`, an error's `td.problem` naming its
    /// column), the counts (`#import-counts`), the file's errors, and, only when no line has an error and one is new,
    /// `form#import-confirm` that posts its `draft` to `/portfolio/import/confirm`; the import form again below it. The portfolio the
    /// file goes into (`#import-into`) is named above the preview, and the link back goes to it.
    static func importPreview(_ preview: ImportPreview?, draft: String?, content: String, format: ActivityFileFormat?, portfolio: String, limitBytes: Int,
                              notices: [String], context: PageContext) -> String {
        var body = "<p><a id=\"back-to-portfolio\" href=\"\(escapeHTML(context.href(page: "/portfolio", portfolio: portfolio)))\">← \(escapeHTML(portfolioTitle(portfolio)))</a></p>"
        if let preview {
            body += "<p id=\"import-into\">Into portfolio <b data-portfolio=\"\(escapeHTML(portfolio))\">\(escapeHTML(portfolio))</b></p>"
            body += previewTable(preview)
            if preview.errors == 0, preview.fileErrors.isEmpty, preview.new > 0, let draft {
                body += """
                    <form id="import-confirm" class="import" method="post" action="/portfolio/import/confirm">
                    <input type="hidden" name="csrf" value="\(escapeHTML(context.csrfToken))">
                    <input type="hidden" name="draft" value="\(escapeHTML(draft))">
                    <button type="submit">Import \(preview.new) \(preview.new == 1 ? "activity" : "activities")</button>\
                    \(preview.duplicates > 0 ? " <span class=\"muted\">\(preview.duplicates) already imported: skipped</span>" : "")
                    </form>
                    """
            } else if preview.errors == 0, preview.fileErrors.isEmpty {
                body += "<p id=\"import-nothing\" class=\"muted\">Nothing new to import: every line was imported before.</p>"
            } else {
                body += "<p id=\"import-blocked\" class=\"down\">Nothing can be imported until every error is fixed: correct the lines below and preview again.</p>"
            }
        }
        body += importSection(content: content, format: format?.rawValue ?? "auto", portfolio: portfolio, limitBytes: limitBytes, context: context)
        return Layout.document(title: "Import activities", context: context, notices: notices, dataAge: nil, withoutAge: "", body: body,
                               scripts: Scripts.tag("import-file.js"))
    }

    private static func previewTable(_ preview: ImportPreview) -> String {
        let rows = preview.lines.map { line in
            let activity = line.activity
            let fee = activity?.fee.map { "\($0.amount) \($0.currency)" } ?? ""
            let problem = line.errors.map { error in
                "<span class=\"problem-item\">\(error.column.map { "<b class=\"column\">\(escapeHTML($0))</b>: " } ?? "")\(escapeHTML(error.reason))</span>"
            }.joined(separator: "<br>")
            return """
                <tr class="import-line status-\(line.status.rawValue)" data-line="\(line.line)" data-status="\(line.status.rawValue)">\
                <td class="num">\(line.line)</td><td class="day">\(activity.map { DisplayDate.isoDay($0.date) } ?? "")</td>\
                <td class="kind">\(activity.map { escapeHTML(PortfolioView.kindText($0.kind)) } ?? "")</td>\
                <td class="asset">\(escapeHTML(activity?.asset ?? ""))</td>\
                <td class="num amount">\(activity.map { "\($0.amount)" } ?? "")</td>\
                <td class="num price">\(activity.map { escapeHTML("\($0.price) \($0.currency)") } ?? "")</td>\
                <td class="num fee">\(escapeHTML(fee))</td>\
                <td><span class="status">\(line.status.rawValue)</span></td><td class="problem">\(problem)</td></tr>
                """
        }.joined(separator: "\n")
        let fileErrors = preview.fileErrors.isEmpty ? "" : """
            <ul id="import-file-errors" class="down">\(preview.fileErrors.map { error in
                "<li>\(error.line > 0 ? "Line \(error.line): " : "")\(error.column.map { "<b class=\"column\">\(escapeHTML($0))</b>: " } ?? "")\(escapeHTML(error.reason))</li>"
            }.joined())</ul>
            """
        return """
            <section id="import-preview"><h2>Preview (\(preview.format.rawValue.uppercased()))</h2>
            <p id="import-counts"><span class="count-new">\(preview.new) new</span> · <span class="count-duplicate">\(preview.duplicates) \
            already imported</span> · <span class="count-error\(preview.errors > 0 ? " down" : "")">\(preview.errors) with errors</span> · \(preview.lines.count) lines</p>
            \(fileErrors)\(rows.isEmpty ? "" : """
            <table id="import-lines"><thead><tr><th class="num">Line</th><th>Date</th><th>Kind</th><th>Asset</th><th class="num">Amount</th>\
            <th class="num">Price</th><th class="num">Fee</th><th>Status</th><th>Problem</th></tr></thead><tbody>\(rows)</tbody></table>
            """)</section>
            """
    }
}
