import Foundation
import Hummingbird
import HummingbirdTesting
import Market
import Money
import PresenterViews
import Testing
import TickwireContract

@testable import PresenterCore

@Suite("Every screen complete in every currency, from mock upstreams (issue 21)")
struct CompletenessTests {
    /// Waits until the mock walks have moved every price (the recorded ones are years old), then runs `body`.
    private static func fresh(_ body: @escaping @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await InProcessPresenter.mocks().test { client in
            let settled = await poll {
                guard let response = try? await client.execute(uri: "/api/views/coins?currency=SEK", method: .get),
                      case .coins(let view)? = try? JSONDecoder().decode(ScreenView.self, from: Data(buffer: response.body)) else { return false }
                return view.notices.isEmpty
            }
            #expect(settled, "the mock prices are fresh")
            try await body(client)
        }
    }

    /// The view of `path` as JSON.
    private static func view(_ client: some TestClientProtocol, _ path: String) async throws -> ScreenView {
        let response = try await client.execute(uri: path, method: .get)
        #expect(response.status == .ok, "\(path): \(response.text.prefix(300))")
        return try JSONDecoder().decode(ScreenView.self, from: Data(buffer: response.body))
    }

    /// Every coin of the list has a 24 h change, and its detail a 30-day chart in the currency, market data and no notices.
    @Test(arguments: ["USD", "SEK"])
    func everyCoin(currency: String) async throws {
        try await Self.fresh { client in
            guard case .coins(let coins) = try await Self.view(client, "/api/views/coins?currency=\(currency)") else {
                Issue.record("not a coins view")
                return
            }
            #expect(coins.rows.count >= 5)
            #expect(coins.notices.isEmpty, "\(coins.notices)")
            for row in coins.rows {
                #expect(row.change24h != nil, "\(row.symbol) in \(currency) has a 24 h change")
                #expect(row.image == IconPath.light(row.symbol))
                guard case .coin(let coin) = try await Self.view(client, "/api/views/coin?symbol=\(row.symbol)&currency=\(currency)") else {
                    Issue.record("not a coin view")
                    continue
                }
                #expect(coin.notices.isEmpty, "\(row.symbol) in \(currency): \(coin.notices)")
                #expect(coin.chart?.currency == currency, "\(row.symbol) in \(currency) has a chart in it")
                #expect((coin.chart?.points.count ?? 0) >= 20, "\(row.symbol) in \(currency) has 20 points")
                #expect(coin.high24h != nil || coin.marketCap != nil || coin.ask != nil, "\(row.symbol) in \(currency) has market data")
                #expect(coin.change24h != nil)
                #expect(coin.tradePrices[currency] != nil, "\(row.symbol)'s trade form suggests a \(currency) price")
            }
        }
    }

    /// A history the source has in another currency is converted point by point at each day's ECB rate (the
    /// mock fetcher's walked daily rates), and the view says so; the market data's path is on hover.
    @Test func convertedHistoryIsNoted() async throws {
        try await Self.fresh { client in
            guard case .coin(let coin) = try await Self.view(client, "/api/views/coin?symbol=ETH&currency=SEK") else {
                Issue.record("not a coin view")
                return
            }
            let chartNote = coin.chartNote ?? "", marketNote = coin.marketNote ?? ""
            // A history in a fiat currency at each day's rate; one in a crypto asset (ETH's in BTC) at today's.
            let from = String(chartNote.dropFirst("Converted from ".count).prefix(3))
            if Currency.iso(from) != nil {
                // The mock's histories end now: today's points are at the current rate, as the prices are.
                #expect(chartNote == "Converted from \(from) at each day's ECB rate, today's at the current rate.", "\(chartNote)")
            } else {
                #expect(chartNote.hasPrefix("Converted from \(from) at today's rate (no daily rates: \(from) is not a currency with daily reference rates): "),
                        "\(chartNote)")
                #expect(chartNote.contains("→ SEK via"), "\(chartNote)")
            }
            #expect(marketNote.contains("→ SEK via"), "\(marketNote)")
            let page = try await client.execute(uri: "/coins/ETH?currency=SEK", method: .get)
            #expect(page.text.contains("id=\"chart-note\""))
            #expect(page.text.contains("<dl class=\"figures\" title=\""))
        }
    }

    /// The trade form suggests the coin's own price in the form's currency, not another coin's.
    @Test func tradeFormSuggestsTheCoinsPrice() async throws {
        try await Self.fresh { client in
            guard case .coin(let coin) = try await Self.view(client, "/api/views/coin?symbol=ETH&currency=USD"),
                  let usd = coin.tradePrices["USD"] else {
                Issue.record("no ETH price in USD")
                return
            }
            let page = try await client.execute(uri: "/coins/ETH?currency=USD", method: .get).text
            // The mock walk may move the price between the two requests: within a few percent is ETH's own price.
            let suggested = try #require(page.firstMatch(of: /name="price"[^>]*placeholder="([0-9.]+)"/).map { try ExactDecimal(String($0.1)) })
            let low = try usd * ExactDecimal("0.95"), high = try usd * ExactDecimal("1.05")
            #expect(low <= suggested && suggested <= high, "the price field suggests ETH's USD price, \(Pages.suggestion(usd)), not \(suggested)")
            #expect(!page.contains("70187.00"))
            #expect(page.contains("data-price="))
        }
    }

    /// Every icon is served by the presenter itself, light and dark; a bad name is a clear 404.
    @Test func iconsAreServedLocally() async throws {
        try await Self.fresh { client in
            for path in ["/coins", "/assets", "/wallets", "/coins/ETH"] {
                let page = try await client.execute(uri: path, method: .get).text
                #expect(!page.contains("src=\"http"), "\(path) points at no remote image")
                #expect(!page.contains("srcset=\"http"), "\(path) points at no remote image")
            }
            for path in ["/icons/BTC-light.svg", "/icons/BTC-dark.svg", "/icons/XAU-dark.svg", "/icons/NOSUCHCOIN-light.svg"] {
                let icon = try await client.execute(uri: path, method: .get)
                #expect(icon.status == .ok, "\(path)")
                #expect(icon.headers[.contentType] == "image/svg+xml")
                #expect(icon.text.hasPrefix("<svg"))
            }
            let light = try await client.execute(uri: "/icons/BTC-light.svg", method: .get).text
            let dark = try await client.execute(uri: "/icons/BTC-dark.svg", method: .get).text
            #expect(light != dark)
            let bad = try await client.execute(uri: "/icons/BTC-purple.svg", method: .get)
            #expect(bad.status == .notFound)
            #expect(bad.text.contains("light or"))
        }
    }
}

