import Foundation
import Testing

/// An activity as `trades.add` takes it.
private struct Activity: Encodable {
    struct Fee: Encodable {
        let amount: String
        let currency: String
    }
    let kind: String
    let asset: String
    let amount: String
    let price: String
    let currency: String
    let fee: Fee?
    let date: String
    let requestId: String
    /// The portfolio it goes into; `main` when absent.
    var portfolio: String?
}

/// The recorded activity, read loosely.
private struct Recorded: Decodable {
    let id: String
    let kind: String
}

@Suite("the Portfolio screen in a browser: gains, performance and several portfolios (issue 34)", .serialized)
struct PortfolioBrowserTests {
    /// Over the mock stack, buys 40 and 20 days ago and a sell with a fee 10 days ago: headless Chromium loads the
    /// Portfolio screen in USD and in SEK, which shows realized and unrealized gains, the cost basis method, a TWR per
    /// range and the value chart in that currency, and every activity with its kind. Screenshots (USD, SEK, SEK dark)
    /// go to .build/screenshots/portfolio, with reduced motion so the chart's line is drawn whole.
    @Test func gainsAndChartInUSDAndSEK() async throws {
        let browser = try chromiumExecutable()
        try await FullStack(feeds: "mock").use { stack in
            let priced = try await eventually(within: .seconds(30)) {
                try await stack.get("/api/views/coins?currency=USD").body.contains("\"symbol\":\"ETH\"")
            }
            #expect(priced, "the mock stack prices ETH")
            let day = 86_400.0
            func date(_ daysAgo: Double) -> String {
                Date(timeIntervalSinceNow: -daysAgo * day).formatted(.iso8601.year().month().day()) + "T00:00:00.000Z"
            }
            let activities = [
                Activity(kind: "buy", asset: "ETH", amount: "2", price: "2000", currency: "USD", fee: .init(amount: "4", currency: "USD"),
                         date: date(40), requestId: "portfolio-browser-1"),
                Activity(kind: "buy", asset: "BTC", amount: "0.1", price: "60000", currency: "USD", fee: nil, date: date(20),
                         requestId: "portfolio-browser-2"),
                Activity(kind: "sell", asset: "ETH", amount: "0.5", price: "2600", currency: "USD", fee: .init(amount: "3", currency: "EUR"),
                         date: date(10), requestId: "portfolio-browser-3"),
            ]
            for activity in activities {
                let recorded = try await stack.portfolioRPC.call("trades.add", params: activity, as: Recorded.self)
                #expect(recorded.kind == activity.kind)
            }
            let screenshots = ServiceProcess.binDirectory.deletingLastPathComponent().appendingPathComponent("screenshots/portfolio")
            try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
            for (currency, locale, sign) in [("USD", "en_US", "$"), ("SEK", "sv_SE", "kr")] {
                let url = URL(string: "/portfolio?currency=\(currency)&locale=\(locale)&range=30D", relativeTo: stack.baseURL)!.absoluteString
                var (dom, log) = try await Chromium.run(browser, ["--dump-dom", url], in: stack.endpoints.directory)
                if let missed = Self.text(of: "twr-30D", in: dom), !missed.contains("%") {
                    // Under make test's load the first answer can come at the deadline with what it had (its notes say
                    // which history was late); a reload must have it.
                    print("\(currency): the first load's 30D return is \(missed), again; the notes: \(Self.performanceNotes(in: dom))")
                    (dom, log) = try await Chromium.run(browser, ["--dump-dom", url], in: stack.endpoints.directory)
                }
                for id in ["realized-total", "unrealized-total", "gain-total", "fees-total"] {
                    let figure = try #require(Self.text(of: id, in: dom), "\(currency): #\(id)")
                    #expect(figure.contains(sign), "\(currency): #\(id) is \(figure)")
                }
                #expect(dom.contains(#"<span id="cost-basis-method" data-method="fifo">FIFO</span>"#), "\(currency): the method")
                #expect(dom.contains(#"<tr class="gain-row" data-asset="ETH">"#) && dom.contains(#"<tr class="gain-row" data-asset="BTC">"#))
                #expect(dom.contains(#"<svg id="price-chart" class="chart""#), "\(currency): the value chart")
                #expect(dom.contains("Portfolio value over 30D in \(currency)"))
                let twr = try #require(Self.text(of: "twr-30D", in: dom), "\(currency): the 30D return")
                #expect(twr.contains("%"), "\(currency): the 30D return is \(twr); the notes: \(Self.performanceNotes(in: dom))")
                #expect(dom.contains(#"<td class="kind" data-kind="sell">Sell</td>"#))
                let console = log.split(separator: "\n").filter { $0.contains(":CONSOLE(") || $0.contains("Failed to load resource") }
                #expect(console.isEmpty, "\(currency): \(console.joined(separator: "\n"))")
                let shots = currency == "SEK" ? [("sek", [String]()), ("sek-dark", ["--force-dark-mode"])] : [("usd", [String]())]
                for (name, flags) in shots {
                    let file = screenshots.appendingPathComponent("portfolio-\(name).png")
                    try? FileManager.default.removeItem(at: file)
                    _ = try await Chromium.run(browser, flags + ["--hide-scrollbars", "--window-size=1280,1900", "--force-prefers-reduced-motion", "--screenshot=\(file.path)", url],
                                               in: stack.endpoints.directory)
                    #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot \(name)")
                }
            }
            let sek = try await stack.get("/api/views/portfolio?currency=SEK&range=30D").body
            #expect(sek.contains("\"performance\"") && sek.contains("\"gains\""))
        }
    }

