import Bus
import Foundation
import Market
import TickwireContract
import BusContract

/// The CoinGecko coins rates-fetcher polls: the one owner of the list, which it saves, when given a file, on
/// every change (`{"coins": [{"id", "symbol", "name"}]}`, replaced durably: see ``DurableFile``), so the list
/// outlives a restart, and a power loss leaves the old list or the new one.
public actor CoinTracker {
    /// The coins tracked, in the order they were added.
    public private(set) var coins: [KnownCoin]
    /// Where the list is saved; nil: kept in memory only.
    public nonisolated let file: URL?

    /// The file's name in a state directory.
    public static let fileName = "coins.json"

    /// The coins polled unless told otherwise.
    public static let defaultIDs = ["bitcoin", "ethereum", "ripple", "litecoin", "cardano", "solana", "dogecoin"]

    /// A list of `ids` kept in memory only.
    public init(ids: [String]) {
        coins = Self.unique(ids.map { KnownCoin(id: $0) })
        file = nil
    }

    /// A list of `coins` kept in memory only.
    public init(coins: [KnownCoin]) {
        self.coins = Self.unique(coins)
        file = nil
    }

    /// The list saved in `file`, or `initial` when there is no such file yet (it is written on the first change).
    /// A file that cannot be read as a list of coins is an error: it is not silently replaced.
    public init(file: URL, initial ids: [String]) throws {
        self.file = file
        guard FileManager.default.fileExists(atPath: file.path) else {
            coins = Self.unique(ids.map { KnownCoin(id: $0) })
            return
        }
        do {
            let saved = try JSONDecoder().decode(SavedList.self, from: Data(contentsOf: file))
            coins = Self.unique(saved.coins)
        } catch {
            throw CoinListFileError(path: file.path, reason: describe(error))
        }
    }

    /// The ids polled.
    public var ids: [String] { coins.map(\.id) }

    /// The tracked coin whose id, symbol or name is `text` (case aside), in that order.
    public func tracked(matching text: String) -> KnownCoin? {
        let wanted = text.trimmingCharacters(in: .whitespaces).lowercased()
        return coins.first { $0.id == wanted } ?? coins.first { $0.symbol?.lowercased() == wanted }
            ?? coins.first { $0.name?.lowercased() == wanted }
    }

    /// Adds `coin`; `false` when it was already tracked. Saved before it counts: a list that cannot be saved is not changed.
    /// A coin whose symbol cannot form a topic's key, or that another tracked coin has, is an invalid-params error:
    /// topics are keyed by symbol (`quote.coingecko.<SYMBOL>-USD`), so the coin could not be published, or two
    /// coins would take turns on one topic.
    public func add(_ coin: KnownCoin) throws -> Bool {
        guard !coins.contains(where: { $0.id == coin.id }) else { return false }
        if let symbol = coin.symbol {
            try Self.checkSymbol(symbol, of: coin.id, besides: coins)
        }
        try save(coins + [coin])
        return true
    }

    /// Removes the coin with `id`; `false` when it was not tracked. Saved before it counts.
    public func remove(id: String) throws -> Bool {
        guard coins.contains(where: { $0.id == id }) else { return false }
        try save(coins.filter { $0.id != id })
        return true
    }

    /// Takes the symbols and names of a poll's answer for coins known only by id (given by `--coins`). Not saved
    /// by itself: until a coin is added or removed there is no file, and `--coins` stays the list to start from.
    public func learn(_ markets: [CoinMarket]) {
        coins = coins.map { coin in
            guard coin.symbol == nil || coin.name == nil, let market = markets.first(where: { $0.coin.id == coin.id }) else { return coin }
            return KnownCoin(id: coin.id, symbol: market.coin.symbol.uppercased(), name: market.coin.name)
        }
    }

    private func save(_ list: [KnownCoin]) throws {
        if let file {
            do {
                try FileManager.default.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
                let encoder = JSONEncoder()
                encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
                try DurableFile.replace(file, with: encoder.encode(SavedList(coins: list)))
            } catch {
                throw RPCError.unavailable("the coin list could not be saved to \(file.path): \((error as? DurableFileError)?.description ?? error.localizedDescription)")
            }
        }
        coins = list
    }

    /// Throws invalid params unless `symbol`, the symbol of the coin with `id`, can key its topics and is no other
    /// coin's of `tracked`.
    private static func checkSymbol(_ symbol: String, of id: String, besides tracked: [KnownCoin]) throws {
        let key = symbol.uppercased()
        do {
            _ = try FeedJobs.coinTopic(symbol: key)
        } catch {
            throw RPCError.invalidParams(
                "cannot track \"\(id)\": its symbol \"\(symbol)\" cannot key a topic, which takes letters, digits and _ only")
        }
        if let other = tracked.first(where: { $0.symbol?.uppercased() == key }) {
            throw RPCError.invalidParams(
                "cannot track \"\(id)\": \"\(other.id)\" is tracked with the same symbol \(key), and topics are keyed by symbol "
                    + "(quote.coingecko.\(key)-USD); remove \"\(other.id)\" first to track \"\(id)\" instead")
        }
    }

    private static func unique(_ list: [KnownCoin]) -> [KnownCoin] {
        var seen: Set<String> = []
        return list.filter { !$0.id.isEmpty && seen.insert($0.id).inserted }
    }

    private struct SavedList: Codable {
        var coins: [KnownCoin]
    }
}

/// The saved coin list could not be read: rates-fetcher does not start on it, rather than lose it.
public struct CoinListFileError: Error, CustomStringConvertible {
    /// The file.
    public var path: String
    /// What was wrong.
    public var reason: String

    public var description: String {
        "the coin list \(path) is not a list of coins ({\"coins\": [{\"id\": ...}]}): \(reason); fix it, or delete it to start from --coins"
    }
}
