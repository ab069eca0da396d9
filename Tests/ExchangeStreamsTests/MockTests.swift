import Foundation
import Market
import Money
import OrderBook
import Testing
@testable import ExchangeStreams

/// The mock clients: synthetic sessions that the real engines follow without a gap or a checksum mismatch, around
/// the shared reference price.
@Suite struct MockTests {
    /// Bitso's mock: the REST book and 300 steps of diffs and trades keep the feed's book live, uncrossed, and near
    /// the reference price.
    @Test func bitsoMockStaysInSync() async throws {
        let market = MarketPair(base: "BTC", quote: "MXN")
        let exchange = BitsoMockExchange(seed: 7)
        var engine = try BitsoEngine(client: .failing, feed: "bitso-ws", markets: [market], depth: 10)
        for text in engine.connected().send { #expect(exchange.received(text).first?.contains(#""response":"ok""#) == true) }
        var output = engine.load(try exchange.orderBook("btc_mxn"), of: market, at: Date())
        #expect(output.events.isEmpty)
        var trades = 0
        func advance(_ step: Int) {
            for text in exchange.step(Date(timeIntervalSinceNow: Double(step) / 10)) {
                output = engine.receive(text, at: Date())
                #expect(output.events.isEmpty, "\(output.events)")
                trades += output.publications.filter { $0.topic.rawValue == "trade.bitso-ws.BTC-MXN" }.count
            }
        }
        for step in 0..<300 { advance(step) }
        // The reference price follows the wall clock: a fast move (or a slow, loaded run, whose steps span more of it)
        // sweeps the orders it crosses off one side, which the mock refills a level a step. So the last steps may
        // leave a side short; a few more steps must bring it back to ten levels.
        var refill = 300
        while refill < 340, let levels = engine.books[market]?.book, levels.count(.bid) < 10 || levels.count(.ask) < 10 {
            advance(refill)
            refill += 1
        }
        let book = try #require(engine.books[market])
        #expect(book.phase == .live)
        #expect(!book.book.isCrossed)
        #expect(book.book.count(.bid) >= 10 && book.book.count(.ask) >= 10, "\(book.book.count(.bid)) bids, \(book.book.count(.ask)) asks")
        #expect(trades > 20)
        let reference = try #require(try MockMarket.reference(asset: "BTC", currency: "MXN", at: Date()))
        let bid = try #require(book.book.bestBid?.price)
        let low = try reference * (try ExactDecimal("0.9")), high = try reference * (try ExactDecimal("1.1"))
        #expect(bid > low && bid < high)
        let rest = try exchange.orderBook("btc_mxn")
        #expect(rest.sequence == book.book.sequence)
    }

    /// Kraken's mock: snapshots and 300 steps of updates, every checksum matching the engine's book.
    @Test func krakenMockChecksumsMatch() throws {
        let markets = [MarketPair(base: "BTC", quote: "USD"), MarketPair(base: "ETH", quote: "USD")]
        let exchange = KrakenMockExchange(seed: 7)
        var engine = try KrakenEngine(feed: "kraken-ws", markets: markets, depth: 10)
        var published = 0
        for request in engine.connected().send {
            for text in exchange.received(request) { #expect(engine.receive(text, at: Date()).events.isEmpty) }
        }
        for step in 0..<300 {
            for text in exchange.step(Date(timeIntervalSinceNow: Double(step) / 10)) {
                let output = engine.receive(text, at: Date())
                #expect(output.events.isEmpty, "\(output.events)")
                published += output.publications.count
            }
        }
        #expect(published > 300)
        for market in markets {
            let book = try #require(engine.books[market])
            #expect(book.isSynced)
            #expect(!book.book.isCrossed)
            #expect(book.book.count(.bid) == 10)
        }
    }

    /// The failing clients fail at once, naming themselves.
    @Test func failingClients() async {
        var iterator = BitsoStreamClient.failing.connect().messages.makeAsyncIterator()
        await #expect(throws: Unimplemented.self) { _ = try await iterator.next() }
        await #expect(throws: Unimplemented.self) { _ = try await BitsoStreamClient.failing.orderBook("btc_mxn") }
    }
}

/// The reconnection backoff.
@Suite struct BackoffTests {
    /// Doubling from the first wait up to the longest, less the jitter's share.
    @Test func doublesUpToTheMaximumLessJitter() {
        let backoff = Backoff(initial: .milliseconds(100), maximum: .seconds(1), jitter: 0.5, random: { 0.5 })
        #expect((1...6).map { backoff.delay(attempt: $0) } == [75, 150, 300, 600, 750, 750].map { Duration.milliseconds($0) })
        let none = Backoff(initial: .milliseconds(100), maximum: .seconds(1), jitter: 0.5, random: { 0 })
        #expect(none.delay(attempt: 3) == .milliseconds(400))
    }
}
