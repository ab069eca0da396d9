import ChildProcesses
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The coins view, read loosely.
private struct CoinsJSON: Decodable {
    struct Row: Decodable {
        let symbol: String
        let image: String?
        let change24h: Amount?
    }
    struct Amount: Decodable { let raw: String }
    let rows: [Row]
    let notices: [String]
}

/// The coin view, read loosely.
private struct CoinJSON: Decodable {
    struct Chart: Decodable {
        let currency: String
        let points: [Point]
    }
    struct Point: Decodable { let time: String }
    struct Amount: Decodable { let raw: String }
    let chart: Chart?
    let high24h: Amount?
    let marketCap: Amount?
    let ask: Amount?
    let change24h: Amount?
    let notices: [String]
}

@Suite("the demo in a browser: every screen complete (issue 21)", .serialized)
struct DemoBrowserTests {
    /// With mock feeds and no network, every coin in USD and SEK has a 24 h change, and its detail a chart of at least
    /// 20 points in that currency, market data and no notices; every image is a path on the presenter that answers one.
    @Test func demoViewsAreComplete() async throws {
        try await FullStack(feeds: "mock").use { stack in
            let coins = try await waitForCoins(stack)
            for currency in ["USD", "SEK"] {
                let list = try JSONDecoder().decode(CoinsJSON.self, from: Data(try await stack.get("/api/views/coins?currency=\(currency)").body.utf8))
                #expect(list.notices.isEmpty, "\(currency): \(list.notices)")
                for row in list.rows {
                    #expect(row.change24h != nil, "\(row.symbol) in \(currency) has a 24 h change")
                    let image = try #require(row.image)
                    try await expectImage(stack, image)
                    let answer = try await stack.get("/api/views/coin?symbol=\(row.symbol)&currency=\(currency)")
                    let coin = try JSONDecoder().decode(CoinJSON.self, from: Data(answer.body.utf8))
                    #expect(coin.notices.isEmpty, "\(row.symbol) in \(currency): \(coin.notices)")
                    #expect(coin.chart?.currency == currency && (coin.chart?.points.count ?? 0) >= 20, "\(row.symbol) in \(currency): a chart")
                    #expect(coin.high24h != nil || coin.marketCap != nil || coin.ask != nil, "\(row.symbol) in \(currency): market data")
                }
            }
            #expect(coins.count >= 5)
        }
    }

    /// Headless Chromium loads every screen in USD, in SEK and in a comma-decimal locale: no notice, no console error,
    /// every image on the presenter and answering an image. Screenshots go to .build/screenshots/demo.
    @Test func everyScreenInTheBrowser() async throws {
        let browser = try chromiumExecutable()
        try await FullStack(feeds: "mock").use { stack in
            let coins = try await waitForCoins(stack)
            // A holding, so the portfolio has something to show rather than its "no trades yet" guidance.
            _ = try await stack.portfolioRPC.call("trades.add", params: [
                "asset": "ETH", "amount": "1.5", "price": "2000", "currency": "USD",
                "date": "2026-01-02T00:00:00.000Z", "requestId": "demo-browser-test",
            ], as: [String: String].self)
            let screenshots = ServiceProcess.binDirectory.deletingLastPathComponent().appendingPathComponent("screenshots/demo")
            try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
            let screens = ["/coins", "/assets?filter=all", "/wallets", "/portfolio", "/books", "/books/btc_mxn", "/products", "/products/T2006"]
                + coins.map { "/coins/\($0)" }
            for query in ["currency=USD", "currency=SEK", "currency=SEK&locale=sv_SE"] {
                for screen in screens {
                    let path = screen + (screen.contains("?") ? "&" : "?") + query
                    let url = URL(string: path, relativeTo: stack.baseURL)!.absoluteString
                    let (dom, log) = try await Chromium.run(browser, ["--dump-dom", url], in: stack.endpoints.directory)
                    #expect(dom.contains("<div id=\"notices\" class=\"notices\" role=\"alert\"></div>"), "\(path) shows a notice")
                    let consoleLines = log.split(separator: "\n").filter { $0.contains(":CONSOLE(") || $0.contains("Failed to load resource") }
                    #expect(consoleLines.isEmpty, "\(path): \(consoleLines.joined(separator: "\n"))")
                    for image in Self.images(in: dom) {
                        try await expectImage(stack, image)
                    }
                    if query == "currency=SEK" {
                        let file = screenshots.appendingPathComponent(
                            path.dropFirst().replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "?", with: "_")
                                .replacingOccurrences(of: "&", with: "_").replacingOccurrences(of: "=", with: "-") + ".png")
                        _ = try await Chromium.run(browser, ["--hide-scrollbars", "--window-size=1280,1000", "--screenshot=\(file.path)", url],
                                                   in: stack.endpoints.directory)
                        #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot of \(path)")
                    }
                }
            }
        }
    }

    /// Every `src` and `srcset` of an image in `html`.
    static func images(in html: String) -> [String] {
        let pattern = try! NSRegularExpression(pattern: #"<(?:img|source)\b[^>]*?\b(?:src|srcset)="([^"]+)""#)
        let range = NSRange(html.startIndex..., in: html)
        return pattern.matches(in: html, range: range).compactMap { match in Range(match.range(at: 1), in: html).map { String(html[$0]) } }
    }

    /// The coins priced by the mock stack, once all have a price in USD.
    private func waitForCoins(_ stack: FullStack) async throws -> [String] {
        var symbols: [String] = []
        let ready = try await eventually(within: .seconds(30)) {
            let body = try await stack.get("/api/views/coins?currency=USD").body
            guard let list = try? JSONDecoder().decode(CoinsJSON.self, from: Data(body.utf8)) else { return false }
            symbols = list.rows.map(\.symbol)
            return symbols.count >= 5 && list.notices.isEmpty
        }
        #expect(ready, "the demo's coins are priced")
        return symbols
    }

    /// `path` is on the presenter and answers an image.
    private func expectImage(_ stack: FullStack, _ path: String) async throws {
        #expect(path.hasPrefix("/") && !path.hasPrefix("//"), "\(path) is a path on the presenter")
        guard path.hasPrefix("/") else { return }
        let (data, response) = try await URLSession.shared.data(from: URL(string: path, relativeTo: stack.baseURL)!)
        let http = response as? HTTPURLResponse
        #expect(http?.statusCode == 200, "\(path) answers")
        let contentType = http?.value(forHTTPHeaderField: "Content-Type") ?? ""
        #expect(contentType.hasPrefix("image/"), "\(path) is an image")
        #expect(!data.isEmpty)
    }
}

/// Headless Chromium, run to its end without blocking a cooperative thread.
enum Chromium {
    /// Runs Chromium headless with `arguments`; returns its standard output and its log (console messages included).
    static func run(_ executable: String, _ arguments: [String], in directory: URL) async throws -> (output: String, log: String) {
        let id = UUID().uuidString.prefix(6)
        let output = directory.appendingPathComponent("out-\(id)")
        let log = directory.appendingPathComponent("log-\(id)")
        let process = try await ChildProcess.start(
            executable, ["--headless", "--no-sandbox", "--disable-gpu", "--enable-logging=stderr", "--v=0"] + arguments,
            output: output, error: log)
        if await process.waitForExit(within: .seconds(60)) == nil { await process.stop() }
        return (try String(contentsOf: output, encoding: .utf8), try String(contentsOf: log, encoding: .utf8))
    }
}