    /// Over the mock stack, with a BTC buy in main: headless Chromium opens the Portfolio screen, whose switch lists main; it opens
    /// a new portfolio "Second" by name, imports a Ghostfolio CSV into it through the import form (the preview names it), is back
    /// on its screen with the four activities and both portfolios in the switch. A trade into main does not make that screen
    /// fetch itself again; one into Second does, and shows. The switch's main link shows main's activities alone; one of them is
    /// removed through its confirm page, and main's history lists its three revisions, newest first. Screenshots of
    /// the preview, the confirm page, the history and of Second (USD and SEK, light and dark) go to .build/screenshots/portfolios, with its ETH page (its holding in
    /// Second, the trade form adding to Second) in SEK, dark.
    @Test func switchPortfoliosAndImportIntoASecond() async throws {
        let executable = try chromiumExecutable()
        try await FullStack(feeds: "mock").use { stack in
            let priced = try await eventually(within: .seconds(30)) {
                try await stack.get("/api/views/coins?currency=USD").body.contains("\"symbol\":\"ETH\"")
            }
            #expect(priced, "the mock stack prices ETH")
            func day(_ daysAgo: Double) -> Date { Date(timeIntervalSinceNow: -daysAgo * 86_400) }
            func wire(_ daysAgo: Double) -> String { day(daysAgo).formatted(.iso8601.year().month().day()) + "T00:00:00.000Z" }
            func ghostfolio(_ daysAgo: Double) -> String {
                var calendar = Calendar(identifier: .gregorian)
                calendar.timeZone = TimeZone(identifier: "UTC")!
                let parts = calendar.dateComponents([.year, .month, .day], from: day(daysAgo))
                return String(format: "%02d-%02d-%04d", parts.day!, parts.month!, parts.year!)
            }
            func add(_ asset: String, _ amount: String, at price: String, into portfolio: String?, id: String) async throws {
                let activity = Activity(kind: "buy", asset: asset, amount: amount, price: price, currency: "USD", fee: nil, date: wire(25),
                                        requestId: id, portfolio: portfolio)
                _ = try await stack.portfolioRPC.call("trades.add", params: activity, as: Recorded.self)
            }
            try await add("BTC", "0.1", at: "60000", into: nil, id: "portfolios-browser-1")
            let csv = """
                Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,Note
                \(ghostfolio(30)),BTC,MANUAL,USD,60000,0.5,buy,12.00,My first order
                \(ghostfolio(20)),BTC,MANUAL,USD,65000.50,0.2,sell,5,
                \(ghostfolio(15)),BTC,MANUAL,USD,0,0,fee,2.50,Custody fee
                \(ghostfolio(10)),ETH,MANUAL,USD,2500,1.5,transfer_in,0,From my wallet
                """
            let browser = try await DevToolsBrowser.launch(executable, ["--window-size=1280,1300", "--force-prefers-reduced-motion"], in: stack.endpoints.directory)
            do {
                let page = try await browser.open(URL(string: "/portfolio?currency=USD&locale=en_US", relativeTo: stack.baseURL)!)
                func js(_ expression: String) async throws -> String { try await browser.string(page, expression) }
                // Asked while a submit navigates, an expression can throw (no page yet to read): that is "not yet".
                func until(_ expression: String, is expected: String, within seconds: Int = 20) async throws -> Bool {
                    await eventually(within: .seconds(seconds)) { (try? await js(expression)) == expected }
                }
                let switchText = "[...document.querySelectorAll('#portfolio-switch a')].map(a => a.dataset.portfolio + ':' + a.querySelector('.count').textContent).join(',')"
                let complete = "!!document.getElementById('portfolio-switch') && !document.getElementById('waiting') && !document.getElementById('error')"
                #expect(try await until(complete, is: "true", within: 30), "the Portfolio screen is complete")
                #expect(try await js(switchText) == "main:1")
                #expect(try await js("document.querySelector('#portfolio-switch a.selected').dataset.portfolio") == "main")

                _ = try await js("(document.getElementById('new-portfolio-name').value = 'Second', document.getElementById('new-portfolio').requestSubmit(), 'sent')")
                #expect(try await until("document.querySelector('h1').textContent", is: "Portfolio · Second"), "the new portfolio opens")
                #expect(try await js("location.search") == "?currency=USD&locale=en_US&portfolio=Second", "it keeps the currency and locale")
                #expect(try await js("!!document.getElementById('portfolio-new') && document.querySelectorAll('tr.trade-row').length") == "0")
                #expect(try await js("document.getElementById('import-portfolio').value") == "Second", "the import goes into it")
                #expect(try await until(complete + " && window.tickwireImportFile === true", is: "true"))

                let content = String(decoding: try JSONEncoder().encode(csv), as: UTF8.self)
                _ = try await js("(document.getElementById('import-content').value = \(content), document.getElementById('import-form').requestSubmit(), 'sent')")
                #expect(try await until("location.pathname + ' ' + document.querySelectorAll('tr.import-line').length", is: "/portfolio/import 4"), "the preview came")
                #expect(try await js("document.getElementById('import-into').textContent") == "Into portfolio Second")
                let screenshots = ServiceProcess.binDirectory.deletingLastPathComponent().appendingPathComponent("screenshots/portfolios")
                try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
                try await browser.screenshot(page).write(to: screenshots.appendingPathComponent("import-preview-second.png"))
                _ = try await js("(document.querySelector('#import-confirm button').click(), 'clicked')")
                #expect(try await until("location.pathname + location.search", is: "/portfolio?portfolio=Second&imported=4&duplicates=0"))
                #expect(try await until("document.querySelectorAll('tr.trade-row').length", is: "4"), "Second's four activities")
                #expect(try await js(switchText) == "main:1,Second:4")
                #expect(try await js("document.title") == "Portfolio · Second · Tickwire")
                #expect(try await js("document.querySelector('.notices').innerText").contains("Imported 4 activities."))

                let fetches = "performance.getEntriesByType('resource').filter(e => e.initiatorType === 'fetch' && e.name.includes('/portfolio?')).length"
                let before = try await js(fetches)
                try await add("ETH", "1", at: "2000", into: "main", id: "portfolios-browser-2")
                try await Task.sleep(for: .seconds(3))
                #expect(try await js(fetches) == before, "a change of main does not reload Second's screen")
                try await add("ETH", "0.5", at: "2100", into: "Second", id: "portfolios-browser-3")
                #expect(try await until("document.querySelectorAll('tr.trade-row').length", is: "5"), "a change of Second shows on its screen")
                #expect(try await js(fetches) != before)

                _ = try await js("(document.querySelector('#portfolio-switch a[data-portfolio=\"main\"]').click(), 'clicked')")
                #expect(try await until("location.search", is: "?portfolio=main"), "the switch drops the import's notice")
                #expect(try await until("document.querySelectorAll('tr.trade-row').length", is: "2"), "main's two activities alone")
                #expect(try await js("[...document.querySelectorAll('tr.trade-row')].map(r => r.dataset.asset).sort().join(',')") == "BTC,ETH")

                _ = try await js("(document.querySelector('tr.trade-row[data-asset=\"ETH\"] a.remove-activity').click(), 'clicked')")
                #expect(try await until("!!document.getElementById('remove-activity') && document.querySelector('#remove-activity input[name=portfolio]').value",
                                        is: "main"), "the confirm page of main's ETH activity")
                try await browser.screenshot(page).write(to: screenshots.appendingPathComponent("remove-activity.png"))
                _ = try await js("(document.querySelector('#remove-activity button').click(), 'clicked')")
                #expect(try await until("location.pathname + location.search", is: "/portfolio?removed=1"), "back on main's screen")
                #expect(try await until("document.querySelectorAll('tr.trade-row').length", is: "1"), "the ETH activity is gone")
                _ = try await js("(document.getElementById('history-link').click(), 'clicked')")
                #expect(try await until("[...document.querySelectorAll('tr.revision-row')].map(r => r.dataset.action + ' ' + r.cells[3].textContent).join(',')",
                                        is: "removed ETH,added ETH,added BTC"), "main's history alone, newest first")
                try await browser.screenshot(page).write(to: screenshots.appendingPathComponent("history-main.png"))
                #expect(browser.errors.isEmpty, "\(browser.errors)")
            } catch {
                await browser.quit()
                throw error
            }
            await browser.quit()

            let view = try await stack.get("/api/views/portfolio?portfolio=Second&currency=SEK")
            #expect(view.status == 200 && view.body.contains("\"portfolio\":\"Second\""), "\(view.body.prefix(300))")
            let screenshots = ServiceProcess.binDirectory.deletingLastPathComponent().appendingPathComponent("screenshots/portfolios")
            for (currency, locale) in [("USD", "en_US"), ("SEK", "sv_SE")] {
                let url = URL(string: "/portfolio?portfolio=Second&currency=\(currency)&locale=\(locale)&range=30D", relativeTo: stack.baseURL)!.absoluteString
                for (name, flags) in [("light", [String]()), ("dark", ["--force-dark-mode"])] {
                    let file = screenshots.appendingPathComponent("portfolio-second-\(currency.lowercased())-\(name).png")
                    try? FileManager.default.removeItem(at: file)
                    _ = try await Chromium.run(executable, flags + ["--hide-scrollbars", "--window-size=1280,2500", "--force-prefers-reduced-motion",
                                                                    "--screenshot=\(file.path)", url], in: stack.endpoints.directory)
                    #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot \(currency) \(name)")
                }
            }
            let coin = URL(string: "/coins/ETH?portfolio=Second&currency=SEK&locale=sv_SE", relativeTo: stack.baseURL)!.absoluteString
            let (dom, _) = try await Chromium.run(executable, ["--dump-dom", coin], in: stack.endpoints.directory)
            #expect(dom.contains("Your holding in <a id=\"holding-portfolio\" href=\"/portfolio?currency=SEK&amp;locale=sv_SE&amp;portfolio=Second\">Second</a>"))
            #expect(dom.contains("<tr class=\"holding-row\" data-asset=\"ETH\">") && dom.contains("id=\"trade-portfolio\" required=\"\" autocomplete=\"off\" value=\"Second\""))
            let file = screenshots.appendingPathComponent("coin-eth-second-sek-dark.png")
            try? FileManager.default.removeItem(at: file)
            _ = try await Chromium.run(executable, ["--force-dark-mode", "--hide-scrollbars", "--window-size=1280,1600", "--force-prefers-reduced-motion",
                                                    "--screenshot=\(file.path)", coin], in: stack.endpoints.directory)
            #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot of the coin page")
        }
    }

    /// The performance section's notes (why a return or the chart is missing), as the page lists them.
    static func performanceNotes(in html: String) -> String {
        guard let start = html.range(of: "<ul id=\"performance-notes\""), let end = html[start.upperBound...].range(of: "</ul>") else {
            return "none"
        }
        return String(html[start.lowerBound..<end.upperBound])
    }

    /// The text of the element with `id` in `html` (its first text, tags left out).
    static func text(of id: String, in html: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
        guard let open = html[start.upperBound...].firstIndex(of: ">") else { return nil }
        let rest = html[html.index(after: open)...]
        guard let close = rest.firstIndex(of: "<") else { return nil }
        return String(rest[..<close])
    }
}
