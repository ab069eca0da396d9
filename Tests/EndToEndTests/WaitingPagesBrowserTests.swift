import Bus
import Foundation
import Synchronization
import Testing
import TickwireContract
import ZeroMQ

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

@Suite("UI before data, live, in a browser (issue 35)", .serialized)
struct WaitingPagesBrowserTests {
    /// A page, what it says while it waits, and what shows it complete.
    private struct Screen {
        let path: String
        let waiting: String
        let complete: String
    }

    private static let screens = [
        Screen(path: "/coins", waiting: "Waiting for prices in USD from the converter…", complete: "class=\"coin-row"),
        Screen(path: "/coins/BTC", waiting: "Waiting for prices in USD from the converter…", complete: "id=\"price-chart\""),
        Screen(path: "/assets?filter=all", waiting: "Waiting for the masterdata’s assets from rates-fetcher…", complete: "data-symbol=\"BTC\""),
        Screen(path: "/books/btc_mxn", waiting: "Waiting for Bitso’s ticker of btc_mxn from rates-fetcher…", complete: "id=\"ask\""),
        // The mock GNB feed replays the large recording of 2021-08-07, where A6102 sold 295 times.
        Screen(path: "/products/A6102", waiting: "Waiting for the products’ transactions from the portfolio…", complete: "id=\"total\""),
        Screen(path: "/wallets", waiting: "Waiting for the wallets from the portfolio…", complete: "wallet-row fiat"),
        Screen(path: "/portfolio", waiting: "Waiting for your trades and holdings from the portfolio…", complete: "id=\"holdings\""),
        Screen(path: "/books", waiting: "Waiting for Bitso’s books from rates-fetcher…", complete: "data-book=\"btc_mxn\""),
        Screen(path: "/products", waiting: "Waiting for the products’ transactions from the portfolio…", complete: "data-sku=\"A6102\""),
    ]

    /// The presenter started alone (behind its upstreams' endpoints nothing that answers) answers every page with what
    /// it waits for, asking no upstream; pages left open in Chromium fill in once rates-fetcher (mock feeds), the converter and the
    /// portfolio start, without a reload (the page id the script set at load stays); a coin added at run time eases
    /// into the open coin list and leaves it when removed; a changed price flashes, and under reduced motion the
    /// flash, like the chart's drawing, has no animation. Screenshots, light and dark, go to .build/screenshots/live.
    @Test func pagesWaitThenFillInLive() async throws {
        let executable = try chromiumExecutable()
        let endpoints = try Endpoints()
        // Behind the upstreams' request endpoints, listeners that never answer and note each request's method.
        let context = try ZMQContext()
        let silent = try SilentUpstreams(context, [endpoints.fetcherRep, endpoints.converterRep, endpoints.portfolioRep])
        let presenter = try await ServiceProcess("presenter", [
            "--rep", endpoints.presenterRep, "--http", "http://127.0.0.1:0",
            "--fetcher-pub", endpoints.fetcherPub, "--fetcher-rep", endpoints.fetcherRep,
            "--converter-pub", endpoints.converterPub, "--converter-rep", endpoints.converterRep,
            "--portfolio-pub", endpoints.portfolioPub, "--portfolio-rep", endpoints.portfolioRep,
            // A plugin that is not running: no link, its page says so, and nothing else waits for it.
            "--plugin", "notes=ipc://\(endpoints.directory.path)/notes-rep,ipc://\(endpoints.directory.path)/notes-pub",
        ], in: endpoints.directory)
        var services = [presenter]
        var browsers: [DevToolsBrowser] = []
        do {
            try await check(
                presenter: presenter, endpoints: endpoints, silent: silent, context: context, executable: executable,
                services: &services, browsers: &browsers)
        } catch {
            Issue.record("\(error)")
        }
        await silent.close()
        for browser in browsers { await browser.quit() }
        for service in services.reversed() { await service.stop() }
    }

