import BusContract
import Foundation
import Hummingbird
import HummingbirdTesting
import Market
import Money
import PresenterViews
import Testing
import TickwireClients
import TickwireMocks
import TickwireContract
@testable import PresenterCore

@Suite("A plugin's new coin on the Coins screen")
struct PluginCoinTests {
    /// Kucoin (a feed plugin) quotes ZIL in USD and describes it with no image; it also quotes NEWT, which it
    /// does not describe.
    private static func pluginMessages(image: String = "") throws -> [StreamUpdate<FetcherUpdate>] {
        let now = Date()
        func quote(_ base: String, _ last: String, change: String) throws -> StreamUpdate<FetcherUpdate> {
            let market = MarketPair(base: base, quote: "USD")
            let value = Quote(source: "kucoin", market: market, last: try ExactDecimal(last), changePercent24h: try ExactDecimal(change), time: now)
            return StreamUpdate(topic: try Topic("quote.kucoin.\(base)-USD"), seq: 1, time: now, source: "kucoin", value: .quote(value))
        }
        return [
            try quote("ZIL", "0.0123", change: "4.2"),
            try quote("NEWT", "2.5", change: "-1"),
            StreamUpdate(topic: try Topic("coin.kucoin.ZIL"), seq: 1, time: now, source: "kucoin",
                         value: .coin(CoinInfo(id: "zilliqa", symbol: "ZIL", name: "Zilliqa", image: image))),
            StreamUpdate(topic: try Topic("status.kucoin"), seq: 1, time: now, source: "kucoin",
                         value: .status(FeedStatus(feed: "kucoin", state: .live))),
        ]
    }

    /// The mock rates-fetcher with `plugin`'s messages in its snapshot, as the hub republishes a plugin's.
    private static func fetcher(with plugin: [StreamUpdate<FetcherUpdate>]) -> RatesFetcherClient {
        let mock = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        var fetcher = mock
        fetcher.updates = { kinds in
            let events = mock.updates(kinds)
            let extra = plugin.filter { kinds.contains($0.value.kind) }
            return .each {
                AsyncStream { continuation in
                    let task = Task {
                        for await event in events {
                            if case .snapshot(let updates) = event {
                                continuation.yield(.snapshot(updates + extra))
                            } else {
                                continuation.yield(event)
                            }
                        }
                        continuation.finish()
                    }
                    continuation.onTermination = { _ in task.cancel() }
                }
            }
        }
        return fetcher
    }

    static func presenter(image: String = "", icons: IconStore = IconStore()) throws -> InProcessPresenter {
        let fetcher = fetcher(with: try pluginMessages(image: image))
        let converter = ConverterClient.mock(fetcher: fetcher)
        return try InProcessPresenter(
            portfolio: .mock(fetcher: fetcher, converter: converter), converter: converter, fetcher: fetcher, icons: icons)
    }

    /// The coins view of `currency` once the plugin's ZIL is priced in it.
    static func coins(_ client: some TestClientProtocol, currency: String) async throws -> CoinsView? {
        var view: CoinsView?
        _ = await poll {
            guard let response = try? await client.execute(uri: "/api/views/coins?currency=\(currency)", method: .get),
                  case .coins(let coins)? = try? JSONDecoder().decode(ScreenView.self, from: Data(buffer: response.body)) else { return false }
            view = coins
            return coins.rows.contains { $0.symbol == "ZIL" && $0.price != nil }
        }
        return view
    }

