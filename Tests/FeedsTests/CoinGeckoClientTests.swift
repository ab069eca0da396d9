import AsyncHTTPClient
import Feeds
import Foundation
import Market
import Money
import Testing

@Suite struct CoinGeckoClientTests {
    /// The test client decodes the recorded bitcoin market data, every number exactly.
    @Test func testClientMarkets() async throws {
        let markets = try await CoinGeckoClient.test.markets(["bitcoin"], "usd")
        let bitcoin = try #require(markets.first)
        #expect(markets.count == 1)
        #expect(bitcoin.coin == CoinInfo(
            id: "bitcoin", symbol: "BTC", name: "Bitcoin",
            image: "https://assets.coingecko.com/coins/images/1/large/bitcoin.png?1696501400"
        ))
        let quote = bitcoin.quote
        #expect(quote.source == "coingecko")
        #expect(quote.market == MarketPair(base: "BTC", quote: "USD"))
        #expect(quote.last == 70187)
        #expect(quote.high == 70215)
        #expect(quote.low == 68060)
        #expect(quote.change24h == (try dec("2126.88")))
        #expect(quote.changePercent24h == (try dec("3.12502")))
        #expect(quote.marketCap == 1_381_651_251_183)
        #expect(quote.marketCapRank == 1)
        #expect(quote.quoteVolume == 20_154_184_933)
        #expect(quote.circulatingSupply == 19_675_987)
        #expect(quote.totalSupply == 21_000_000)
        #expect(quote.maxSupply == 21_000_000)
        #expect(quote.allTimeHigh == 73738)
        #expect(milliseconds(quote.time) == 1_712_508_571_736)

        #expect(try await CoinGeckoClient.test.markets(["litecoin"], "usd").isEmpty)
        let otherCurrency = await feedError { try await CoinGeckoClient.test.markets(["bitcoin"], "sek") }
        #expect(otherCurrency == .notInFixtures("coingecko prices in sek"))
    }

    /// The test history is the recording's last 30 days: 31 daily points, oldest first.
    @Test func testClientHistory() async throws {
        let history = try await CoinGeckoClient.test.history("bitcoin", "usd", 30)
        #expect(history.asset == "bitcoin")
        #expect(history.currency == "USD")
        #expect(history.points.count == 31)
        #expect(history.points.first == PricePoint(time: time(milliseconds: 1_690_329_600_000), price: try dec("29222.974630383527")))
        #expect(history.points.last == PricePoint(time: time(milliseconds: 1_692_921_595_000), price: try dec("26140.796452782302")))
    }

    /// The live client sends the ids and currency, and reads all 180 chart points exactly.
    @Test func liveClientMatchesFixtures() async throws {
        let expectedMarkets = try await CoinGeckoClient.test.markets(["bitcoin"], "usd")
        let expectedLastMonth = try await CoinGeckoClient.test.history("bitcoin", "usd", 30)
        let firstPrice = try dec("23541.115854493557")
        try await FakeAPI.serve([
            "/coins/markets?vs_currency=usd&ids=bitcoin": .fixture(.coinGeckoMarkets),
            "/coins/bitcoin/market_chart?vs_currency=usd&days=30": .fixture(.coinGeckoBitcoinChart),
        ]) { url in
            let live = CoinGeckoClient.live(http: .shared, baseURL: url)
            let markets = try await live.markets(["bitcoin"], "usd")
            let history = try await live.history("bitcoin", "usd", 30)
            #expect(markets == expectedMarkets)
            #expect(history.points.count == 180)
            #expect(history.points.first?.price == firstPrice)
            #expect(history.points.last?.time == time(milliseconds: 1_692_921_595_000))
            #expect(Array(history.points.suffix(31)) == expectedLastMonth.points)
        }
    }

    /// CoinGecko's two error bodies become errors with their messages.
    @Test func coinGeckoErrorBodies() async throws {
        let limited = #"{"status":{"error_code":429,"error_message":"You've exceeded the Rate Limit."}}"#
        try await FakeAPI.serve([
            "/coins/nocoin/market_chart?vs_currency=usd&days=30": .text(#"{"error":"coin not found"}"#, status: .notFound),
            "/coins/markets?vs_currency=usd&ids=bitcoin": .text(limited, status: .tooManyRequests),
        ]) { url in
            let live = CoinGeckoClient.live(http: .shared, baseURL: url)
            let notFound = await feedError { try await live.history("nocoin", "usd", 30) }
            #expect(notFound == .api(
                source: "coingecko", code: "error", message: "coin not found",
                url: "\(url.absoluteString)/coins/nocoin/market_chart?vs_currency=usd&days=30"
            ))
            let tooMany = await feedError { try await live.markets(["bitcoin"], "usd") }
            #expect(tooMany == .api(
                source: "coingecko", code: "429", message: "You've exceeded the Rate Limit.",
                url: "\(url.absoluteString)/coins/markets?vs_currency=usd&ids=bitcoin"
            ))
        }
    }

    /// The test client prices the top-17 recording's coins, bitcoin still at its newer 1-coin price, and lists them by rank.
    @Test func testClientTopCoinsAndList() async throws {
        let markets = try await CoinGeckoClient.test.markets(["bitcoin", "polkadot", "ethereum"], "usd")
        #expect(markets.map(\.coin.id) == ["bitcoin", "ethereum", "polkadot"])
        #expect(markets.first?.quote.last == 70187)
        let polkadot = try #require(markets.last)
        #expect(polkadot.coin == CoinInfo(
            id: "polkadot", symbol: "DOT", name: "Polkadot",
            image: "https://assets.coingecko.com/coins/images/12171/large/polkadot.png?1696512008"))
        #expect(polkadot.quote.last == (try dec("8.29")))
        #expect(polkadot.quote.marketCapRank == 12)
        #expect(try await CoinGeckoClient.test.markets([], "usd").count == 17)
        let list = try await CoinGeckoClient.test.coinList()
        #expect(list.count == 17)
        #expect(list.first == CoinGeckoCoin(id: "bitcoin", symbol: "btc", name: "Bitcoin"))
        #expect(list.last == CoinGeckoCoin(id: "wrapped-bitcoin", symbol: "wbtc", name: "Wrapped Bitcoin"))
        #expect(try await CoinGeckoClient.mock(seed: 1).coinList() == list)
    }

    /// The live client reads `/coins/list` as recorded: ids, symbols as listed, names.
    @Test func liveClientCoinList() async throws {
        try await FakeAPI.serve(["/coins/list": .fixture(.coinGeckoCoinList)]) { url in
            let list = try await CoinGeckoClient.live(http: .shared, baseURL: url).coinList()
            #expect(list.count == 40)
            #expect(list.first == CoinGeckoCoin(id: "01coin", symbol: "zoc", name: "01coin"))
            #expect(list.contains(CoinGeckoCoin(id: "12ships", symbol: "TSHP", name: "12Ships")))
            #expect(list.last == CoinGeckoCoin(id: "99masternodes", symbol: "nmn", name: "99Masternodes"))
        }
    }
}
