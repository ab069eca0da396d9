import Foundation
import Testing

@Suite("the Portfolio screen's import in a browser (issue 34)", .serialized)
struct ImportBrowserTests {
    /// Over the mock stack, headless Chromium pastes (light) or chooses as a file (dark) a Ghostfolio-format CSV (Ghostfolio's sample's columns and day format)
    /// with a buy, a sell, a fee and a transfer into the Portfolio screen's import form, sees the preview of its four lines,
    /// confirms, and is back on the Portfolio screen with the notice and the four activities, in USD and in SEK. Screenshots
    /// of the preview (light and dark) go to .build/screenshots/import.
    @Test func pasteAPreviewConfirmAndSeeTheActivities() async throws {
        let executable = try chromiumExecutable()
        try await FullStack(feeds: "mock").use { stack in
            let priced = try await eventually(within: .seconds(30)) {
                try await stack.get("/api/views/coins?currency=USD").body.contains("\"symbol\":\"ETH\"")
            }
            #expect(priced, "the mock stack prices ETH")
            func day(_ daysAgo: Double) -> String {
                let date = Date(timeIntervalSinceNow: -daysAgo * 86_400)
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC")!
                let parts = calendar.dateComponents([.year, .month, .day], from: date)
                return String(format: "%02d-%02d-%04d", parts.day!, parts.month!, parts.year!)
            }
            let csv = """
                Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,Note
                \(day(30)),BTC,MANUAL,USD,60000,0.5,buy,12.00,My first order
                \(day(20)),BTC,MANUAL,USD,65000.50,0.2,sell,5,
                \(day(15)),BTC,MANUAL,USD,0,0,fee,2.50,Custody fee
                \(day(10)),ETH,MANUAL,USD,2500,1.5,transfer_in,0,From my wallet
                """
            let screenshots = ServiceProcess.binDirectory.deletingLastPathComponent().appendingPathComponent("screenshots/import")
            try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
            let portfolio = URL(string: "/portfolio?currency=USD&locale=en_US", relativeTo: stack.baseURL)!
            let light = try await DevToolsBrowser.launch(executable, ["--window-size=1280,1300", "--force-prefers-reduced-motion"], in: stack.endpoints.directory)
            let dark = try await DevToolsBrowser.launch(executable, ["--window-size=1280,1300", "--force-prefers-reduced-motion", "--force-dark-mode"],
                                                        in: stack.endpoints.directory)
            do {
                var lightPage: DevToolsBrowser.Page?
                for (name, browser) in [("light", light), ("dark", dark)] {
                    let page = try await browser.open(portfolio)
                    // A page still waiting for its services refreshes itself and would replace a form filled in meanwhile;
                    // a file chosen before import-file.js has run (it comes after the form) is never read.
                    let complete = "!!document.getElementById('import-form') && !document.getElementById('waiting') && !document.getElementById('error')"
                        + " && window.tickwireImportFile === true"
                    let ready = try await eventually(within: .seconds(30)) { try await browser.string(page, complete) == "true" }
                    #expect(ready, "\(name): the Portfolio screen is complete, with the import form")
                    /// Pastes `text` into the import form and waits for the preview of `lines` lines.
                    /// The dark browser chooses it as a file (`ghostfolio.csv`, which its script reads into the form).
                    func submit(_ text: String, lines: Int) async throws {
                        let content = String(decoding: try JSONEncoder().encode(text), as: UTF8.self)
                        if name == "dark" {
                            _ = try await browser.string(page, """
                                (() => { const files = new DataTransfer(); files.items.add(new File([\(content)], 'ghostfolio.csv', { type: 'text/csv' }));
                                 const input = document.getElementById('import-file'); input.files = files.files;
                                 input.dispatchEvent(new Event('change', { bubbles: true })); return 'chosen'; })()
                                """)
                            let read = try await eventually(within: .seconds(10)) {
                                try await browser.string(page, "document.getElementById('import-content').value === \(content) && document.getElementById('import-format').value") == "csv"
                            }
                            #expect(read, "the chosen file is read into the form, its format from its name")
                            #expect(try await browser.string(page, "document.getElementById('import-file-note').textContent").hasPrefix("Read ghostfolio.csv"))
                            _ = try await browser.string(page, "(document.getElementById('import-form').requestSubmit(), 'sent')")
                        } else {
                            _ = try await browser.string(page, """
                                (document.getElementById('import-content').value = \(content), document.getElementById('import-format').value = 'auto',
                                 document.getElementById('import-form').requestSubmit(), 'sent')
                                """)
                        }
                        let previewed = try await eventually(within: .seconds(20)) {
                            try await browser.string(page, "location.pathname + ' ' + document.querySelectorAll('tr.import-line').length") == "/portfolio/import \(lines)"
                        }
                        #expect(previewed, "\(name): the preview came")
                    }
                    if name == "light" {
                        try await submit(csv + "\n30-02-2023,BTC,MANUAL,USD,40000,1,buy,0,\n\(day(5)),ZZZQ,MANUAL,USD,0.1,100,buy,0,", lines: 6)
                        let problems = try await browser.string(page, "[...document.querySelectorAll('tr.import-line td.problem')].map(c => c.textContent).join('|')")
                        #expect(problems.contains("Date: \"30-02-2023\" is not a date") && problems.contains("Code: unknown asset ZZZQ"), "\(problems)")
                        #expect(try await browser.string(page, "!document.getElementById('import-confirm') && !!document.getElementById('import-blocked')") == "true")
                        try await browser.screenshot(page).write(to: screenshots.appendingPathComponent("import-preview-errors-light.png"))
                    }
                    try await submit(csv, lines: 4)
                    let statuses = try await browser.string(page, "[...document.querySelectorAll('tr.import-line')].map(r => r.dataset.line + r.dataset.status).join(',')")
                    #expect(statuses == "2new,3new,4new,5new", "\(name): \(statuses)")
                    let kinds = try await browser.string(page, "[...document.querySelectorAll('tr.import-line td.kind')].map(c => c.textContent).join(',')")
                    #expect(kinds == "Buy,Sell,Fee,Transfer in")
                    #expect(try await browser.string(page, "document.querySelector('#import-confirm button').textContent") == "Import 4 activities")
                    let file = screenshots.appendingPathComponent("import-preview-\(name).png")
                    try await browser.screenshot(page).write(to: file)
                    if name == "light" { lightPage = page }
                }
                let page = try #require(lightPage)
                _ = try await light.string(page, "(document.querySelector('#import-confirm button').click(), 'clicked')")
                let back = try await eventually(within: .seconds(20)) {
                    try await light.string(page, "location.pathname + location.search") == "/portfolio?imported=4&duplicates=0"
                }
                #expect(back, "back on the Portfolio screen")
                let listed = try await eventually(within: .seconds(20)) {
                    try await light.string(page, "document.querySelectorAll('tr.trade-row').length") == "4"
                }
                #expect(listed, "the four activities are listed")
                #expect(try await light.string(page, "document.querySelector('.notices').innerText").contains("Imported 4 activities."))
                for (currency, locale, sign) in [("USD", "en_US", "$"), ("SEK", "sv_SE", "kr")] {
                    let screen = try await light.open(URL(string: "/portfolio?currency=\(currency)&locale=\(locale)", relativeTo: stack.baseURL)!)
                    let shown = try await eventually(within: .seconds(20)) {
                        try await light.string(screen, "document.querySelectorAll('tr.trade-row').length") == "4"
                    }
                    #expect(shown, "\(currency): the activities")
                    let kinds = try await light.string(screen, "[...document.querySelectorAll('tr.trade-row td.kind')].map(c => c.dataset.kind).sort().join(',')")
                    #expect(kinds == "buy,fee,sell,transfer_in", "\(currency): \(kinds)")
                    let value = try await light.string(screen, "document.getElementById('total-value').textContent")
                    #expect(value.contains(sign), "\(currency): the total value is \(value)")
                    let realized = try await light.string(screen, "document.getElementById('realized-total')?.textContent")
                    #expect(realized.contains(sign), "\(currency): realized \(realized)")
                }
                #expect(light.errors.isEmpty && dark.errors.isEmpty, "\(light.errors + dark.errors)")
            } catch {
                await light.quit()
                await dark.quit()
                throw error
            }
            await light.quit()
            await dark.quit()
        }
    }
}
