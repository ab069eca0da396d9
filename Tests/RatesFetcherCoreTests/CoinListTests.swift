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

/// A fresh temporary state directory.
func stateDirectory() throws -> URL {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-coins-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    return folder
}

/// rates-fetcher's methods over the test feeds, in process: its engine (runners, coin list) and its publisher.
struct Fetcher {
    let bus: TestPublisher
    let coins: CoinTracker
    let engine: FetcherEngine
    let rpc: LocalRPC

    init(coins: CoinTracker, environment: FetcherEnvironment = .test) throws {
        let bus = try TestPublisher()
        self.bus = bus
        self.coins = coins
        engine = RatesFetcher.engine(environment: environment, selection: .hourly, coins: coins, publisher: bus.publisher, logger: quietLogger)
        rpc = LocalRPC(RatesFetcher.methods(engine: engine, standard: RPCMethods()))
    }

    /// Polls every feed once.
    func pollAll() async {
        for runner in engine.runners { await runner.poll() }
    }
}

extension FeedSelection {
    /// Every feed polled once an hour (tests poll by hand).
    static var hourly: FeedSelection {
        FeedSelection(periods: Dictionary(uniqueKeysWithValues: BuiltInFeed.all.map { ($0.name, Duration.seconds(3600)) }))
    }
}

/// The JSON-RPC error a call failed with.
func rpcError(_ body: () async throws -> some Any) async -> RPCError? {
    do {
        _ = try await body()
        return nil
    } catch {
        return error as? RPCError
    }
}

