import Bus
import Feeds
import Foundation
import Market
import Money
@testable import RatesFetcherCore
@testable import RatesFetcherEngine
import Testing
import TickwireContract
import BusContract

/// CoinGecko's test client with `extra` coins listed too, each priced at `last` USD on a copy of the recorded market
/// of the coin `like` (the recordings have no coin with an odd symbol or a shared one).
private func coingecko(listing extra: [(coin: CoinGeckoCoin, like: String, last: ExactDecimal)]) -> CoinGeckoClient {
    CoinGeckoClient(
        markets: { ids, currency in
            var markets = try await CoinGeckoClient.test.markets(ids, currency)
            for (coin, like, last) in extra where ids.contains(coin.id) {
                var market = try #require(try await CoinGeckoClient.test.markets([like], currency).first)
                market.coin = CoinInfo(id: coin.id, symbol: coin.symbol.uppercased(), name: coin.name, image: market.coin.image)
                market.quote.market = MarketPair(base: coin.symbol, quote: currency)
                market.quote.last = last
                markets.append(market)
            }
            return markets
        },
        history: CoinGeckoClient.test.history,
        coinList: { try await CoinGeckoClient.test.coinList() + extra.map(\.coin) })
}

/// A coin list download that counts its calls and, until opened, holds them.
private actor Downloads {
    private(set) var count = 0
    private var open = false
    private var held: [CheckedContinuation<Void, Never>] = []

    func list() async throws -> [CoinGeckoCoin] {
        count += 1
        if !open { await withCheckedContinuation { held.append($0) } }
        return try await CoinGeckoClient.test.coinList()
    }

    func release() {
        open = true
        for continuation in held { continuation.resume() }
        held = []
    }
}

