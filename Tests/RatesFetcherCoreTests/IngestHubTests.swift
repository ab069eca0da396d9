import Bus
import BusContract
import Foundation
import Market
import Money
@testable import RatesFetcherCore
import RatesFetcherEngine
import TickwireContract
import Testing

@Suite("Feed hub")
struct IngestHubTests {
    let clock = TestClock()

    /// An accepted quote is republished with the hub's own seq and the plugin's name as source, kept in the
    /// snapshot, and the plugin's `status.<feed>` says live; a refused one reaches nobody.
    @Test func republishesWhatItAccepts() async throws {
        let bus = try TestPublisher()
        let hub = IngestHub(publisher: bus.publisher, reserved: ["bitso"], logger: quietLogger, clock: clock.read)
        hub.receive(Plugin.frames("heartbeat.testfeed", seq: 40, data: Plugin.heartbeat()))
        hub.receive(Plugin.goodQuote(seq: 41))
        hub.receive(Plugin.goodQuote(seq: 41, last: "9"))
        hub.receive(Plugin.goodQuote(seq: 42, last: "0"))
        hub.receive(Plugin.frames("quote.bitso.BTC-MXN", seq: 1, data: Plugin.quote("BTC", "MXN", feed: "bitso")))
        #expect(bus.topics() == ["quote.testfeed.ZZZ-USD", "status.testfeed"], "no heartbeat, nothing refused")
        let quote = try #require(try bus.envelope("quote.testfeed.ZZZ-USD", as: Quote.self))
        #expect(quote.seq == 1 && quote.source == "testfeed" && quote.data.last.description == "1.25")
        let status = try #require(try bus.envelope("status.testfeed", as: FeedStatus.self))
        #expect(status.data.state == .live && status.data.kind == .plugin)
        #expect(hub.statuses.first?.refused == ["seq": 1, "value": 1])
        #expect(hub.refusals(ofReserved: "bitso") == ["reserved": 1])
        await bus.close()
    }

    /// A plugin's book and trades are republished like its quotes: the snapshot keeps the market's book and its last
    /// trade (a trade is an event, and its topic's last value is the latest one), each with the hub's seq; a trade
    /// with a negative size reaches nobody.
    @Test func republishesBooksAndTrades() async throws {
        let bus = try TestPublisher()
        let hub = IngestHub(publisher: bus.publisher, reserved: [], logger: quietLogger, clock: clock.read)
        hub.receive(Plugin.frames("book.testfeed.ZZZ-USD", seq: 1, data: IngestValidationTests.depth()))
        hub.receive(Plugin.frames("trade.testfeed.ZZZ-USD", seq: 1, data: IngestValidationTests.trade(id: "t-1")))
        hub.receive(Plugin.frames("trade.testfeed.ZZZ-USD", seq: 2, data: IngestValidationTests.trade(id: "t-2", price: "1.16")))
        hub.receive(Plugin.frames("trade.testfeed.ZZZ-USD", seq: 3, data: IngestValidationTests.trade(id: "t-3", size: "-1")))
        #expect(bus.topics() == ["book.testfeed.ZZZ-USD", "status.testfeed", "trade.testfeed.ZZZ-USD"])
        let book = try #require(try bus.envelope("book.testfeed.ZZZ-USD", as: BookDepth.self))
        #expect(book.source == "testfeed" && book.seq == 1 && book.data.sequence == 27)
        #expect(book.data.bids.map(\.price.description) == ["1.10", "1.05"] && book.data.asks.map(\.size.description) == ["3"])
        let trade = try #require(try bus.envelope("trade.testfeed.ZZZ-USD", as: MarketTrade.self))
        #expect(trade.seq == 2 && trade.data.id == "t-2" && trade.data.price.description == "1.16")
        #expect(hub.statuses.first?.refused == ["value": 1])
        await bus.close()
    }

