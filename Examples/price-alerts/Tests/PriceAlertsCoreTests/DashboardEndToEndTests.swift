import Foundation
import Money
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The dashboard of a running presenter, over HTTP, as a browser without JavaScript sees it.
struct Dashboard {
    let base: URL
    let session = URLSession(configuration: .ephemeral)

    /// The address the presenter logged it listens on (`dashboard listening url=http://...`), once it did.
    static func find(in children: Children) async -> Dashboard? {
        var found: URL?
        _ = await eventually(within: .seconds(60)) {
            guard let line = children.log("presenter").split(separator: "\n").last(where: { $0.contains("dashboard listening") }),
                  let start = line.range(of: "url=http://") else { return false }
            found = URL(string: "http://" + line[start.upperBound...].prefix { !$0.isWhitespace })
            return found != nil
        }
        return found.map { Dashboard(base: $0) }
    }

    /// `path`'s status, text and the CSRF token its cookie sets (if it sets one).
    func get(_ path: String) async throws -> (status: Int, text: String, token: String?) {
        let (data, response) = try await session.data(from: URL(string: path, relativeTo: base)!)
        let http = response as? HTTPURLResponse
        let cookie = http?.value(forHTTPHeaderField: "Set-Cookie")
        let token = cookie?.split(separator: ";").first?.split(separator: "=", maxSplits: 1).last.map(String.init)
        return (http?.statusCode ?? 0, String(decoding: data, as: UTF8.self), token)
    }

    /// Posts a form of the price-alerts page, as its submit button does: `method`, and `fields` as `p.<name>`; the status and
    /// the text of the page it ends on (after the redirect), and that page's query.
    func submit(_ method: String, _ fields: KeyValuePairs<String, String>, token: String) async throws -> (status: Int, text: String, query: String?) {
        var form = URLRequest(url: URL(string: "/plugins/price-alerts/call", relativeTo: base)!)
        form.httpMethod = "POST"
        form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
        form.setValue("tickwire_csrf=\(token)", forHTTPHeaderField: "Cookie")
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._")
        func encode(_ text: String) -> String { text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text }
        let body = [("csrf", token), ("method", method)] + fields.map { ("p.\($0.key)", $0.value) }
        form.httpBody = Data(body.map { "\(encode($0.0))=\(encode($0.1))" }.joined(separator: "&").utf8)
        let (data, response) = try await session.data(for: form)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self), response.url?.query)
    }
}

/// The text of the rows (`<tr class="plugin-row" ...>`) of the page's table in section `index` (1-based): each row's cells.
func rows(of page: String, section index: Int) -> [[String]] {
    guard let start = page.range(of: "<section class=\"plugin-section\" id=\"section-\(index)\">") else { return [] }
    let section = page[start.upperBound...]
    let end = section.range(of: "</section>")?.lowerBound ?? section.endIndex
    return section[..<end].matches(of: /<tr class="plugin-row"[^>]*>(.*?)<\/tr>/).map { row in
        row.output.1.matches(of: /<td>([^<]*)<\/td>/).map { String($0.output.1) }
    }
}

@Suite("price-alerts on the dashboard, end to end", .serialized,
       .enabled("needs rates-fetcher, converter, portfolio and presenter in the main package's .build/debug, and price-alerts here", { Executables.ready }))
struct DashboardEndToEndTests {
    /// rates-fetcher (mock feeds), converter, portfolio, the presenter told of the plugin only by `--plugin` and
    /// price-alerts as real processes: the dashboard links an Alerts page built from `panel`; its form adds a rule; the
    /// alert it fires reaches the page live (an SSE `changed` event, and the page fetched again lists it); the row's
    /// Remove removes it; with price-alerts stopped, no link and no page errors.
    @Test func alertsPageFromThePanel() async throws {
        let children = try Children()
        do {
            try await run(children)
        } catch {
            for name in ["rates-fetcher", "converter", "portfolio", "presenter", "price-alerts"] { print("--- \(name).log\n\(children.log(name))") }
            await children.stop()
            throw error
        }
        await children.stop()
    }