@Suite("Coins that cannot be tracked, and the coin list's downloads")
struct CoinListSafetyTests {
    /// A listed coin whose symbol has a `.` or a `+` (CoinGecko lists such) is refused by `coins.add`, naming the
    /// coin and its symbol; such coins already in a saved list start, are skipped by the polls, and the other coins
    /// are still published.
    @Test func symbolThatCannotKeyATopic() async throws {
        let folder = try stateDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        var environment = FetcherEnvironment.test
        environment.coingecko = coingecko(listing: [
            (CoinGeckoCoin(id: "bridged-usdc-e", symbol: "usdc.e", name: "Bridged USDC"), "tether", 1),
            (CoinGeckoCoin(id: "usd-plus", symbol: "usd+", name: "USD+"), "tether", 1),
            (CoinGeckoCoin(id: "a-b-token", symbol: "a-b", name: "A-B Token"), "tether", 1),
        ])
        let configuration = FetcherConfiguration(
            pub: "inproc://unused", rep: "inproc://unused", selection: FeedSelection(), coinIDs: ["bitcoin"], stateDirectory: folder.path)
        let fetcher = try Fetcher(coins: configuration.coinTracker(), environment: environment)

        for text in ["bridged-usdc-e", "usdc.e"] {
            let error = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: text)) }
            #expect(error?.code == RPCError.Code.invalidParams)
            #expect(error?.message
                == "invalid params: cannot track \"bridged-usdc-e\": its symbol \"USDC.E\" cannot key a topic, which takes letters, digits and _ only")
        }
        let plus = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "usd-plus")) }
        #expect(plus?.message.hasPrefix("invalid params: cannot track \"usd-plus\": its symbol \"USD+\"") == true)
        // A `-` is allowed in a topic component, but `quote.coingecko.A-B-USD` would not split into BASE-QUOTE.
        let dash = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "a-b-token")) }
        #expect(dash?.message.hasPrefix("invalid params: cannot track \"a-b-token\": its symbol \"A-B\"") == true)
        #expect(await fetcher.coins.ids == ["bitcoin"])
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("coins.json").path))

        // Saved by a rates-fetcher that did not check: it starts, and each poll publishes bitcoin and skips the others.
        try Data("""
            {"coins": [{"id": "bitcoin", "symbol": "BTC", "name": "Bitcoin"}, {"id": "bridged-usdc-e", "symbol": "USDC.E", "name": "Bridged USDC"},
                       {"id": "usd-plus", "symbol": "USD+", "name": "USD+"}]}
            """.utf8).write(to: folder.appendingPathComponent("coins.json"))
        let restarted = try Fetcher(coins: configuration.coinTracker(), environment: environment)
        for _ in 1...2 {
            await restarted.pollAll()
            #expect(try await restarted.rpc.call(RatesFetcherAPI.feeds).first { $0.feed == "coingecko" }?.state == .ok)
            #expect(restarted.bus.topics("quote.coingecko.") == ["quote.coingecko.BTC-USD"])
            #expect(restarted.bus.topics("coin.") == ["coin.coingecko.BTC"])
        }
        // It can still be removed.
        let removed = try await restarted.rpc.call(RatesFetcherAPI.removeCoin, CoinRequest(coin: "bridged-usdc-e"))
        #expect(removed.changed && removed.coins.map(\.id) == ["bitcoin", "usd-plus"])
    }

    /// A coin whose symbol a tracked coin has is refused, naming both; a list that holds both already (given by id)
    /// publishes the one tracked first on the symbol's topics, poll after poll.
    @Test func sharedSymbolIsRefused() async throws {
        var environment = FetcherEnvironment.test
        environment.coingecko = coingecko(listing: [(CoinGeckoCoin(id: "ethereum-wormhole", symbol: "eth", name: "Ethereum (Wormhole)"), "ethereum", 1)])
        let fetcher = try Fetcher(coins: CoinTracker(ids: []), environment: environment)
        _ = try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "ethereum"))

        let error = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "ethereum-wormhole")) }
        #expect(error?.code == RPCError.Code.invalidParams)
        #expect(error?.message == "invalid params: cannot track \"ethereum-wormhole\": \"ethereum\" is tracked with the same symbol ETH, "
            + "and topics are keyed by symbol (quote.coingecko.ETH-USD); remove \"ethereum\" first to track \"ethereum-wormhole\" instead")
        #expect(await fetcher.coins.ids == ["ethereum"])

        let both = try Fetcher(coins: CoinTracker(ids: ["ethereum", "ethereum-wormhole"]), environment: environment)
        let recorded = try #require(try await CoinGeckoClient.test.markets(["ethereum"], "usd").first)
        for _ in 1...2 {
            await both.pollAll()
            #expect(try both.bus.envelope("coin.coingecko.ETH", as: CoinInfo.self)?.data.id == "ethereum")
            #expect(try both.bus.envelope("quote.coingecko.ETH-USD", as: Quote.self)?.data.last == recorded.quote.last)
            #expect(both.bus.seq("quote.coingecko.ETH-USD") == 1)
        }
    }

    /// `coin` longer than 100 characters is an invalid-params error for both changes; 100 is looked up.
    @Test func coinTextIsCapped() async throws {
        let fetcher = try Fetcher(coins: CoinTracker(ids: ["bitcoin"]))
        let long = String(repeating: "a", count: 101)
        for method in [RatesFetcherAPI.addCoin, RatesFetcherAPI.removeCoin] {
            let error = await rpcError { try await fetcher.rpc.call(method, CoinRequest(coin: long)) }
            #expect(error?.code == RPCError.Code.invalidParams)
            #expect(error?.message == "invalid params: coin must be at most 100 characters (a CoinGecko id, symbol or name), got 101")
        }
        let hundred = String(repeating: "a", count: 100)
        let unknown = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: hundred)) }
        #expect(unknown?.message.hasPrefix("invalid params: unknown coin") == true)
        #expect(await fetcher.coins.ids == ["bitcoin"])
    }

    /// Callers that miss the cold cache at once share one download of the coin list.
    @Test func coldCatalogDownloadsOnce() async throws {
        let downloads = Downloads()
        var environment = FetcherEnvironment.test
        environment.coingecko.coinList = { try await downloads.list() }
        let fetcher = try Fetcher(coins: CoinTracker(ids: []), environment: environment)
        let rpc = fetcher.rpc
        try await withThrowingTaskGroup(of: String?.self) { group in
            for _ in 1...6 {
                group.addTask { try await rpc.call(RatesFetcherAPI.knownCoins, KnownCoinsRequest(query: "dot")).first?.id }
            }
            // The first download has begun; give the other callers time to miss the cache too, then let it finish.
            while await downloads.count == 0 { try await Task.sleep(for: .milliseconds(10)) }
            try await Task.sleep(for: .milliseconds(300))
            await downloads.release()
            for try await first in group { #expect(first == "polkadot") }
        }
        #expect(await downloads.count == 1)
        _ = try await rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "DOT"))
        #expect(await downloads.count == 1)
    }

    /// A failed download is not kept: the next call downloads again, and succeeds.
    @Test func failedDownloadIsRetried() async throws {
        let attempts = Downloads()
        await attempts.release()
        var environment = FetcherEnvironment.test
        environment.coingecko.coinList = {
            let list = try await attempts.list()
            guard await attempts.count > 1 else { throw FeedError.notInFixtures("no list the first time") }
            return list
        }
        let fetcher = try Fetcher(coins: CoinTracker(ids: []), environment: environment)
        let error = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "DOT")) }
        #expect(error?.code == RPCError.Code.unavailable)
        #expect(try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "DOT")).coin.id == "polkadot")
        #expect(await attempts.count == 2)
    }
}