    /// A plugin silent for 3 intervals is published stale; after 30 s gone, its topics retracted, and its history
    /// stays; when it comes back, it is live and its topic goes on after the retraction.
    @Test func goneRetractsAndComesBack() async throws {
        let bus = try TestPublisher()
        let hub = IngestHub(publisher: bus.publisher, reserved: [], logger: quietLogger, clock: clock.read)
        hub.receive(Plugin.goodQuote(seq: 1))
        clock.advance(.seconds(4))
        hub.expire()
        #expect(try bus.envelope("status.testfeed", as: FeedStatus.self)?.data.state == .stale)
        #expect(bus.topics("quote.") == ["quote.testfeed.ZZZ-USD"], "a stale plugin's values stay")
        clock.advance(.seconds(30))
        hub.expire()
        #expect(try bus.envelope("status.testfeed", as: FeedStatus.self)?.data.state == .gone)
        #expect(bus.topics("quote.").isEmpty)
        #expect(bus.publisher.snapshot(prefix: "quote.").retracted[try Topic("quote.testfeed.ZZZ-USD")] == 2)
        hub.receive(Plugin.goodQuote(seq: 1, last: "2"))
        #expect(bus.seq("quote.testfeed.ZZZ-USD") == 3)
        #expect(try bus.envelope("status.testfeed", as: FeedStatus.self)?.data.state == .live)
        await bus.close()
    }

