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
}

/// The recorded activity, read loosely.
private struct Recorded: Decodable {
    let id: String
    let kind: String
}

@Suite("the Portfolio screen in a browser: gains and performance (issue 34)", .serialized)
struct PortfolioBrowserTests {
    /// Over the mock stack, buys 40 and 20 days ago and a sell with a fee 10 days ago: headless Chromium loads the
    /// Portfolio screen in USD and in SEK, which shows realized and unrealized gains, the cost basis method, a TWR per
    /// range and the value chart in that currency, and every activity with its kind. Screenshots (USD, SEK, SEK dark)
    /// go to .build/screenshots/portfolio, with reduced motion so the chart's line is drawn whole.
    @Test func gainsAndChartInUSDAndSEK() async throws {
        let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser"].first { FileManager.default.isExecutableFile(atPath: $0) }
        let browser = try #require(chromium, "headless Chromium is needed: make test installs Debian's chromium")
        try await FullStack.with(feeds: "mock") { stack in
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
                let (dom, log) = try await Chromium.run(browser, ["--dump-dom", url], in: stack.endpoints.directory)
                for id in ["realized-total", "unrealized-total", "gain-total", "fees-total"] {
                    let figure = try #require(Self.text(of: id, in: dom), "\(currency): #\(id)")
                    #expect(figure.contains(sign), "\(currency): #\(id) is \(figure)")
                }
                #expect(dom.contains(#"<span id="cost-basis-method" data-method="fifo">FIFO</span>"#), "\(currency): the method")
                #expect(dom.contains(#"<tr class="gain-row" data-asset="ETH">"#) && dom.contains(#"<tr class="gain-row" data-asset="BTC">"#))
                #expect(dom.contains(#"<svg id="price-chart" class="chart""#), "\(currency): the value chart")
                #expect(dom.contains("Portfolio value over 30D in \(currency)"))
                let twr = try #require(Self.text(of: "twr-30D", in: dom), "\(currency): the 30D return")
                #expect(twr.contains("%"), "\(currency): the 30D return is \(twr)")
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

    /// The text of the element with `id` in `html` (its first text, tags left out).
    static func text(of id: String, in html: String) -> String? {
        guard let start = html.range(of: "id=\"\(id)\"") else { return nil }
        guard let open = html[start.upperBound...].firstIndex(of: ">") else { return nil }
        let rest = html[html.index(after: open)...]
        guard let close = rest.firstIndex(of: "<") else { return nil }
        return String(rest[..<close])
    }
}