    private func check(
        presenter: ServiceProcess, endpoints: Endpoints, silent: SilentUpstreams, context: ZMQContext, executable: String,
        services: inout [ServiceProcess], browsers: inout [DevToolsBrowser]
    ) async throws {
        var found: URL?
        _ = await eventually { found = FullStack.dashboardURL(in: presenter.log); return found != nil }
        let base = try #require(found, "the presenter's dashboard: \(presenter.log.suffix(2000))")
        let screenshots = ServiceProcess.binDirectory.deletingLastPathComponent().appendingPathComponent("screenshots/live")
        try FileManager.default.createDirectory(at: screenshots, withIntermediateDirectories: true)

        // Every page, answered with its frame and what it waits for, without asking any upstream: no wall-clock bound,
        // which a loaded CI breaks, but the requests the silent upstreams saw (only the streams' snapshots).
        for screen in Self.screens {
            let (data, response) = try await URLSession.shared.data(from: URL(string: screen.path, relativeTo: base)!)
            let body = String(decoding: data, as: UTF8.self)
            #expect((response as? HTTPURLResponse)?.statusCode == 200, "\(screen.path)")
            #expect(body.contains(screen.waiting) && body.contains("<nav class=\"pages\""), "\(screen.path): \(body.prefix(2000))")
            #expect(!body.contains("/plugins/"), "\(screen.path) links no plugin that is not running")
        }
        let (notes, notesResponse) = try await URLSession.shared.data(from: URL(string: "/plugins/notes", relativeTo: base)!)
        #expect((notesResponse as? HTTPURLResponse)?.statusCode == 503)
        #expect(String(decoding: notes, as: UTF8.self).contains("The plugin notes is not running"))
        let plugin = try await Chromium.run(executable, ["--dump-dom", URL(string: "/plugins/notes", relativeTo: base)!.absoluteString], in: endpoints.directory)
        #expect(plugin.output.contains("The plugin notes is not running"))
        // The streams ask for their snapshots 3 s after the start (no heartbeat came): seeing them shows the presenter's
        // requests reach the silent upstreams, which by then have any request a page sent seconds before.
        #expect(await eventually(within: .seconds(20)) { silent.methods.contains("snapshot") }, "no snapshot request came")
        #expect(silent.methods.subtracting(["snapshot"]).isEmpty, "a waiting page asked an upstream: \(silent.methods.sorted())")
        await silent.close()

        // The pages open in two browsers (Chromium keeps six connections to a host, one each live page's), the
        // second dark and with reduced motion; each says what it waits for and has the id its script set at load.
        let light = try await DevToolsBrowser.launch(executable, ["--window-size=1280,900"], in: endpoints.directory)
        browsers.append(light)
        let dark = try await DevToolsBrowser.launch(
            executable, ["--window-size=1280,900", "--force-dark-mode", "--force-prefers-reduced-motion"], in: endpoints.directory)
        browsers.append(dark)
        var open: [(screen: Screen, browser: DevToolsBrowser, page: DevToolsBrowser.Page, id: String)] = []
        for (index, screen) in Self.screens.enumerated() {
            let browser = index < 5 ? light : dark
            let page = try await browser.open(URL(string: screen.path, relativeTo: base)!)
            var id = ""
            let loaded = await eventually(within: .seconds(20)) {
                // Until the page has loaded, the tab may hold no document yet.
                id = (try? await browser.string(page, "document.documentElement.getAttribute('data-page-id')")) ?? ""
                return !id.isEmpty
            }
            #expect(loaded, "\(screen.path) loaded its script")
            #expect(try await browser.string(page, "document.body.innerText").contains(screen.waiting), "\(screen.path) waits in the browser")
            open.append((screen, browser, page, id))
        }
        try Self.save(try await light.screenshot(open[0].page), screenshots, "waiting-coins-light")
        try Self.save(try await dark.screenshot(open[5].page), screenshots, "waiting-wallets-dark")

        // The coin list notes each coin row that eases in (a later update re-renders the row without the class).
        _ = try await light.string(open[0].page, """
            (window.entered = new Set(), new MutationObserver(function () {
              document.querySelectorAll('tr.coin-row.row-enter').forEach(function (row) { window.entered.add(row.getAttribute('data-asset')); });
            }).observe(document.querySelector('main'), { childList: true, subtree: true }), 1)
            """)

        services.append(try await ServiceProcess("rates-fetcher", endpoints.fetcherArguments + ["--feeds", "mock"], in: endpoints.directory))
        services.append(try await ServiceProcess("converter", endpoints.converterArguments, in: endpoints.directory))
        services.append(try await ServiceProcess("portfolio", endpoints.portfolioArguments, in: endpoints.directory))

        for entry in open {
            let expression = "!document.getElementById('waiting') && !document.getElementById('error') && "
                + "document.querySelector('main').innerHTML.indexOf(\(Self.javaScriptString(entry.screen.complete))) >= 0"
            let filled = try await eventually(within: .seconds(60)) { try await entry.browser.string(entry.page, expression) == "true" }
            let text = try await entry.browser.string(entry.page, "document.querySelector('main').innerText")
            #expect(filled, "\(entry.screen.path) filled in: \(text.prefix(600))")
            #expect(try await entry.browser.string(entry.page, "document.documentElement.getAttribute('data-page-id')") == entry.id,
                    "\(entry.screen.path) was not reloaded")
            #expect(Int(try await entry.browser.string(entry.page, "document.documentElement.getAttribute('data-live-updates')")) ?? 0 >= 1,
                    "\(entry.screen.path) was updated in place")
        }

        // The coin page, waiting when it loaded, has the scripts of its complete content.
        #expect(try await light.string(open[1].page, "!!document.querySelector('script[src=\"/static/chart-readout.js\"]')") == "true")
        #expect(try await light.string(open[1].page, "document.documentElement.getAttribute('data-live-updates')") != "0")

        // The coin rows that came with the data eased in; a coin added at run time arrives in the open page, and
        // leaves it when removed, without a reload.
        let coins = open[0], coin = open[1], portfolio = open[6]
        #expect(Int(try await light.string(coins.page, "window.entered.size")) ?? 0 >= 5, "the coin rows eased in")
        let fetcherRPC = try client(context, endpoints.fetcherRep)
        let dot = "document.querySelector('tr.coin-row[data-asset=\"DOT\"]')"
        #expect(try await fetcherRPC.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "DOT")).changed)
        #expect(try await eventually(within: .seconds(30)) { try await light.string(coins.page, "window.entered.has('DOT')") == "true" },
                "DOT's row arrived, easing in")
        #expect(try await fetcherRPC.call(RatesFetcherAPI.removeCoin, CoinRequest(coin: "DOT")).changed)
        #expect(try await eventually(within: .seconds(30)) { try await light.string(coins.page, "!\(dot)") == "true" }, "DOT's row left")
        #expect(try await light.string(coins.page, "document.documentElement.getAttribute('data-page-id')") == coins.id, "without a reload")
        await fetcherRPC.close()

        // A changed price flashes: with its animation in the light browser, none under reduced motion; so the chart.
        let flashed = "document.querySelector('.flash-up, .flash-down')"
        #expect(try await eventually(within: .seconds(60)) { try await light.string(coins.page, "!!\(flashed)") == "true" }, "a price flashed")
        let animation = try await light.string(coins.page, "getComputedStyle(\(flashed)).animationName")
        #expect(["flash-up", "flash-down"].contains(animation), "the flash is animated: \(animation)")
        #expect(try await light.string(coin.page, "getComputedStyle(document.querySelector('#price-chart .line')).animationName") == "draw-line")
        try Self.save(try await light.screenshot(coins.page), screenshots, "coins-light")
        try Self.save(try await light.screenshot(coin.page), screenshots, "coin-light")

        // A figure the page's update changed flashes too: a book's last price, when the page fetches itself again.
        let books = open[7]
        #expect(try await eventually(within: .seconds(40)) {
            try await dark.string(books.page, "(window.Tickwire.refresh(), !!document.querySelector('li.book .flash-up, li.book .flash-down'))") == "true"
        }, "a book's changed figure flashed after an update")

        let darkCoins = try await dark.open(URL(string: "/coins/ETH", relativeTo: base)!)
        try await dark.close(portfolio.page)
        let darkFlash = "document.querySelector('[data-price-for].flash-up, [data-price-for].flash-down')"
        #expect(try await eventually(within: .seconds(60)) { try await dark.string(darkCoins, "!!\(darkFlash)") == "true" },
                "a price flashed under reduced motion too")
        #expect(try await dark.string(darkCoins, "getComputedStyle(\(darkFlash)).animationName") == "none")
        #expect(try await dark.string(darkCoins, "getComputedStyle(document.querySelector('#price-chart .line')).animationName") == "none")
        for browser in [light, dark] { #expect(browser.errors.isEmpty, "\(browser.errors)") }
        try Self.save(try await dark.screenshot(darkCoins), screenshots, "coin-dark")
        try Self.save(try await dark.screenshot(open[5].page), screenshots, "wallets-dark")
    }

    private static func save(_ png: Data, _ directory: URL, _ name: String) throws {
        try png.write(to: directory.appendingPathComponent("\(name).png"))
    }

    /// `text` as a JavaScript string literal.
    private static func javaScriptString(_ text: String) -> String {
        String(decoding: try! JSONEncoder().encode(text), as: UTF8.self)
    }
}