    /// `history` of an asset only a plugin quotes answers from the hub's series of its quotes, starting with the
    /// quote's `open` a day before; `feeds` lists the plugin after the built-in feeds.
    @Test func historyAndFeedsOverRPC() async throws {
        let bus = try TestPublisher()
        let series = PluginHistory(step: .seconds(60))
        let hub = IngestHub(publisher: bus.publisher, reserved: [], history: series, logger: quietLogger)
        hub.receive(Plugin.frames("quote.testfeed.ZZZ-USD", seq: 1, data: Plugin.quote(last: #""1.25""#, extra: #""open":"1.00""#)))
        let engine = RatesFetcher.engine(
            environment: .test, selection: .hourly, coins: CoinTracker(ids: []), publisher: bus.publisher, hub: hub, logger: quietLogger)
        let rpc = LocalRPC(RatesFetcher.methods(engine: engine, standard: RPCMethods(), hub: hub))
        let history = try await rpc.call(RatesFetcherAPI.history, HistoryRequest(asset: "ZZZ", currency: "USD", days: 1))
        #expect(history.asset == "ZZZ" && history.currency == "USD")
        #expect(history.points.map(\.price) == [try ExactDecimal("1.00"), try ExactDecimal("1.25")])
        let missing = await rpcError { try await rpc.call(RatesFetcherAPI.history, HistoryRequest(asset: "ZZZ", currency: "EUR", days: 1)) }
        #expect(missing?.code == -32001, "no series in EUR: not found, so the presenter asks in another currency")
        let feeds = try await rpc.call(RatesFetcherAPI.feeds, NoParams())
        #expect(feeds.map(\.feed) == BuiltInFeed.all.map(\.name) + ["testfeed"])
        #expect(feeds.dropLast().allSatisfy { $0.kind == .builtIn })
        #expect(feeds.last?.kind == .plugin && feeds.last?.state == .live && feeds.last?.accepted == 1)
        await bus.close()
    }

    /// A built-in feed's names are reserved only while it runs in this hub: with `--feeds none` a plugin (a replay)
    /// publishes as `bitso` and through fiat's `ecb`, `feeds` lists it as a plugin and no built-in feed; the
    /// services' names stay reserved. With the default selection the same messages are refused `reserved`.
    @Test func stoppedBuiltInFeedsFreeTheirNames() async throws {
        let bitso = Plugin.frames("quote.bitso.BTC-MXN", seq: 1, data: Plugin.quote("BTC", "MXN", feed: "bitso"))
        let ecb = Plugin.frames("rate.ecb.EUR-USD", seq: 1, data: #"{"from":"EUR","to":"USD","rate":"1.08"}"#)
        let converter = Plugin.frames("heartbeat.converter", seq: 1, data: Plugin.heartbeat(feed: "converter"))
        let replay = FeedSelection(stopped: Set(BuiltInFeed.all.map(\.name)))
        #expect(RatesFetcher.reservedNames(replay) == IngestHub.serviceNames)

        let bus = try TestPublisher()
        let hub = IngestHub(publisher: bus.publisher, reserved: RatesFetcher.reservedNames(replay), logger: quietLogger, clock: clock.read)
        guard case .accepted = hub.receive(bitso), case .accepted = hub.receive(ecb) else {
            Issue.record("a stopped feed's names were refused")
            return
        }
        guard case .refused(let refusal, _) = hub.receive(converter) else {
            Issue.record("a service's name was taken")
            return
        }
        #expect(refusal.reason == .reserved)
        #expect(try bus.envelope("quote.bitso.BTC-MXN", as: Quote.self)?.source == "bitso")
        let engine = RatesFetcher.engine(
            environment: .test, selection: replay, coins: CoinTracker(ids: []), publisher: bus.publisher, hub: hub, logger: quietLogger)
        #expect(engine.runners.isEmpty)
        let rpc = LocalRPC(RatesFetcher.methods(engine: engine, standard: RPCMethods(), hub: hub))
        let feeds = try await rpc.call(RatesFetcherAPI.feeds, NoParams())
        #expect(feeds.map(\.feed) == ["bitso", "ecb"] && feeds.allSatisfy { $0.kind == .plugin })
        await bus.close()

        let running = try TestPublisher()
        let builtIn = IngestHub(
            publisher: running.publisher, reserved: RatesFetcher.reservedNames(FeedSelection()), logger: quietLogger, clock: clock.read)
        for frames in [bitso, ecb, converter] {
            guard case .refused(let refusal, _) = builtIn.receive(frames) else {
                Issue.record("\(String(decoding: frames[0], as: UTF8.self)) was accepted while its feed runs")
                continue
            }
            #expect(refusal.reason == .reserved)
        }
        await running.close()
    }

    /// The series keeps one point per step (the step's last price) and at most its span's worth.
    /// Refusals of names never registered count under `feed="-"`: 1,000 random names make no new series; a
    /// registered plugin's refusals keep its name.
    @Test func refusedNamesMakeNoSeries() async throws {
        let bus = try TestPublisher()
        let hub = IngestHub(publisher: bus.publisher, reserved: ["bitso"], logger: quietLogger, clock: clock.read)
        hub.receive(Plugin.goodQuote(seq: 1))
        hub.receive(Plugin.goodQuote(seq: 1))
        hub.receive(Plugin.frames("quote.bitso.BTC-MXN", seq: 1, data: Plugin.quote("BTC", "MXN", feed: "bitso")))
        let before = hub.refusedSeries
        #expect(before == ["testfeed seq", "bitso reserved"])
        for index in 0..<1_000 {
            let name = "n\(UInt64.random(in: 0...UInt64.max))x\(index)"
            hub.receive(Plugin.goodQuote(seq: 1, last: "0", feed: name))
            hub.receive([Data("quote.\(name).AAA-BBB".utf8), Data("garbage".utf8)])
        }
        #expect(hub.refusedSeries == before.union(["- value", "- malformed"]))
        await bus.close()
    }

    /// Past `maxMarkets`, a new market's series replaces the one updated least recently (a gone feed's, updated no
    /// more), rather than getting none.
    @Test func leastRecentlyUpdatedSeriesIsEvicted() throws {
        let series = PluginHistory(step: .seconds(60), span: .seconds(600), maxMarkets: 2)
        let start = Date(timeIntervalSince1970: 1_795_000_020)
        func quote(_ base: String, feed: String, at offset: TimeInterval) throws {
            series.record(Quote(source: feed, market: MarketPair(base: base, quote: "USD"), last: try ExactDecimal("1")),
                          feed: feed, at: start.addingTimeInterval(offset))
        }
        try quote("AAA", feed: "gonefeed", at: 0)
        try quote("BBB", feed: "livefeed", at: 60)
        try quote("AAA", feed: "gonefeed", at: 120)
        try quote("BBB", feed: "livefeed", at: 180)
        try quote("CCC", feed: "livefeed", at: 240)
        let now = start.addingTimeInterval(300)
        #expect(series.history(asset: "AAA", currency: "USD", days: 1, now: now) == nil, "updated least recently: evicted")
        #expect(series.history(asset: "BBB", currency: "USD", days: 1, now: now)?.points.isEmpty == false)
        #expect(series.history(asset: "CCC", currency: "USD", days: 1, now: now)?.points.isEmpty == false, "the new market has a series")
    }

    @Test func seriesIsBounded() throws {
        let series = PluginHistory(step: .seconds(60), span: .seconds(180))
        let start = Date(timeIntervalSince1970: 1_795_000_020)
        for (offset, price) in [(0, "1"), (30, "2"), (60, "3"), (120, "4"), (180, "5"), (240, "6")] {
            series.record(Quote(source: "testfeed", market: MarketPair(base: "ZZZ", quote: "USD"), last: try ExactDecimal(price)),
                          feed: "testfeed", at: start.addingTimeInterval(TimeInterval(offset)))
        }
        let history = try #require(series.history(asset: "ZZZ", currency: "USD", days: 1, now: start.addingTimeInterval(250)))
        #expect(history.points.map(\.price.description) == ["4", "5", "6"])
    }
}
