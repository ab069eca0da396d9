import ArgumentParser
import Candles
import RatesFetcherEngine
import Foundation
import ServiceSupport
import TickwireStack

/// The rates-fetcher's flags; each source flag also reads `TICKWIRE_<NAME>` from the environment.
public struct FetcherOptions: ParsableArguments {
    @Option(help: .init(DefaultEndpoint.ratesFetcherPub.help("stream endpoint to bind")))
    var pub: String?
    @Option(help: .init(DefaultEndpoint.ratesFetcherRep.help("JSON-RPC endpoint to bind")))
    var rep: String?
    @Option(help: .init("ingest endpoint to bind: the SUB socket feed plugins' PUB sockets connect to (env \(FetcherConfiguration.ingestEnvironmentVariable); default \(FetcherConfiguration.defaultIngest))"))
    var ingest: String?
    @Option(name: .customLong("ingest-rate"), help: "messages a second each feed plugin may send into the ingest endpoint; the excess is refused (env TICKWIRE_RATES_FETCHER_INGEST_RATE; default \(FetcherConfiguration.defaultIngestRate))")
    var ingestRate: Int?
    @Option(help: "mock|live|test: the clients of every built-in feed; none: no built-in feed runs, the hub only republishes what plugins send and the built-in feeds' names (bitso, ecb, ...) are free for them, e.g. a replay (env TICKWIRE_FEEDS; default mock)")
    var feeds: String?
    @Option(name: .customLong("feed"), help: "FEED=mock|live|test|none for one feed, e.g. bitso=live, or bitso=none to stop it and free its name for a plugin (repeatable; overrides --feeds)")
    var feedOverrides: [String] = []
    @Option(name: .customLong("period"), help: "FEED=SECONDS: poll period of one feed, to the millisecond (repeatable); 0 polls again as soon as a poll ends (benchmarks)")
    var periods: [String] = []
    @Option(name: .customLong("bitso-url"), help: "Bitso API base URL; selects live Bitso (env TICKWIRE_BITSO_URL)")
    var bitsoURL: String?
    @Option(name: .customLong("wazirx-url"), help: "WazirX API base URL; selects live WazirX (env TICKWIRE_WAZIRX_URL)")
    var wazirxURL: String?
    @Option(name: .customLong("fiat-url"), help: "Frankfurter (or, with a fixer key, fixer) base URL; selects live fiat rates (env TICKWIRE_FIAT_URL)")
    var fiatURL: String?
    @Option(name: .customLong("fixer-key"), help: "fixer.io access key: fiat rates from fixer instead of the ECB (env TICKWIRE_FIXER_KEY)")
    var fixerKey: String?
    @Option(name: .customLong("coingecko-url"), help: "CoinGecko API base URL; selects live CoinGecko (env TICKWIRE_COINGECKO_URL)")
    var coingeckoURL: String?
    @Option(name: .customLong("gnb-url"), help: "GNB service base URL (the client appends /rates, /transactions); selects live GNB (env TICKWIRE_GNB_URL)")
    var gnbURL: String?
    @Option(help: "masterdata JSON file path or URL; selects live masterdata (env TICKWIRE_MASTERDATA)")
    var masterdata: String?
    @Option(help: "CoinGecko coin ids, comma-separated (env TICKWIRE_COINS; default \(FetcherConfiguration.defaultCoinIDs.joined(separator: ",")))")
    var coins: String?
    @Option(help: "seed of the mock feeds' random walk (env TICKWIRE_SEED; default 42)")
    var seed: UInt64?
    @Option(name: .customLong("state-dir"), help: "folder of the saved coin list, coins.json (env TICKWIRE_RATES_FETCHER_STATE; default $XDG_STATE_HOME/tickwire, else ~/.local/state/tickwire)")
    var stateDirectory: String?
    @Option(name: .customLong("candles-db"), help: "SQLite file of the closed candles (env TICKWIRE_RATES_FETCHER_CANDLES_DB; default candles.sqlite in the state folder, --state-dir)")
    var candlesDatabase: String?
    @Option(name: .customLong("candle-retention"), help: "how long candles of each interval are kept, e.g. 1m=3d,5m=30d,1h=2y,1d=none (units m h d y; intervals left out keep the default; env TICKWIRE_CANDLE_RETENTION; default \(CandleRetention.standard))")
    var candleRetention: String?

    public init() {}

    /// `--feeds none`, `--feed FEED=none`: no built-in feed (or not that one) runs.
    static let none = "none"

