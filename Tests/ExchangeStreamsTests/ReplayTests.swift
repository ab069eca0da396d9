import Foundation
import Market
import Money
import Testing
import TickwireFeeds
@testable import ExchangeStreams

/// The `test` clients replaying the recorded sessions through a local websocket server into a `FeedSink.recording`,
/// and a server that drops the connection mid-message.
@Suite(.serialized) struct ReplayTests {
    /// Bitso's recorded session: the REST book is published, its diffs (a year and a half later) are a gap and every
    /// snapshot after is behind them, other books' data and Bitso's error are counted, and the btc_mxn trade is
    /// published with a quote.
    @Test func bitsoRecordedSession() async throws {
        let session = try ExchangeFixtures.bitsoSession()
        let server = try await ReplayServer.start(logger: testLogger) { _ in session.map(ReplayStep.send) }
        let recording = Recording()
        let market = MarketPair(base: "BTC", quote: "MXN")
        let feed = try ExchangeFeed.bitso(
            client: .test(url: server.url, logger: testLogger), sink: recording.sink, markets: [market], settings: testSettings, logger: testLogger)
        try await running(feed) {
            let traded = try await eventually { try !recording.payloads("trade.bitso-ws.BTC-MXN", as: MarketTrade.self).isEmpty }
            #expect(traded)
        }
        await server.stop()

        let books = try recording.payloads("book.bitso-ws.BTC-MXN", as: BookDepth.self)
        #expect(books == [BookDepth(
            source: "bitso-ws", market: market, sequence: 356_228_469,
            bids: [BookLevel(price: 2_019_930, size: try ExactDecimal("0.00488293"))],
            asks: [BookLevel(price: 2_020_840, size: try ExactDecimal("0.01354793"))],
            time: Date(timeIntervalSince1970: 1_800_000_000))])
        #expect(try recording.payloads("trade.bitso-ws.BTC-MXN", as: MarketTrade.self) == [MarketTrade(
            source: "bitso-ws", market: market, id: "4768575", price: 207_300, size: try ExactDecimal("0.0004824"), side: .sell,
            time: Date(timeIntervalSince1970: 1_800_000_000))])
        let quotes = try recording.payloads("quote.bitso-ws.BTC-MXN", as: Quote.self)
        #expect(quotes.map(\.last) == [207_300])
        #expect(quotes.first?.bid == nil)
        let counters = await feed.counters
        #expect(counters.events == [.gap: 1, .staleSnapshot: 3, .otherMarket: 2, .exchangeError: 1])
        #expect(counters.resyncs == 3)
        #expect(counters.reconnects == 0)
        #expect(server.received == [
            #"{"action":"subscribe","book":"btc_mxn","type":"diff-orders"}"#, #"{"action":"subscribe","book":"btc_mxn","type":"trades"}"#,
        ])
        let status = try #require(try recording.payloads("status.bitso-ws", as: FeedStatus.self).last)
        #expect(status.state == .ok)
        #expect(status.message?.hasPrefix("reconnects 0, resyncs 3, gap 1, checksum 0, exchange-error 1, other-market 2, stale-snapshot 3; last: exchange-error: Bitso: invalid message") == true)
    }

    /// Kraken's recorded session: ALGO/USD's snapshot and update match their checksums and are published with a
    /// count as sequence; its ticker makes the quote (bid and ask from the book); BTC/USDT's three trades are published.
    @Test func krakenRecordedSession() async throws {
        let session = try ExchangeFixtures.krakenSession()
        let server = try await ReplayServer.start(logger: testLogger) { _ in session.map(ReplayStep.send) }
        let recording = Recording()
        let algo = MarketPair(base: "ALGO", quote: "USD"), btc = MarketPair(base: "BTC", quote: "USDT")
        let feed = try ExchangeFeed.kraken(
            client: .test(url: server.url, logger: testLogger), sink: recording.sink(name: "kraken-ws"), markets: [algo, btc],
            settings: testSettings, logger: testLogger)
        try await running(feed) {
            let traded = try await eventually { try recording.payloads("trade.kraken-ws.BTC-USDT", as: MarketTrade.self).count == 3 }
            #expect(traded)
        }
        await server.stop()

        let books = try recording.payloads("book.kraken-ws.ALGO-USD", as: BookDepth.self)
        #expect(books.map(\.sequence) == [1, 2])
        let last = try #require(books.last)
        #expect(last.bids.count == 10 && last.asks.count == 10)
        #expect(last.bids[0] == BookLevel(price: try ExactDecimal("0.12291"), size: try ExactDecimal("27039.62776299")))
        #expect(last.bids[6] == BookLevel(price: try ExactDecimal("0.12275"), size: try ExactDecimal("6597.51731160")))
        #expect(last.asks[9] == BookLevel(price: try ExactDecimal("0.12322"), size: try ExactDecimal("4718.99755630")))
        #expect(last.time == Date(timeIntervalSince1970: 1_727_923_617.050))
        let quote = try #require(try recording.payloads("quote.kraken-ws.ALGO-USD", as: Quote.self).last)
        #expect(quote.last == (try ExactDecimal("0.10035")))
        #expect(quote.bid == (try ExactDecimal("0.12291")))
        #expect(quote.ask == (try ExactDecimal("0.12307")))
        #expect(quote.volume == (try ExactDecimal("997038.98383185")))
        #expect(quote.changePercent24h == (try ExactDecimal("-0.17")))
        let trades = try recording.payloads("trade.kraken-ws.BTC-USDT", as: MarketTrade.self)
        #expect(trades.map(\.id) == ["9622656", "9622657", "9622658"])
        #expect(trades.map(\.price) == [try ExactDecimal("118832.9"), 118_837, try ExactDecimal("118837.5")])
        #expect(trades.map(\.size) == [try ExactDecimal("0.00409283"), try ExactDecimal("0.00033315"), try ExactDecimal("0.07963402")])
        #expect(trades.allSatisfy { $0.side == .buy })
        #expect(try recording.payloads("quote.kraken-ws.BTC-USDT", as: Quote.self).map(\.last) == [try ExactDecimal("118837.5")])
        #expect(await feed.counters.events.isEmpty)
    }

    /// A server that drops the socket in the middle of a message: the feed counts the drop, reconnects after its
    /// backoff, subscribes and re-synchronises again, and goes on from the new session.
    @Test func reconnectsAfterADropMidMessage() async throws {
        let session = try ExchangeFixtures.krakenSession()
        let server = try await ReplayServer.start(logger: testLogger) { connection in
            connection == 0 ? [.send(session[1]), .dropMidMessage(session[2])] : [.send(session[1]), .send(session[2])]
        }
        let recording = Recording()
        let feed = try ExchangeFeed.kraken(
            client: .test(url: server.url, logger: testLogger), sink: recording.sink(name: "kraken-ws"),
            markets: [MarketPair(base: "ALGO", quote: "USD")], settings: testSettings, logger: testLogger)
        try await running(feed) {
            let resynced = try await eventually {
                try recording.payloads("book.kraken-ws.ALGO-USD", as: BookDepth.self).count == 3 && server.received.count >= 3
            }
            #expect(resynced)
        }
        await server.stop()
        let counters = await feed.counters
        #expect(counters.reconnects == 1)
        #expect(counters.events == [.disconnected: 1])
        #expect(server.connections == 2)
        // The second connection subscribed again (the first was dropped before the server read what it sent).
        #expect(server.received.suffix(3) == [
            #"{"method":"subscribe","params":{"channel":"book","symbol":["ALGO/USD"],"depth":10}}"#,
            #"{"method":"subscribe","params":{"channel":"trade","symbol":["ALGO/USD"],"snapshot":false}}"#,
            #"{"method":"subscribe","params":{"channel":"ticker","symbol":["ALGO/USD"]}}"#,
        ])
        #expect(try recording.payloads("book.kraken-ws.ALGO-USD", as: BookDepth.self).map(\.sequence) == [1, 1, 2])
        let statuses = try recording.payloads("status.kraken-ws", as: FeedStatus.self)
        #expect(statuses.map(\.state).contains(.error))
        #expect(statuses.last?.state == .ok)
    }

    /// A server that sends the snapshot and then nothing: after the silence timeout the feed takes the socket as dead,
    /// counts it and connects again, and the book is synced anew.
    @Test func silentConnectionIsOpenedAgain() async throws {
        let session = try ExchangeFixtures.krakenSession()
        let server = try await ReplayServer.start(logger: testLogger) { _ in [.send(session[1])] }
        let recording = Recording()
        var settings = testSettings
        settings.silenceTimeout = .milliseconds(100)
        let feed = try ExchangeFeed.kraken(
            client: .test(url: server.url, logger: testLogger), sink: recording.sink(name: "kraken-ws"),
            markets: [MarketPair(base: "ALGO", quote: "USD")], settings: settings, logger: testLogger)
        // Read while the feed runs: stopping it may count one more event of its own.
        let counters = try await running(feed) {
            let reconnected = try await eventually { try recording.payloads("book.kraken-ws.ALGO-USD", as: BookDepth.self).count >= 2 }
            #expect(reconnected)
            return await feed.counters
        }
        await server.stop()
        #expect(counters.reconnects >= 1)
        #expect(counters[.disconnected] == counters.reconnects || counters[.disconnected] == counters.reconnects + 1)
        // The server never closes a connection: each disconnect counted is the silence timeout's (which event came
        // last is timing: among hundreds of tests another one had, so it is not asserted).
        #expect(counters[.disconnected] >= 1)
        #expect(server.connections >= 2)
    }

    /// A server that is not there: each attempt fails, is counted and retried with the backoff.
    @Test func connectionRefusedIsRetried() async throws {
        let recording = Recording()
        let feed = try ExchangeFeed.kraken(
            client: .test(url: "ws://127.0.0.1:9/", logger: testLogger), sink: recording.sink(name: "kraken-ws"),
            markets: [MarketPair(base: "ALGO", quote: "USD")], settings: testSettings, logger: testLogger)
        try await running(feed) {
            let retried = await eventually { await feed.counters.reconnects >= 2 }
            #expect(retried)
        }
        let counters = await feed.counters
        #expect(counters[.connectFailed] >= 2)
        #expect(try recording.payloads("status.kraken-ws", as: FeedStatus.self).last?.state == .error)
    }
}