    /// The plugin's ZIL is listed in USD and SEK with the name from its `coin` message and the presenter's icon;
    /// NEWT, which no `coin` message names, by its symbol. Neither can be removed (only CoinGecko's coins are
    /// rates-fetcher's to remove), and the icon is a monogram the presenter draws.
    @Test func listedWithNameAndMonogram() async throws {
        try await Self.presenter().test { client in
            let usd = try #require(try await Self.coins(client, currency: "USD"))
            let zil = try #require(usd.rows.first { $0.symbol == "ZIL" })
            #expect(zil.name == "Zilliqa")
            #expect(zil.image == "/icons/ZIL-light.svg")
            #expect(zil.priceText == "$0.0123")
            #expect(zil.change24h?.text == "+4.20%")
            #expect(zil.tracked == false)
            let newt = try #require(usd.rows.first { $0.symbol == "NEWT" })
            #expect(newt.name == "NEWT")
            #expect(newt.priceText == "$2.50")
            #expect(newt.tracked == false)
            #expect(usd.rows.contains { $0.tracked == true }, "the mock's CoinGecko coins stay removable")

            let sek = try #require(try await Self.coins(client, currency: "SEK"))
            let zilSEK = try #require(sek.rows.first { $0.symbol == "ZIL" }?.price)
            #expect(zilSEK.currency == "SEK")
            #expect(sek.rows.first { $0.symbol == "NEWT" }?.price != nil)

            let page = try await client.execute(uri: "/coins", method: .get).text
            #expect(page.contains("Zilliqa"))
            #expect(page.contains("/icons/ZIL-light.svg") && page.contains("/icons/ZIL-dark.svg"))
            #expect(!page.contains("/coins/ZIL/remove") && !page.contains("/coins/NEWT/remove"))

            let light = try await client.execute(uri: "/icons/ZIL-light.svg", method: .get)
            #expect(light.status == .ok)
            #expect(light.headers[.contentType] == "image/svg+xml")
            #expect(light.headers[.cacheControl] == "public, max-age=300", "a monogram is asked for again soon")
            #expect(light.text.hasPrefix("<svg") && light.text.contains(">ZIL</text>"))
            #expect(light.text.contains(Monogram.colours("ZIL", variant: .light).fill.hex))
            let dark = try await client.execute(uri: "/icons/ZIL-dark.svg", method: .get).text
            #expect(dark.contains(Monogram.colours("ZIL", variant: .dark).fill.hex))
            #expect(dark != light.text)
            let newtIcon = try await client.execute(uri: "/icons/NEWT-light.svg", method: .get).text
            #expect(newtIcon.contains(">NE</text>"))

            // Its own page: the name, the icon, the price and the plugin's market data.
            let detail = try await client.execute(uri: "/api/views/coin?symbol=ZIL&currency=USD", method: .get)
            #expect(detail.status == .ok, "\(detail.text.prefix(300))")
            guard case .coin(let coin) = try JSONDecoder().decode(ScreenView.self, from: Data(buffer: detail.body)) else {
                Issue.record("not a coin view")
                return
            }
            #expect(coin.name == "Zilliqa" && coin.image == "/icons/ZIL-light.svg")
            #expect(coin.priceText == "$0.0123")
            #expect(coin.change24h?.text == "+4.20%")
            #expect(coin.tradePrices["USD"] == (try ExactDecimal("0.0123")))
            #expect(try await client.execute(uri: "/coins/ZIL", method: .get).text.contains("Zilliqa"))
        }
    }
}

@Suite("A plugin's coin image")
struct PluginCoinImageTests {
    /// The presenter never fetches the `image` a plugin's coin names (an address inside the presenter's network,
    /// or any other): the plugin's coin gets the monogram, and the icon source is not asked.
    @Test(arguments: ["http://169.254.169.254/latest/meta-data/zil.svg", "https://example.org/zil.svg"])
    func aPluginsImageIsNeverFetched(image: String) async throws {
        let asked = Asked()
        let svg = Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>".utf8)
        let icons = IconStore(source: IconSource { url in
            await asked.add(url.absoluteString)
            return svg
        })
        try await PluginCoinTests.presenter(image: image, icons: icons).test { client in
            _ = try #require(try await PluginCoinTests.coins(client, currency: "USD"))
            let light = try await client.execute(uri: "/icons/ZIL-light.svg", method: .get)
            #expect(light.status == .ok)
            #expect(light.text.contains(">ZIL</text>"), "a monogram: \(light.text.prefix(120))")
            #expect(light.headers[.cacheControl] == "public, max-age=300")
        }
        let urls = await asked.urls
        #expect(urls.isEmpty, "asked for \(urls)")
    }

    /// The icon store itself fetches only an https URL: an http one (CoinGecko's CDN is https) stays a monogram.
    @Test func onlyHTTPSIsFetched() async throws {
        let asked = Asked()
        let store = IconStore(source: IconSource { url in
            await asked.add(url.absoluteString)
            return Data("<svg/>".utf8)
        })
        #expect(await store.icon("ZIL", variant: .light, remote: "http://127.0.0.1:8080/zil.svg").isMonogram)
        #expect(await store.icon("ZIL", variant: .light, remote: "file:///etc/passwd").isMonogram)
        #expect(await asked.urls.isEmpty)
        #expect(await !store.icon("ZIL", variant: .light, remote: "https://assets.coingecko.com/coins/images/1/large/zil.svg").isMonogram)
        #expect(await asked.urls == ["https://assets.coingecko.com/coins/images/1/large/zil.svg"])
    }
}

@Suite("Monograms")
struct MonogramTests {
    /// Symbols enough to meet every hue's worst case.
    private static let symbols = (0..<720).map { "C\($0)" } + ["BTC", "ETH", "ZIL", "DOGE", "USDT", "XAU", "A", "SHIB2", "YELLOW"]

    /// On either background the letters have at least WCAG's 4.5:1 against the disc: white on a dark disc for
    /// light pages, dark on a light disc for dark pages (so the disc stands out from a dark page as much).
    @Test func lettersReadOnEveryDisc() {
        for symbol in Self.symbols {
            let light = Monogram.colours(symbol, variant: .light)
            #expect(light.fill.contrast(with: light.text) >= 4.5, "\(symbol) light: \(light.fill.hex)")
            #expect(light.fill.contrast(with: Monogram.RGB(red: 255, green: 255, blue: 255)) >= 4.5, "\(symbol) on a white page")
            let dark = Monogram.colours(symbol, variant: .dark)
            #expect(dark.fill.contrast(with: dark.text) >= 4.5, "\(symbol) dark: \(dark.fill.hex)")
        }
    }