@Suite("Display rates, 24 h changes and icon names")
struct DisplayRateTests {
    private let rate = DisplayRate(from: "MXN", to: "USD", rate: try! ExactDecimal("0.05"), path: ["MXN", "EUR", "USD"], source: "ecb",
                                   asOf: Date(timeIntervalSince1970: 1_795_478_400))

    /// A figure is multiplied exactly and rounded half-even to 8 places; the path reads as words.
    @Test func convertsExactly() throws {
        #expect(try rate.convert(ExactDecimal("61234.50")) == ExactDecimal("3061.725"))
        #expect(try rate.convert(ExactDecimal("0.123456789")) == ExactDecimal("0.00617284"))
        #expect(rate.explanation == "MXN → EUR → USD via ECB rate of 2026-11-24")
        let quote = Quote(source: "bitso", market: MarketPair(base: "ETH", quote: "MXN"), last: try ExactDecimal("100"),
                          high: try ExactDecimal("110"), volume: try ExactDecimal("7"), ask: try ExactDecimal("101"))
        let converted = try rate.convert(quote)
        #expect(converted.market.quote == "USD")
        let high = try ExactDecimal("5.5"), ask = try ExactDecimal("5.05")
        #expect(converted.last == ExactDecimal(5) && converted.high == high && converted.ask == ask)
        #expect(converted.volume == ExactDecimal(7), "units traded are not money")
    }

    /// The 24 h change compares the last point with the newest one a day older; too short a history has none.
    @Test func changeFromHistory() throws {
        let start = Date(timeIntervalSince1970: 1_795_000_000)
        let points = [(0, "100"), (43_200, "104"), (86_400, "110"), (90_000, "112")].map {
            PricePoint(time: start.addingTimeInterval(TimeInterval($0.0)), price: try! ExactDecimal($0.1))
        }
        #expect(PriceHistory(asset: "ETH", currency: "USD", points: points).changePercent24h == ExactDecimal(12))
        #expect(PriceHistory(asset: "ETH", currency: "USD", points: Array(points.prefix(2))).changePercent24h == nil)
    }

    /// Icon names are `<SYMBOL>-<light|dark>.svg`; anything else is refused with the reason.
    @Test func iconNames() throws {
        #expect(try IconPath.parse("btc-dark.svg") == ("BTC", .dark))
        #expect(IconPath.light("eth") == "/icons/ETH-light.svg")
        #expect(throws: ViewError.self) { try IconPath.parse("BTC-light.gif") }
        #expect(throws: ViewError.self) { try IconPath.parse("BTC.svg") }
        #expect(throws: ViewError.self) { try IconPath.parse("../../x-light.svg") }
    }
}

@Suite("The icon store")
struct IconStoreTests {
    /// A fetched icon is asked for once, kept on disk, and the directory stays within its bound; a failed or
    /// non-image fetch gives the monogram.
    @Test func fetchesOnceAndKeepsWithinItsBound() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("icons-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let fetches = Counter()
        let svg = Data(("<svg xmlns=\"http://www.w3.org/2000/svg\">" + String(repeating: " ", count: 600) + "</svg>").utf8)
        let source = IconSource { url in
            await fetches.add()
            if url.lastPathComponent == "broken.svg" { return Data("<html>not found</html>".utf8) }
            return svg
        }
        let store = IconStore(source: source, directory: directory, maxBytes: 1_500)
        let first = await store.icon("BTC", variant: .light, remote: "https://example.org/btc.svg")
        let again = await store.icon("BTC", variant: .light, remote: "https://example.org/btc.svg")
        #expect(first == again && first.data == svg && first.contentType == "image/svg+xml")
        #expect(await fetches.value == 1)
        _ = await store.icon("ETH", variant: .light, remote: "https://example.org/eth.svg")
        _ = await store.icon("XRP", variant: .dark, remote: "https://example.org/xrp.svg")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        let total = try files.reduce(0) { $0 + (try FileManager.default.attributesOfItem(atPath: directory.appendingPathComponent($1).path)[.size] as? Int ?? 0) }
        #expect(total <= 1_500 && files.contains("XRP-dark.svg"), "\(files)")
        let broken = await store.icon("BAD", variant: .light, remote: "https://example.org/broken.svg")
        #expect(String(decoding: broken.data, as: UTF8.self).contains("BAD</text>"))
        let monogram = await IconStore().icon("EOS", variant: .dark, remote: "https://example.org/eos.svg")
        #expect(String(decoding: monogram.data, as: UTF8.self).hasPrefix("<svg"))
    }
}

/// Counts calls across tasks.
private actor Counter {
    private(set) var value = 0
    func add() { value += 1 }
}