    private func run(_ children: Children) async throws {
        let (alertsRep, alertsPub) = (children.ipc("alerts-rep"), children.ipc("alerts-pub"))
        try await children.start(service: "rates-fetcher", children.fetcherArguments)
        try await children.start(service: "converter", children.converterArguments)
        try await children.start(service: "portfolio", [
            "--rep", children.ipc("portfolio-rep"), "--pub", children.ipc("portfolio-pub"),
            "--fetcher-pub", children.ipc("fetcher-pub"), "--fetcher-rep", children.ipc("fetcher-rep"),
            "--converter-pub", children.ipc("converter-pub"), "--converter-rep", children.ipc("converter-rep"),
            "--database", children.folder.appendingPathComponent("portfolio.sqlite").path])
        try await children.start(service: "price-alerts", [
            "--rep", alertsRep, "--pub", alertsPub, "--converter-rep", children.ipc("converter-rep"), "--converter-pub", children.ipc("converter-pub"),
            "--database", children.folder.appendingPathComponent("alerts.sqlite").path])
        try await children.start(service: "presenter", [
            "--rep", children.ipc("presenter-rep"), "--http", "http://127.0.0.1:0",
            "--fetcher-pub", children.ipc("fetcher-pub"), "--fetcher-rep", children.ipc("fetcher-rep"),
            "--converter-pub", children.ipc("converter-pub"), "--converter-rep", children.ipc("converter-rep"),
            "--portfolio-pub", children.ipc("portfolio-pub"), "--portfolio-rep", children.ipc("portfolio-rep"),
            "--plugin", "price-alerts=\(alertsRep),\(alertsPub)"])
        let dashboard = try #require(await Dashboard.find(in: children), "the presenter's dashboard address")

        // The link, titled as the panel, once the presenter's poll found the plugin; the page built from its panel, with
        // the currencies the converter prices in once price-alerts has its prices.
        #expect(await eventually(within: .seconds(30)) {
            try await dashboard.get("/coins").text.contains("<a href=\"/plugins/price-alerts\">Alerts</a>")
        }, "no Alerts link in the navigation")
        #expect(await eventually(within: .seconds(60)) {
            try await dashboard.get("/plugins/price-alerts").text.contains("<option value=\"USD\" selected>USD</option>")
        }, "the add form offers no USD")
        let page = try await dashboard.get("/plugins/price-alerts")
        #expect(page.status == 200)
        #expect(page.text.contains("<h1>Alerts</h1>"))
        #expect(page.text.contains("No rules yet: add one below.") && page.text.contains("No alert has fired since price-alerts started."))
        #expect(page.text.contains("data-method=\"alerts.add\"") && page.text.contains("<option value=\"SEK\">SEK</option>"))
        let token = try #require(page.text.firstMatch(of: /name="csrf" value="([0-9a-f]+)"/).map { String($0.output.1) } ?? page.token,
                                 "the page's forms carry a CSRF token")

        // The page's event stream, to see the alert arrive live.
        let events = children.folder.appendingPathComponent("events.out")
        try await children.start(
            "events", "curl", ["-sN", URL(string: "/events?currency=USD&prices=0", relativeTo: dashboard.base)!.absoluteString], output: events)
        func heard() -> String { (try? String(contentsOf: events, encoding: .utf8)) ?? "" }
        #expect(await eventually(within: .seconds(10)) { heard().contains("event: ") }, "the event stream says nothing: \(heard())")
        let before = heard().count

        // The add form, as a reader fills it (the empty `below` left out): a rule on BTC above 1 USD, which holds at once.
        let added = try await dashboard.submit("alerts.add", ["asset": "btc", "currency": "USD", "above": "1", "below": ""], token: token)
        #expect(added.status == 200 && added.query == "done=alerts.add", "\(added.text.prefix(2000))")
        #expect(added.text.contains("Add rule: done."))
        let rule = try #require(rows(of: added.text, section: 1).first, "no rule row: \(added.text.prefix(3000))")
        #expect(Array(rule.prefix(4)) == ["BTC", "USD", "above", "1"])

        // Its alert reaches the page live: a `changed` event for the plugin's page, and the page fetched again lists it.
        #expect(await eventually(within: .seconds(15)) { heard().dropFirst(before).contains("\"plugin:price-alerts\"") },
                "no changed event for the Alerts page: \(heard().suffix(1500))")
        let reloaded = try await dashboard.get("/plugins/price-alerts")
        let fired = try #require(rows(of: reloaded.text, section: 3).first, "no alert listed: \(reloaded.text.prefix(3000))")
        #expect(Array(fired.dropFirst().prefix(4)) == ["BTC", "USD", "above", "1"])
        #expect((try? ExactDecimal(fired[5])).map { $0 > 1 } == true, "the price that crossed: \(fired)")
        #expect(rows(of: reloaded.text, section: 1).first?[4] == "yes")

        // A bad form is refused with the plugin's words on the page; the row's Remove removes the rule.
        let both = try await dashboard.submit("alerts.add", ["asset": "ETH", "currency": "USD", "above": "1", "below": "2"], token: token)
        #expect(both.status == 400 && both.text.contains("give exactly one of above and below"))
        let id = try #require(reloaded.text.firstMatch(of: /name="p.id" value="([^"]+)"/).map { String($0.output.1) }, "no Remove")
        let removed = try await dashboard.submit("alerts.remove", ["id": id], token: token)
        #expect(removed.status == 200 && removed.query == "done=alerts.remove" && removed.text.contains("No rules yet: add one below."), "\(removed.status) \(removed.text.prefix(3000))")
        await children.stop("events")

        // price-alerts stops: the link goes, its page says it is not running, and the other pages answer as before.
        #expect(await children.stop("price-alerts") == 0)
        #expect(await eventually(within: .seconds(15)) { try await !dashboard.get("/coins").text.contains("/plugins/price-alerts") },
                "the Alerts link stayed after price-alerts stopped")
        let gone = try await dashboard.get("/plugins/price-alerts")
        #expect(gone.status == 503 && gone.text.contains("The plugin price-alerts is not running"))
        for path in ["/coins", "/assets", "/portfolio"] {
            let other = try await dashboard.get(path)
            #expect(other.status == 200, "\(path)")
            #expect(!other.text.contains("price-alerts") && !other.text.contains("id=\"error\""), "\(path): \(other.text.prefix(1500))")
        }
    }
}