    /// A symbol always gets its colour; symbols differ in colour; the hues are spread.
    @Test func colourComesFromTheSymbol() {
        #expect(Monogram.svg("ZIL", variant: .light) == Monogram.svg("ZIL", variant: .light))
        #expect(Monogram.colours("ZIL", variant: .light) != Monogram.colours("ZIM", variant: .light))
        let fills = Set(Self.symbols.map { Monogram.colours($0, variant: .light).fill.hex })
        #expect(fills.count > 100, "\(fills.count) colours")
    }

    /// Up to three characters show whole, longer symbols their first two; the text is escaped.
    @Test func lettersAndEscaping() {
        #expect(Monogram.letters(of: "ZIL") == "ZIL")
        #expect(Monogram.letters(of: "DOGE") == "DO")
        #expect(Monogram.letters(of: "A") == "A")
        let svg = Monogram.svg("A&<", variant: .dark)
        #expect(svg.contains(">A&amp;&lt;</text>") && svg.contains("aria-label=\"A&amp;&lt;\""))
        #expect(!svg.contains("A&<"))
        #expect(svg.contains("fill=\"#10151c\""))
        #expect(Monogram.svg("ZIL", variant: .light).contains("fill=\"#ffffff\""))
        #expect(Monogram.RGB(hue: 0, saturation: 1, lightness: 0.5).hex == "#ff0000")
        #expect(Monogram.RGB(hue: 120, saturation: 1, lightness: 0.25).hex == "#008000")
    }

    /// An icon with no remote (a plugin's empty `image`) is a monogram that is not remembered: once a remote is
    /// known, the real icon is fetched. A remote that failed is not asked again; another one is.
    @Test func monogramUntilARealIconIsKnown() async throws {
        let asked = Asked()
        let svg = Data("<svg xmlns=\"http://www.w3.org/2000/svg\"><rect/></svg>".utf8)
        let store = IconStore(source: IconSource { url in
            await asked.add(url.absoluteString)
            if url.lastPathComponent == "down.svg" { throw IconStoreError.notFetched(url.absoluteString) }
            return svg
        })
        let none = await store.icon("ZIL", variant: .light, remote: nil)
        let empty = await store.icon("ZIL", variant: .light, remote: "")
        #expect(none.isMonogram && empty.isMonogram && none == empty)
        #expect(await asked.urls.isEmpty)
        let down = await store.icon("ZIL", variant: .light, remote: "https://example.org/down.svg")
        #expect(down.isMonogram)
        _ = await store.icon("ZIL", variant: .light, remote: "https://example.org/down.svg")
        #expect(await asked.urls == ["https://example.org/down.svg"], "a failed remote is asked once")
        let real = await store.icon("ZIL", variant: .light, remote: "https://example.org/zil.svg")
        #expect(!real.isMonogram && real.data == svg)
        #expect(await store.icon("ZIL", variant: .light, remote: nil) == real, "kept once fetched")
    }
}

@Suite("The coin directory")
struct CoinDirectoryTests {
    /// CoinGecko's description of a coin wins over a plugin's; a plugin's names its own asset; only CoinGecko's
    /// coins are tracked; a retraction takes away only its feed's description.
    @Test func coingeckoFirstAndPluginsBeside() {
        var directory = CoinDirectory()
        directory.set(CoinInfo(id: "zilliqa", symbol: "ZIL", name: "Zilliqa", image: ""), feed: "kucoin")
        directory.set(CoinInfo(id: "btc", symbol: "BTC", name: "Bitcoin on Kucoin", image: ""), feed: "kucoin")
        directory.set(CoinInfo(id: "bitcoin", symbol: "btc", name: "Bitcoin", image: "https://example.org/btc.png"), feed: "coingecko")
        #expect(directory["zil"]?.name == "Zilliqa")
        #expect(directory["BTC"]?.name == "Bitcoin")
        #expect(directory.tracked == ["BTC"])
        #expect(directory.symbols == ["BTC", "ZIL"])
        directory.remove(symbol: "BTC", feed: "coingecko")
        #expect(directory["BTC"]?.name == "Bitcoin on Kucoin")
        #expect(directory.tracked.isEmpty)
        directory.remove(symbol: "ZIL", feed: "kucoin")
        #expect(directory["ZIL"] == nil)
        #expect(directory.symbols == ["BTC"])
    }
}

/// The URLs an icon source was asked for, in order.
private actor Asked {
    private(set) var urls: [String] = []
    func add(_ url: String) { urls.append(url) }
}
