import Bus
import Feeds
import Foundation
import Market
import RatesFetcherEngine
import TickwireContract
import Money
import Testing

@Suite("Feed jobs")
struct FeedJobsTests {
    private func topics(_ feed: BuiltInFeed, coinIDs: [String] = ["bitcoin"]) async throws -> [String] {
        try await feed.poll(.test, FeedJobContext(coinIDs: coinIDs))().map(\.topic.rawValue)
    }

    /// Bitso publishes each book's limits and each book's quote.
    @Test func bitso() async throws {
        let topics = try await topics(.bitso)
        #expect(topics == [
            "limits.bitso.btc_mxn", "limits.bitso.eth_mxn", "limits.bitso.xrp_btc", "limits.bitso.xrp_mxn", "limits.bitso.eth_btc", "limits.bitso.bch_btc",
            "quote.bitso.BTC-MXN", "quote.bitso.ETH-MXN", "quote.bitso.XRP-BTC", "quote.bitso.XRP-MXN", "quote.bitso.ETH-BTC", "quote.bitso.BCH-BTC",
        ])
    }

    /// WazirX publishes one quote per INR market.
    @Test func wazirx() async throws {
        #expect(try await topics(.wazirx) == ["quote.wazirx.BTC-INR", "quote.wazirx.XRP-INR", "quote.wazirx.TRX-INR", "quote.wazirx.EOS-INR"])
    }

    /// The fiat fixture (ECB rates from USD) publishes `rate.ecb.USD-<TO>` for each of its 30 currencies, no inverses.
    @Test func fiat() async throws {
        let topics = try await topics(.fiat)
        #expect(topics.count == 30)
        #expect(topics.contains("rate.ecb.USD-EUR"))
        #expect(topics.contains("rate.ecb.USD-SEK"))
        #expect(topics.contains("rate.ecb.USD-MXN"))
        #expect(topics.allSatisfy { $0.hasPrefix("rate.ecb.USD-") })
        #expect(topics == topics.sorted())
    }

    /// CoinGecko publishes a USD quote and the coin's identity for each requested coin it has.
    @Test func coingecko() async throws {
        #expect(try await topics(.coingecko) == ["quote.coingecko.BTC-USD", "coin.coingecko.BTC"])
        #expect(try await topics(.coingecko, coinIDs: ["litecoin"]).isEmpty)
    }

    /// A coin whose symbol is not one topic component (`.`, `+`), or whose symbol an earlier coin has, is handed to
    /// `skip` with why; the other coins are published.
    @Test func coingeckoSkipsWhatItCannotPublish() async throws {
        let recorded = try await CoinGeckoClient.test.markets(["bitcoin", "ethereum"], "usd")
        #expect(recorded.map(\.coin.id) == ["bitcoin", "ethereum"])
        func copy(_ market: CoinMarket, id: String, symbol: String) -> CoinMarket {
            var copy = market
            copy.coin.id = id
            copy.coin.symbol = symbol
            copy.quote.market = MarketPair(base: symbol, quote: "USD")
            return copy
        }
        let odd = [copy(recorded[1], id: "bridged-usdc-e", symbol: "USDC.E"), copy(recorded[1], id: "usd-plus", symbol: "USD+"),
                   copy(recorded[0], id: "batcat", symbol: "BTC")]
        var skipped: [String] = []
        let publications = FeedJobs.coingecko(recorded + odd) { market, reason in skipped.append("\(market.coin.id): \(reason)") }
        #expect(publications.map(\.topic.rawValue) == [
            "quote.coingecko.BTC-USD", "coin.coingecko.BTC", "quote.coingecko.ETH-USD", "coin.coingecko.ETH"])
        #expect(skipped == [
            "bridged-usdc-e: its symbol \"USDC.E\" cannot form a topic: invalid topic \"coin.coingecko.USDC.E\": expected kind.source.KEY of letters, digits, - and _",
            "usd-plus: its symbol \"USD+\" cannot form a topic: invalid topic \"coin.coingecko.USD+\": expected kind.source.KEY of letters, digits, - and _",
            "batcat: \"bitcoin\" has the same symbol BTC, and topics are keyed by symbol",
        ])
    }

    /// GNB publishes its four rates as given and all transactions on one topic.
    @Test func gnb() async throws {
        #expect(try await topics(.gnb) == ["rate.gnb.EUR-USD", "rate.gnb.CAD-EUR", "rate.gnb.USD-EUR", "rate.gnb.EUR-CAD", "transactions.gnb"])
    }

    /// Masterdata publishes the assets and the wallets.
    @Test func masterdata() async throws {
        #expect(try await topics(.masterdata) == ["assets.masterdata", "wallets.masterdata"])
    }

    /// Published, each topic carries the fixture's values, and an unchanged value is not sent again.
    @Test func publicationsCarryTheValues() async throws {
        let bus = try TestPublisher()
        for feed in BuiltInFeed.all {
            for publication in try await feed.poll(.test, FeedJobContext(coinIDs: ["bitcoin"]))() { try publication.publish(with: bus.publisher) }
        }
        #expect(bus.topics().count == 55)  // 12 bitso, 4 wazirx, 30 fiat, 2 coingecko, 5 gnb, 2 masterdata

        let rate = try #require(try bus.envelope("rate.gnb.EUR-USD", as: ExchangeRate.self))
        #expect(rate.data == ExchangeRate(from: "EUR", to: "USD", rate: try ExactDecimal("1.359")))
        #expect(rate.source == "gnb")
        #expect(rate.type == "rate")
        let sek = try #require(try bus.envelope("rate.ecb.USD-SEK", as: ExchangeRate.self))
        #expect(sek.data.rate == (try ExactDecimal("9.3295")))
        #expect(sek.source == "ecb")
        let btc = try #require(try bus.envelope("quote.coingecko.BTC-USD", as: Quote.self))
        #expect(btc.data.last == 70187)
        #expect(btc.data.source == "coingecko")
        #expect(try bus.envelope("coin.coingecko.BTC", as: CoinInfo.self)?.data.id == "bitcoin")
        let transactions = try #require(try bus.envelope("transactions.gnb", as: [GNBTransaction].self))
        #expect(transactions.data.count == 5)
        #expect(transactions.data.filter { $0.sku == "T2006" }.count == 2)
        #expect(try bus.envelope("wallets.masterdata", as: [Wallet].self)?.data.count == 52)
        #expect(try bus.envelope("limits.bitso.btc_mxn", as: BookInfo.self)?.data.market == MarketPair(base: "BTC", quote: "MXN"))

        for publication in try await BuiltInFeed.gnb.poll(.test)() { try publication.publish(with: bus.publisher) }
        #expect(bus.seq("rate.gnb.EUR-USD") == 1)
        #expect(bus.seq("transactions.gnb") == 1)
        await bus.close()
    }

    /// Run as a plugin (`tickwire-feed bitso --name bitso2`), a definition publishes every topic and quote under the
    /// plugin's name, and only what a hub's ingest takes: GNB's rates without its transactions, fiat's under the name
    /// instead of ecb.
    @Test func asAPluginEverythingIsUnderItsName() async throws {
        let bitso = try await BuiltInFeed.bitso.poll(.test, FeedJobContext(pluginName: "bitso2"))()
        #expect(bitso.count == 12 && bitso.allSatisfy { $0.topic.source == "bitso2" })
        let envelope = try bitso.first { $0.topic.rawValue == "quote.bitso2.BTC-MXN" }.map {
            try BusMessage(topic: $0.topic.rawValue, body: $0.envelope(seq: 1, time: Date(), source: "bitso2")).decode(Quote.self)
        }
        #expect(envelope?.data.source == "bitso2")
        let gnb = try await BuiltInFeed.gnb.poll(.test, FeedJobContext(pluginName: "bank"))().map(\.topic.rawValue)
        #expect(gnb.count == 4 && gnb.allSatisfy { $0.hasPrefix("rate.bank.") })
        let fiat = try await BuiltInFeed.fiat.poll(.test, FeedJobContext(pluginName: "rates"))().map(\.topic.rawValue)
        #expect(fiat.count == 30 && fiat.allSatisfy { $0.hasPrefix("rate.rates.") })
        let coins = try await BuiltInFeed.coingecko.poll(.test, FeedJobContext(pluginName: "cg", coinIDs: ["bitcoin"]))().map(\.topic.rawValue)
        #expect(coins == ["quote.cg.BTC-USD", "coin.cg.BTC"])
        #expect(BuiltInFeed.all.filter { !$0.feedsAHub }.map(\.name) == ["masterdata"])
    }

    /// No plugin may take a built-in feed's name or a source one publishes under.
    @Test func reservedNames() {
        #expect(BuiltInFeed.reservedNames == ["bitso", "wazirx", "fiat", "ecb", "fixer", "coingecko", "gnb", "masterdata"])
        #expect(BuiltInFeed.named("fiat")?.livePeriod == .seconds(300))
        #expect(BuiltInFeed.named("kraken") == nil)
    }

    /// Run as a plugin without `--name`, a feed publishes under the source its values carry: fiat as `ecb`, the
    /// converter's fiat source (under `fiat` a replayed stack would have no fiat rates), every other under its name.
    @Test func defaultPluginNames() {
        #expect(BuiltInFeed.fiat.defaultPluginName == "ecb")
        #expect(BuiltInFeed.all.filter { $0.name != "fiat" }.allSatisfy { $0.defaultPluginName == $0.name })
    }

    /// A failing client makes the whole job throw: nothing half-published.
    @Test func failingClientFailsTheJob() async throws {
        var environment = FetcherEnvironment.test
        environment.bitso.tickers = { throw FeedError.notInFixtures("tickers down") }
        await #expect(throws: FeedError.self) { try await BuiltInFeed.bitso.poll(environment)() }
    }
}