@Suite("Coins added and removed at run time")
struct CoinListTests {
    /// `coins.add` by symbol validates against the coin list, tracks the coin's id and prices it at once.
    @Test func addBySymbolPricesAtOnce() async throws {
        let fetcher = try Fetcher(coins: CoinTracker(ids: ["bitcoin"]))
        await fetcher.pollAll()
        #expect(fetcher.bus.topics("quote.coingecko.") == ["quote.coingecko.BTC-USD"])

        let change = try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "DOT"))
        #expect(change.coin == KnownCoin(id: "polkadot", symbol: "DOT", name: "Polkadot"))
        #expect(change.changed)
        #expect(change.coins.map(\.id) == ["bitcoin", "polkadot"])
        #expect(fetcher.bus.topics("quote.coingecko.") == ["quote.coingecko.BTC-USD", "quote.coingecko.DOT-USD"])
        #expect(try fetcher.bus.envelope("quote.coingecko.DOT-USD", as: Quote.self)?.data.last == (try ExactDecimal("8.29")))
        #expect(try fetcher.bus.envelope("coin.coingecko.DOT", as: CoinInfo.self)?.data.id == "polkadot")

        // By name or id, again: nothing changes, and it says so.
        let again = try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "polkadot"))
        #expect(!again.changed && again.coins.count == 2)
        #expect(try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: " Cardano ")).coin.id == "cardano")
        // The first poll learned bitcoin's symbol and name, which --coins did not give.
        #expect(try await fetcher.rpc.call(RatesFetcherAPI.listCoins).first == KnownCoin(id: "bitcoin", symbol: "BTC", name: "Bitcoin"))
    }

    /// A coin CoinGecko does not list is a JSON-RPC invalid-params error naming it; the list is unchanged.
    @Test func unknownCoinIsAnError() async throws {
        let fetcher = try Fetcher(coins: CoinTracker(ids: ["bitcoin"]))
        let error = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "foo")) }
        #expect(error?.code == RPCError.Code.invalidParams)
        #expect(error?.message == "invalid params: unknown coin \"foo\": CoinGecko lists no coin with that id, symbol or name")
        let empty = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: " ")) }
        #expect(empty?.code == RPCError.Code.invalidParams)
        let removeUnknown = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.removeCoin, CoinRequest(coin: "foo")) }
        #expect(removeUnknown?.message.contains("unknown coin \"foo\"") == true)
        #expect(await fetcher.coins.ids == ["bitcoin"])
    }

    /// `coins.remove` stops the polls and retracts CoinGecko's quote and coin topics; Bitso's BTC quote stays.
    @Test func removeRetractsCoinGeckoTopics() async throws {
        let fetcher = try Fetcher(coins: CoinTracker(ids: ["bitcoin", "ethereum"]))
        await fetcher.pollAll()
        #expect(fetcher.bus.topics("coin.") == ["coin.coingecko.BTC", "coin.coingecko.ETH"])
        let seq = try #require(fetcher.bus.seq("quote.coingecko.BTC-USD"))

        let change = try await fetcher.rpc.call(RatesFetcherAPI.removeCoin, CoinRequest(coin: "btc"))
        #expect(change.changed && change.coin.id == "bitcoin" && change.coins.map(\.id) == ["ethereum"])
        #expect(fetcher.bus.topics("coin.") == ["coin.coingecko.ETH"])
        #expect(fetcher.bus.topics("quote.coingecko.") == ["quote.coingecko.ETH-USD"])
        #expect(fetcher.bus.topics("quote.bitso.").contains("quote.bitso.BTC-MXN"))

        // Polled again, it stays away; removed again, nothing changes.
        await fetcher.pollAll()
        #expect(fetcher.bus.topics("quote.coingecko.") == ["quote.coingecko.ETH-USD"])
        #expect(try await !fetcher.rpc.call(RatesFetcherAPI.removeCoin, CoinRequest(coin: "bitcoin")).changed)
        // Added back, it is published again, numbered after its retraction.
        _ = try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "bitcoin"))
        #expect(fetcher.bus.seq("quote.coingecko.BTC-USD") == seq + 2)
    }

    /// A coin given by id (`--coins`) and not polled yet is removed by its symbol too, through CoinGecko's list.
    @Test func removeBySymbolBeforeTheFirstPoll() async throws {
        let fetcher = try Fetcher(coins: CoinTracker(ids: ["bitcoin", "polkadot"]))
        #expect(await fetcher.coins.coins.last == KnownCoin(id: "polkadot"))
        let change = try await fetcher.rpc.call(RatesFetcherAPI.removeCoin, CoinRequest(coin: "DOT"))
        #expect(change.changed && change.coin.id == "polkadot" && change.coins.map(\.id) == ["bitcoin"])
    }

    /// The list is saved on each change and read back by a new tracker on the same file: a restart keeps it.
    @Test func listSurvivesARestart() async throws {
        let folder = try stateDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = FetcherConfiguration(
            pub: "inproc://unused", rep: "inproc://unused", selection: FeedSelection(), coinIDs: ["bitcoin"], stateDirectory: folder.path)
        let first = try Fetcher(coins: configuration.coinTracker())
        #expect(await first.coins.ids == ["bitcoin"])
        // A poll alone writes nothing: until a coin is added or removed, --coins stays the list to start from.
        await first.pollAll()
        #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("coins.json").path))
        _ = try await first.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "DOT"))
        _ = try await first.rpc.call(RatesFetcherAPI.removeCoin, CoinRequest(coin: "bitcoin"))

        let restarted = try Fetcher(coins: configuration.coinTracker())
        #expect(await restarted.coins.coins == [KnownCoin(id: "polkadot", symbol: "DOT", name: "Polkadot")])
        await restarted.pollAll()
        #expect(restarted.bus.topics("quote.coingecko.") == ["quote.coingecko.DOT-USD"])
        let saved = try String(contentsOf: folder.appendingPathComponent("coins.json"), encoding: .utf8)
        #expect(saved.contains("\"id\" : \"polkadot\""))
    }

    /// A saved list that is not a list of coins stops the start, naming the file; it is not overwritten.
    @Test func corruptFileIsAStartUpError() throws {
        let folder = try stateDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("coins.json")
        try Data("{\"coins\": [1, 2".utf8).write(to: file)
        let configuration = FetcherConfiguration(
            pub: "inproc://unused", rep: "inproc://unused", selection: FeedSelection(), stateDirectory: folder.path)
        #expect { _ = try configuration.coinTracker() } throws: { error in
            "\(error)".hasPrefix("the coin list \(file.path) is not a list of coins")
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "{\"coins\": [1, 2")
    }

    /// `coins.known` suggests by symbol, then prefix, then substring; without a query, CoinGecko's top coins.
    @Test func knownCoins() async throws {
        let fetcher = try Fetcher(coins: CoinTracker(ids: []))
        let dot = try await fetcher.rpc.call(RatesFetcherAPI.knownCoins, KnownCoinsRequest(query: "dot"))
        #expect(dot.first == KnownCoin(id: "polkadot", symbol: "DOT", name: "Polkadot"))
        let bit = try await fetcher.rpc.call(RatesFetcherAPI.knownCoins, KnownCoinsRequest(query: "BIT"))
        #expect(bit.map(\.id) == ["bitcoin", "wrapped-bitcoin"])
        let top = try await fetcher.rpc.call(RatesFetcherAPI.knownCoins, KnownCoinsRequest(limit: 3))
        #expect(top.map(\.id) == ["bitcoin", "ethereum", "tether"])
        let tooMany = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.knownCoins, KnownCoinsRequest(limit: 0)) }
        #expect(tooMany?.code == RPCError.Code.invalidParams)
        // An empty list polls nothing (CoinGecko would answer its top coins).
        await fetcher.pollAll()
        #expect(fetcher.bus.topics("quote.coingecko.").isEmpty)
    }

    /// A symbol several coins share picks the one CoinGecko ranks highest; with no rank, it asks for the id.
    @Test func sharedSymbolPicksHighestRanked() async throws {
        let listed = [
            CoinGeckoCoin(id: "bitcoin", symbol: "btc", name: "Bitcoin"),
            CoinGeckoCoin(id: "batcat", symbol: "btc", name: "batcat"),
            CoinGeckoCoin(id: "other-one", symbol: "zz", name: "Other"),
            CoinGeckoCoin(id: "other-two", symbol: "zz", name: "Other 2"),
        ]
        var environment = FetcherEnvironment.test
        environment.coingecko = CoinGeckoClient(
            markets: { ids, currency in try await CoinGeckoClient.test.markets(ids, currency) },
            history: CoinGeckoClient.test.history,
            coinList: { listed })
        let fetcher = try Fetcher(coins: CoinTracker(ids: []), environment: environment)
        #expect(try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "BTC")).coin.id == "bitcoin")
        let unranked = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "zz")) }
        #expect(unranked?.code == RPCError.Code.invalidParams)
        #expect(unranked?.message == "invalid params: \"zz\" names several CoinGecko coins and none is ranked: add one by its id (\"other-one\", \"other-two\")")
    }

    /// CoinGecko's list out of reach is a retryable error, not "unknown coin".
    @Test func listUnavailable() async throws {
        var environment = FetcherEnvironment.test
        environment.coingecko.coinList = { throw FeedError.notInFixtures("no list") }
        let fetcher = try Fetcher(coins: CoinTracker(ids: []), environment: environment)
        let error = await rpcError { try await fetcher.rpc.call(RatesFetcherAPI.addCoin, CoinRequest(coin: "DOT")) }
        #expect(error?.code == RPCError.Code.unavailable)
    }
}
