import Bus
import ChildProcesses
import Foundation
import Testing
import ZeroMQ

#if canImport(FoundationNetworking)
import FoundationNetworking
import BusContract
#endif

/// All four services as real processes (test feeds, or `mock` ones: the demo), the presenter's dashboard on a port the system picks.
final class FullStack: Stoppable, @unchecked Sendable {
    let endpoints: Endpoints
    let services: [ServiceProcess]
    let presenter: ServiceProcess
    let context: ZMQContext
    let presenterRPC: RPCClient
    let portfolioRPC: RPCClient
    let baseURL: URL

    /// The stack; `fetcherArguments` go to rates-fetcher besides its endpoints and feeds.
    init(feeds: String = "test", fetcherArguments: [String] = []) async throws {
        endpoints = try Endpoints()
        let fetcher = try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", feeds] + fetcherArguments, in: endpoints.directory)
        let converter = try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory)
        let portfolio = try await ServiceProcess("portfolio", endpoints.portfolioArguments, in: endpoints.directory)
        presenter = try await ServiceProcess("presenter", [
            "--rep", endpoints.presenterRep, "--http", "http://127.0.0.1:0",
            "--fetcher-pub", endpoints.fetcherPub, "--fetcher-rep", endpoints.fetcherRep,
            "--converter-pub", endpoints.converterPub, "--converter-rep", endpoints.converterRep,
            "--portfolio-pub", endpoints.portfolioPub, "--portfolio-rep", endpoints.portfolioRep,
        ], in: endpoints.directory)
        services = [presenter, portfolio, converter, fetcher]
        context = try ZMQContext()
        presenterRPC = try client(context, endpoints.presenterRep)
        portfolioRPC = try client(context, endpoints.portfolioRep)
        try await waitUntilHealthy(portfolioRPC, portfolio)
        try await waitUntilHealthy(presenterRPC, presenter)
        let presenter = presenter
        var url: URL?
        _ = await eventually { url = FullStack.dashboardURL(in: presenter.log); return url != nil }
        guard let url else { throw StackError.notReady("presenter's dashboard", presenter.log) }
        baseURL = url
    }

    /// The URL the presenter logged as "dashboard listening".
    static func dashboardURL(in log: String) -> URL? {
        guard let line = log.split(separator: "\n").last(where: { $0.contains("dashboard listening") }),
              let start = line.range(of: "url=http://") else { return nil }
        let text = line[start.upperBound...].prefix { !$0.isWhitespace }
        return URL(string: "http://\(text)")
    }

    /// GETs `path` from the dashboard.
    func get(_ path: String) async throws -> (status: Int, body: String) {
        let (data, response) = try await URLSession.shared.data(from: URL(string: path, relativeTo: baseURL)!)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    func stop() async {
        await presenterRPC.close()
        await portfolioRPC.close()
        for service in services { await service.stop() }
    }
}

/// One screen's view as the REP `view` method returns it, read loosely.
struct ViewJSON: Decodable, Sendable {
    let locale: String?
    let notices: [String]?
}

