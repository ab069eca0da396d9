import AsyncHTTPClient
import Feeds
import Foundation
import Market
import RatesFetcherCore
import RatesFetcherEngine
import Testing

@Suite("Fetcher options and feed selection")
struct FetcherOptionsTests {
    private func configuration(_ arguments: [String] = [], environment: [String: String] = [:]) throws -> FetcherConfiguration {
        try FetcherOptions.parse(arguments).configuration(environment: environment)
    }

    /// The message of whatever `body` throws.
    private func message(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return String(describing: error)
        }
    }

    /// Without flags or environment every feed is mocked, on the default endpoints and coins.
    @Test func defaults() throws {
        let configuration = try configuration()
        #expect(configuration.pub == "tcp://127.0.0.1:7101")
        #expect(configuration.rep == "tcp://127.0.0.1:7102")
        #expect(configuration.selection == FeedSelection())
        #expect(configuration.selection.defaultVariant == .mock)
        #expect(configuration.selection.seed == 42)
        #expect(configuration.coinIDs == FetcherConfiguration.defaultCoinIDs)
        for feed in BuiltInFeed.all {
            #expect(configuration.selection.variant(of: feed) == .mock)
            #expect(configuration.selection.period(of: feed) == feed.mockPeriod)
        }
        #expect(!configuration.selection.needsHTTP)
    }

    /// The coin list's folder: the flag, else `TICKWIRE_RATES_FETCHER_STATE`, else `$XDG_STATE_HOME/tickwire`, else
    /// `~/.local/state/tickwire`.
    @Test func stateDirectory() throws {
        #expect(try configuration(["--state-dir", "/srv/coins"], environment: ["TICKWIRE_RATES_FETCHER_STATE": "/env"]).stateDirectory == "/srv/coins")
        #expect(try configuration(environment: ["TICKWIRE_RATES_FETCHER_STATE": "/env", "XDG_STATE_HOME": "/xdg"]).stateDirectory == "/env")
        #expect(try configuration(environment: ["XDG_STATE_HOME": "/xdg"]).stateDirectory == "/xdg/tickwire")
        let home = FileManager.default.homeDirectoryForCurrentUser.appendingPathComponent(".local/state/tickwire").path
        #expect(try configuration(environment: ["XDG_STATE_HOME": ""]).stateDirectory == home)
        #expect(FetcherConfiguration(pub: "inproc://p", rep: "inproc://r", selection: FeedSelection()).stateDirectory == nil)
    }

    /// The candles' SQLite file: a named one (flag, else `TICKWIRE_RATES_FETCHER_CANDLES_DB`) must open; the state
    /// folder's default may fall back to memory where the folder cannot be written (a read-only container).
    @Test func candlesDatabase() throws {
        let named = try configuration(["--candles-db", "/srv/candles.sqlite"], environment: ["TICKWIRE_RATES_FETCHER_CANDLES_DB": "/env.sqlite"])
        #expect(named.candlesDatabase == "/srv/candles.sqlite" && !named.candlesDatabaseIsDefault)
        let fromEnvironment = try configuration(environment: ["TICKWIRE_RATES_FETCHER_CANDLES_DB": "/env.sqlite"])
        #expect(fromEnvironment.candlesDatabase == "/env.sqlite" && !fromEnvironment.candlesDatabaseIsDefault)
        let byDefault = try configuration(["--state-dir", "/srv/state"])
        #expect(byDefault.candlesDatabase == "/srv/state/candles.sqlite" && byDefault.candlesDatabaseIsDefault)
    }

    /// Environment variables choose the variant, and a GNB URL makes GNB live while the rest stay test.
    @Test func environmentVariables() throws {
        let configuration = try configuration(environment: [
            "TICKWIRE_FEEDS": "test", "TICKWIRE_GNB_URL": "http://gnb.example:8080",
            "TICKWIRE_RATES_FETCHER_PUB": "ipc:///tmp/fetcher-pub", "TICKWIRE_SEED": "7", "TICKWIRE_COINS": "bitcoin, ethereum",
        ])
        let selection = configuration.selection
        #expect(selection.defaultVariant == .test)
        #expect(selection.sources == ["gnb": "http://gnb.example:8080"])
        #expect(selection.variant(of: .gnb) == .live)
        #expect(selection.period(of: .gnb) == .seconds(3600))
        for feed in BuiltInFeed.all where feed.name != "gnb" { #expect(selection.variant(of: feed) == .test) }
        #expect(selection.needsHTTP)
        #expect(selection.seed == 7)
        #expect(configuration.pub == "ipc:///tmp/fetcher-pub")
        #expect(configuration.rep == "tcp://127.0.0.1:7102")
        #expect(configuration.coinIDs == ["bitcoin", "ethereum"])
    }

    /// Flags win over the environment, and an empty variable counts as unset.
    @Test func flagsBeatEnvironment() throws {
        let configuration = try configuration(["--feeds", "live", "--gnb-url", "https://flag.example"], environment: [
            "TICKWIRE_FEEDS": "test", "TICKWIRE_GNB_URL": "http://env.example",
        ])
        #expect(configuration.selection.defaultVariant == .live)
        #expect(configuration.selection.sources["gnb"] == "https://flag.example")
        #expect(try self.configuration(environment: ["TICKWIRE_FEEDS": ""]).selection.defaultVariant == .mock)
    }

    /// `--feed bitso=live` overrides one feed, even over a source that would select live; `--period` sets one period.
    @Test func perFeedOverridesAndPeriods() throws {
        let selection = try configuration(
            ["--feed", "bitso=live", "--feed", "gnb=test", "--period", "bitso=5", "--period", "fiat=600"],
            environment: ["TICKWIRE_GNB_URL": "http://gnb.example"]).selection
        #expect(selection.overrides == ["bitso": .live, "gnb": .test])
        #expect(selection.variant(of: .bitso) == .live)
        #expect(selection.variant(of: .gnb) == .test)
        #expect(selection.variant(of: .wazirx) == .mock)
        #expect(selection.period(of: .bitso) == .seconds(5))
        #expect(selection.period(of: .fiat) == .seconds(600))
        #expect(selection.period(of: .wazirx) == .seconds(1))
        #expect(try configuration(["--feed", "bitso=live"]).selection.period(of: .bitso) == .seconds(30))
    }

    /// `--feeds none` runs no built-in feed and reserves none of their names; `--feed NAME=none` stops one feed, and
    /// `--feed NAME=VARIANT` runs one despite `--feeds none`. A stopped live feed needs no source.
    @Test func noBuiltInFeeds() throws {
        let none = try configuration(["--feeds", "none"]).selection
        #expect(none.running.isEmpty && none.reservedNames.isEmpty && !none.needsHTTP)
        #expect(try configuration(environment: ["TICKWIRE_FEEDS": "none"]).selection.running.isEmpty)
        let bitsoOnly = try configuration(["--feeds", "none", "--feed", "bitso=test"]).selection
        #expect(bitsoOnly.running.map(\.name) == ["bitso"] && bitsoOnly.variant(of: .bitso) == .test)
        #expect(bitsoOnly.reservedNames == ["bitso"])
        let noFiat = try configuration(["--feed", "fiat=none"]).selection
        #expect(noFiat.running.map(\.name) == ["bitso", "wazirx", "coingecko", "gnb", "masterdata"])
        #expect(noFiat.reservedNames == ["bitso", "wazirx", "coingecko", "gnb", "masterdata"], "ecb and fixer are free with fiat")
        #expect(try configuration().selection.reservedNames == BuiltInFeed.reservedNames)
        let stoppedLiveGNB = FeedSelection(overrides: ["gnb": .live], stopped: ["gnb"])
        #expect(!stoppedLiveGNB.needsHTTP)
        _ = try stoppedLiveGNB.environment(http: nil, logger: quietLogger)
    }

    /// Bad values are errors whose messages say what was expected and what was given.
    @Test func badValuesAreClearErrors() throws {
        #expect(message { _ = try configuration(["--feeds", "bogus"]) } == #"--feeds (env TICKWIRE_FEEDS) must be mock, live, test or none; got "bogus""#)
        #expect(message { _ = try configuration(environment: ["TICKWIRE_FEEDS": "fast"]) } == #"--feeds (env TICKWIRE_FEEDS) must be mock, live, test or none; got "fast""#)
        #expect(message { _ = try configuration(["--feed", "bitso=fast"]) } == #"--feed bitso= must be mock, live, test or none, got "fast""#)
        for period in ["-5", "abc", "nan", "inf", "1e400", "0.0005", ".5", "+5", "99999999999999999", "9223372036854775.999"] {
            #expect(message { _ = try configuration(["--period", "bitso=\(period)"]) }
                == #"--period bitso= must be a number of seconds (e.g. 60, or 0.01 for 100 polls a second; 0: flat out), got "\#(period)""#)
        }
        #expect(try configuration(["--period", "bitso=0"]).selection.period(of: .bitso) == .zero)
        #expect(try configuration(["--period", "bitso=0.005"]).selection.period(of: .bitso) == .milliseconds(5))
        #expect(try configuration(["--period", "bitso=1.5"]).selection.period(of: .bitso) == .milliseconds(1500))
        for seed in ["abc", "-1", "1.5", "18446744073709551616"] {
            #expect(message { _ = try configuration(environment: ["TICKWIRE_SEED": seed]) }
                == #"--seed (env TICKWIRE_SEED) must be a whole number from 0 to 18446744073709551615; got "\#(seed)""#)
        }
        #expect(throws: (any Error).self) { _ = try FetcherOptions.parse(["--seed", "abc"]) }
    }

    /// A `feed=value` that names no feed, or has no `=`, is an invalid assignment listing the feeds.
    @Test func invalidAssignments() {
        #expect(throws: SelectionError.invalidAssignment("nobody=live")) { _ = try configuration(["--feed", "nobody=live"]) }
        #expect(throws: SelectionError.invalidAssignment("bitso")) { _ = try configuration(["--period", "bitso"]) }
        #expect(SelectionError.invalidAssignment("x").description
            == #"expected FEED=VALUE with FEED one of bitso, wazirx, fiat, coingecko, gnb, masterdata, got "x""#)
    }

    /// Live GNB has no default URL: without one it is `missingSource(.gnb)`, with or without an HTTP client.
    @Test func liveGNBWithoutURL() {
        let selection = FeedSelection(overrides: ["gnb": .live])
        #expect(throws: SelectionError.missingSource("gnb")) { _ = try selection.environment(http: nil, logger: quietLogger) }
        #expect(throws: SelectionError.missingSource("gnb")) { _ = try selection.environment(http: HTTPClient.shared, logger: quietLogger) }
        #expect(SelectionError.missingSource("gnb").description.contains("--gnb-url"))
        #expect(throws: SelectionError.missingSource("masterdata")) {
            _ = try FeedSelection(overrides: ["masterdata": .live]).environment(http: nil, logger: quietLogger)
        }
    }

    /// A live URL that is not http(s) is refused, naming the feed and the text.
    @Test func nonHTTPURLIsRefused() {
        let selection = FeedSelection(sources: ["bitso": "ftp://bitso.example"])
        #expect(throws: SelectionError.invalidURL("bitso", "ftp://bitso.example")) {
            _ = try selection.environment(http: HTTPClient.shared, logger: quietLogger)
        }
    }

    /// The test variant builds the recorded clients without HTTP.
    @Test func testVariantUsesFixtures() async throws {
        let environment = try FeedSelection(defaultVariant: .test).environment(http: nil, logger: quietLogger)
        #expect(try await environment.gnb.rates().count == 4)
        #expect(try await environment.fiat.latest().source == "ecb")
    }

    /// Masterdata given as a file path uses the file client: it reads that file, and fails naming it once gone.
    @Test func masterdataPathIsAFileClient() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-fetcher-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("Masterdata.json").path
        try FeedFixture.masterdata.data().write(to: URL(fileURLWithPath: path))

        let selection = try configuration(["--masterdata", path]).selection
        #expect(selection.variant(of: .masterdata) == .live)
        let environment = try selection.environment(http: nil, logger: quietLogger)
        #expect(try await environment.masterdata.load().wallets.count == 52)

        try FileManager.default.removeItem(atPath: path)
        do {
            _ = try await environment.masterdata.load()
            Issue.record("loading a removed file should fail")
        } catch let error as FeedError {
            guard case .transport(let url, _) = error else {
                Issue.record("expected a transport error, got \(error)")
                return
            }
            #expect(url == "file://\(path)")
        }
    }
}