    /// The configuration these flags and `environment` describe.
    public func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> FetcherConfiguration {
        func setting(_ flag: String?, _ name: String) -> String? {
            Setting.resolve(flag, environmentVariable: "TICKWIRE_\(name)", environment: environment)
        }
        let variantText = setting(feeds, "FEEDS") ?? "mock"
        let noneRun = variantText == Self.none
        guard let variant = noneRun ? .mock : FeedVariant(rawValue: variantText) else {
            throw ValidationError("--feeds (env TICKWIRE_FEEDS) must be mock, live, test or none; got \(variantText.debugDescription)")
        }
        var selection = FeedSelection(defaultVariant: variant, stopped: noneRun ? Set(BuiltInFeed.all.map(\.name)) : [])
        for (feed, value) in try assignments(feedOverrides) {
            if value == Self.none {
                selection.stopped.insert(feed)
                continue
            }
            guard let variant = FeedVariant(rawValue: value) else {
                throw ValidationError("--feed \(feed)= must be mock, live, test or none, got \"\(value)\"")
            }
            selection.overrides[feed] = variant
            selection.stopped.remove(feed)
        }
        for (feed, value) in try assignments(periods) {
            guard let milliseconds = Self.milliseconds(value) else {
                throw ValidationError("--period \(feed)= must be a number of seconds (e.g. 60, or 0.01 for 100 polls a second; 0: flat out), got \"\(value)\"")
            }
            selection.periods[feed] = .milliseconds(milliseconds)
        }
        let sources: [(BuiltInFeed, String?)] = [
            (.bitso, setting(bitsoURL, "BITSO_URL")), (.wazirx, setting(wazirxURL, "WAZIRX_URL")),
            (.fiat, setting(fiatURL, "FIAT_URL")), (.coingecko, setting(coingeckoURL, "COINGECKO_URL")),
            (.gnb, setting(gnbURL, "GNB_URL")), (.masterdata, setting(masterdata, "MASTERDATA")),
        ]
        for case let (feed, source?) in sources { selection.sources[feed.name] = source }
        selection.fixerKey = setting(fixerKey, "FIXER_KEY")
        if let seedText = setting(seed.map(String.init), "SEED") {
            guard let seed = UInt64(seedText) else {
                throw ValidationError("--seed (env TICKWIRE_SEED) must be a whole number from 0 to \(UInt64.max); got \(seedText.debugDescription)")
            }
            selection.seed = seed
        }
        let ingestRateText = setting(ingestRate.map(String.init), "RATES_FETCHER_INGEST_RATE") ?? String(FetcherConfiguration.defaultIngestRate)
        guard let rate = Int(ingestRateText), rate >= 1 else {
            throw ValidationError("--ingest-rate (env TICKWIRE_RATES_FETCHER_INGEST_RATE) must be a whole number of messages a second, at least 1; got \(ingestRateText.debugDescription)")
        }
        let retention: CandleRetention
        do {
            retention = try CandleRetention(parsing: setting(candleRetention, "CANDLE_RETENTION") ?? "")
        } catch {
            throw ValidationError("--candle-retention (env TICKWIRE_CANDLE_RETENTION): \(error)")
        }
        let coinIDs = setting(coins, "COINS").map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
        let stateDirectory = Setting.resolve(stateDirectory, environmentVariable: "TICKWIRE_RATES_FETCHER_STATE", environment: environment)
            ?? Self.defaultStateDirectory(environment: environment)
        let namedCandlesDatabase = setting(candlesDatabase, "RATES_FETCHER_CANDLES_DB")
        return FetcherConfiguration(
            pub: DefaultEndpoint.ratesFetcherPub.resolve(pub, environment: environment),
            rep: DefaultEndpoint.ratesFetcherRep.resolve(rep, environment: environment),
            selection: selection,
            coinIDs: coinIDs ?? FetcherConfiguration.defaultCoinIDs,
            stateDirectory: stateDirectory,
            ingest: Setting.resolve(
                ingest, environmentVariable: FetcherConfiguration.ingestEnvironmentVariable, default: FetcherConfiguration.defaultIngest,
                environment: environment),
            ingestRate: rate,
            candlesDatabase: namedCandlesDatabase ?? URL(fileURLWithPath: stateDirectory).appendingPathComponent("candles.sqlite").path,
            candlesDatabaseIsDefault: namedCandlesDatabase == nil,
            candleRetention: retention)
    }

    /// `$XDG_STATE_HOME/tickwire`, else `~/.local/state/tickwire` (the XDG base directories' place for state).
    static func defaultStateDirectory(environment: [String: String]) -> String {
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : URL(fileURLWithPath: $0) }
            ?? FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state")
        return stateHome.appendingPathComponent("tickwire").path
    }

    /// `text`, seconds to the millisecond ("60", "1.5", "0.005"), as whole milliseconds; nil for anything else
    /// (a sign, an exponent, more than three decimals, too large). Read as digits, not as a binary float.
    static func milliseconds(_ text: String) -> Int64? {
        let parts = text.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        let whole = parts[0], fraction = parts.count == 2 ? parts[1] : ""
        guard !whole.isEmpty, fraction.count <= 3, (whole + fraction).allSatisfy({ $0.isASCII && $0.isNumber }),
              let seconds = Int64(whole), let thousandths = Int64(fraction.padding(toLength: 3, withPad: "0", startingAt: 0)) else { return nil }
        let (secondsInMilliseconds, wholeOverflow) = seconds.multipliedReportingOverflow(by: 1000)
        let (milliseconds, overflow) = secondsInMilliseconds.addingReportingOverflow(thousandths)
        return wholeOverflow || overflow ? nil : milliseconds
    }

    /// `FEED=VALUE` items by built-in feed name; a name of no built-in feed is an error.
    private func assignments(_ items: [String]) throws -> [(String, String)] {
        try items.map { item in
            let parts = item.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2, let feed = BuiltInFeed.named(parts[0]) else { throw SelectionError.invalidAssignment(item) }
            return (feed.name, parts[1])
        }
    }
}