@Suite("presenter end to end", .serialized)
struct PresenterEndToEndTests {
    /// Views over REP and HTTP agree, carry formatted and raw amounts, and follow the locale.
    @Test func viewsOverRepAndHTTP() async throws {
        try await FullStack().use { stack in
            struct ProductJSON: Decodable { let total: Amount; struct Amount: Decodable { let raw: String; let text: String } }
            struct Request: Encodable, Sendable { let screen: String; let sku: String?; let locale: String? }
            let request = Request(screen: "product", sku: "T2006", locale: "de_AT")
            // GNB's transactions reach the portfolio with rates-fetcher's snapshot, which may come after the services answer.
            #expect(await eventually { (try? await stack.presenterRPC.call("view", params: request, as: ProductJSON.self)) != nil })
            let product = try await stack.presenterRPC.call("view", params: request, as: ProductJSON.self)
            #expect(product.total.raw == "14.99")
            #expect(product.total.text == "14,99\u{A0}€")

            let (status, body) = try await stack.get("/api/views/product?sku=T2006&locale=en_US")
            #expect(status == 200)
            #expect(body.contains(#""raw":"14.99""#))
            #expect(body.contains("€14.99"))

            let missing = try await stack.get("/api/views/product?sku=NOPE")
            #expect(missing.status == 404)
            #expect(missing.body.contains("NOPE"))
            let badLocale = try await stack.get("/api/views/coins?locale=xx_YY")
            #expect(badLocale.status == 400)
            let badFilter = try await stack.get("/assets?filter=bogus")
            #expect(badFilter.status == 400)
            #expect(badFilter.body.contains("bogus"))

            // A form posted without the CSRF token of the page's cookie is refused, and changes nothing.
            var form = URLRequest(url: URL(string: "/coins/BTC/trades", relativeTo: stack.baseURL)!)
            form.httpMethod = "POST"
            form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            form.httpBody = Data("amount=1&price=100&currency=USD&date=2026-01-02&requestId=form-0".utf8)
            let (_, forged) = try await URLSession(configuration: .ephemeral).data(for: form)
            #expect((forged as? HTTPURLResponse)?.statusCode == 403)
            let (_, page) = try await URLSession(configuration: .ephemeral).data(from: URL(string: "/coins/BTC", relativeTo: stack.baseURL)!)
            let cookie = try #require((page as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie"))
            let token = String(try #require(cookie.split(separator: ";").first?.split(separator: "=").last))
            form.setValue("tickwire_csrf=\(token)", forHTTPHeaderField: "Cookie")
            form.httpBody = Data("amount=-1&price=100&currency=USD&date=2026-01-02&requestId=form-1&csrf=\(token)".utf8)
            let (formBody, formResponse) = try await URLSession(configuration: .ephemeral).data(for: form)
            #expect((formResponse as? HTTPURLResponse)?.statusCode == 400)
            #expect(String(decoding: formBody, as: UTF8.self).contains("The trade was not added: invalid params: amount must be positive"),
                    "a refused trade says why on the page")

            let health = try await stack.get("/health")
            #expect(health.status == 200)
            #expect(health.body.contains(#""status":"ok""#))
            let metrics = try await stack.get("/metrics")
            #expect(metrics.body.contains("tickwire_rpc_duration_seconds"))
            await #expect(throws: RPCError.self) {
                try await stack.presenterRPC.call("view", params: Request(screen: "nope", sku: nil, locale: nil), as: ViewJSON.self)
            }
        }
    }

    /// Live prices arrive as Server-Sent Events, and an open stream does not hold up a graceful shutdown.
    @Test func liveStreamThenCleanShutdown() async throws {
        try await FullStack().use { stack in
            let output = stack.endpoints.directory.appendingPathComponent("sse.out")
            #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
            let curl = try await ChildProcess.start(
                "curl", ["-sN", URL(string: "/events?currency=USD&locale=de_AT", relativeTo: stack.baseURL)!.absoluteString],
                output: output, error: URL(fileURLWithPath: "/dev/null"))
            #expect(await eventually { ((try? String(contentsOf: output, encoding: .utf8)) ?? "").contains("data: ") })
            let event = try #require(try String(contentsOf: output, encoding: .utf8).split(separator: "\n").first { $0.hasPrefix("data: ") })
            let object = try #require(try JSONSerialization.jsonObject(with: Data(event.dropFirst(6).utf8)) as? [String: Any])
            #expect(object["currency"] as? String == "USD")
            #expect((object["text"] as? String)?.hasSuffix("\u{A0}$") == true, "de_AT puts the symbol after the number with a no-break space")
            #expect(await stack.presenter.stop() == 0, "the presenter should exit cleanly with a stream open")
            #expect(await eventually { !curl.isRunning }, "the stream ends when the presenter stops")
        }
    }

    /// Headless Chromium loads every page: the DOM holds the expected rows, and a screenshot of
    /// each page is written under .build/screenshots for a person to look at.
    @Test func browserSeesEveryPage() async throws {
        let browser = try chromiumExecutable()
        try await FullStack().use { stack in
            let trade = try await stack.portfolioRPC.call("trades.add", params: [
                "asset": "BTC", "amount": "0.5", "price": "30000", "currency": "USD",
                "date": "2026-01-02T00:00:00.000Z", "requestId": "browser-test",
            ], as: [String: String].self)
            #expect(trade["asset"] == "BTC")
            let screenshots = ServiceProcess.binDirectory.deletingLastPathComponent().appendingPathComponent("screenshots")
            try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)
            let pages: [(path: String, expect: [String])] = [
                ("/coins", [#"class="coin-row""#, #"data-asset="BTC""#]),
                ("/coins/BTC", ["id=\"price-chart\"", "id=\"trade-form\""]),
                ("/assets?filter=all", [#"class="asset-row"#, #"data-symbol="BTC""#]),
                ("/wallets", ["wallet-row fiat", "wallet-row"]),
                ("/portfolio", [#"data-asset="BTC""#, "id=\"total-value\""]),
                ("/books", [#"data-book="btc_mxn""#, "max-price"]),
                ("/books/btc_mxn", ["id=\"ask\"", "id=\"bid\""]),
                ("/products", [#"data-sku="T2006""#]),
                ("/products/T2006", ["id=\"total\"", "14.99"]),
            ]
            for page in pages {
                let url = URL(string: page.path, relativeTo: stack.baseURL)!.absoluteString
                let dom = try await Chromium.run(browser, ["--dump-dom", url], in: stack.endpoints.directory).output
                for expected in page.expect {
                    #expect(dom.contains(expected), "\(page.path) should contain \(expected)")
                }
                #expect(!dom.contains("class=\"notice error\""), "\(page.path) shows an error")
                let file = screenshots.appendingPathComponent(page.path.dropFirst().replacingOccurrences(of: "/", with: "_")
                    .replacingOccurrences(of: "?", with: "_") + ".png")
                _ = try await Chromium.run(browser, ["--hide-scrollbars", "--window-size=1280,1000", "--screenshot=\(file.path)", url],
                                           in: stack.endpoints.directory)
                #expect(FileManager.default.fileExists(atPath: file.path), "no screenshot of \(page.path)")
            }
        }
    }
}