/// Request endpoints with a listener that never answers (as an upstream that is down or hung) and notes the
/// method of each JSON-RPC request that comes.
private final class SilentUpstreams: Sendable {
    private final class Asked: Sendable {
        let methods = Mutex<Set<String>>([])
    }

    private let sockets: [OwnedSocket]
    private let readers: [Task<Void, Never>]
    private let asked: Asked

    init(_ context: ZMQContext, _ endpoints: [String]) throws {
        let sockets = try endpoints.map { endpoint in
            try OwnedSocket(context: context, type: .router, name: "silent-upstream") { try $0.bind(endpoint) }
        }
        let asked = Asked()
        readers = sockets.map { socket in
            Task {
                // A request: the peer's routing id, REQ's correlation id and delimiter, then the JSON body.
                for await frames in socket.incoming {
                    let request = frames.last.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }
                    let method = request?["method"] as? String ?? "(not JSON-RPC)"
                    asked.methods.withLock { _ = $0.insert(method) }
                }
            }
        }
        self.sockets = sockets
        self.asked = asked
    }

    /// The methods asked so far.
    var methods: Set<String> { asked.methods.withLock { $0 } }

    /// Closes the listeners (again is harmless), so the real services can bind their endpoints.
    func close() async {
        for socket in sockets { await socket.close() }
        for reader in readers { await reader.value }
    }
}
