import Foundation
import Market
import Money
import OrderBook
import Testing
@testable import ExchangeStreams

/// The books' synchronisation: Bitso's snapshot plus sequenced diffs and its gaps, Kraken's checksums.
@Suite struct BookSyncTests {
    let btcMXN = MarketPair(base: "BTC", quote: "MXN")

    /// The recorded diffs 4520986708 and 4520986709 (an ask moved from 1500370 to 1499630) over a snapshot at
    /// 4520986707 that holds that ask: the level moves; a stale diff is skipped.
    @Test func snapshotThenDiffs() throws {
        let session = try ExchangeFixtures.bitsoSession()
        guard case .diff(let moveOut) = try BitsoMessage.parse(session[1]), case .diff(let moveIn) = try BitsoMessage.parse(session[2]) else {
            Issue.record("not diffs")
            return
        }
        var book = BitsoBook(market: btcMXN)
        #expect(try book.apply(moveOut) == .queued)
        let snapshot = BitsoOrderBook(
            bids: [BitsoBookOrder(price: 1_494_400, amount: try ExactDecimal("0.01"), oid: "bid1")],
            asks: [BitsoBookOrder(price: 1_500_370, amount: try ExactDecimal("0.00181072"), oid: "HWeHxDg0wjcUHibz"),
                   BitsoBookOrder(price: 1_500_370, amount: try ExactDecimal("0.5"), oid: "other")],
            sequence: 4_520_986_707)
        #expect(try book.load(snapshot) == .synced(applied: 1))
        #expect(book.phase == .live)
        #expect(book.book.top(5).asks == [BookLevel(price: 1_500_370, size: try ExactDecimal("0.5"))])
        #expect(try book.apply(moveIn) == .applied)
        #expect(book.book.top(5).asks == [
            BookLevel(price: 1_499_630, size: try ExactDecimal("0.00181072")), BookLevel(price: 1_500_370, size: try ExactDecimal("0.5")),
        ])
        #expect(book.book.sequence == 4_520_986_709)
        #expect(try book.apply(moveOut) == .stale)
    }

    /// A jump in the sequence is a gap: the book syncs again, and a newer snapshot brings it back with the queued diff.
    @Test func gapThenResync() throws {
        var book = BitsoBook(market: btcMXN)
        _ = try book.load(BitsoOrderBook(bids: [BitsoBookOrder(price: 100, amount: 1, oid: "a")], asks: [], sequence: 10))
        let late = BitsoDiff(book: "btc_mxn", sequence: 13, payload: [BitsoOrderChange(id: "b", price: 101, side: 1, amount: 2, status: "open")])
        #expect(try book.apply(late) == .gap(expected: 11, received: 13))
        #expect(book.phase == .syncing)
        #expect(try book.load(BitsoOrderBook(bids: [], asks: [], sequence: 11)) == .behind(snapshot: 11, firstQueued: 13))
        #expect(book.phase == .syncing)
        #expect(try book.load(BitsoOrderBook(bids: [BitsoBookOrder(price: 99, amount: 3, oid: "c")], asks: [], sequence: 12)) == .synced(applied: 1))
        #expect(book.book.top(1).bids == [BookLevel(price: 99, size: 3)])
        #expect(book.book.top(1).asks == [BookLevel(price: 101, size: 2)])
        #expect(book.book.sequence == 13)
    }

    /// The recorded fill (4521005667): the completed bid leaves, the partly filled one rests with its new amount.
    @Test func recordedFill() throws {
        guard case .diff(let fill) = try BitsoMessage.parse(try ExchangeFixtures.bitsoSession()[6]) else {
            Issue.record("not a diff")
            return
        }
        var book = BitsoBook(market: btcMXN)
        _ = try book.load(BitsoOrderBook(
            bids: [BitsoBookOrder(price: 1_494_400, amount: try ExactDecimal("0.003"), oid: "nW0AuzICRQ92QMr0"),
                   BitsoBookOrder(price: 1_494_390, amount: try ExactDecimal("0.004"), oid: "FX7PmAfqYzaye1Zz")],
            asks: [], sequence: 4_521_005_666))
        #expect(try book.apply(fill) == .applied)
        #expect(book.book.top(5).bids == [BookLevel(price: 1_494_390, size: try ExactDecimal("0.00199645"))])
        #expect(book.orderCount == 1)
    }

    /// An order with a negative amount is refused: the book syncs again.
    @Test func negativeOrderAmount() throws {
        var book = BitsoBook(market: btcMXN)
        _ = try book.load(BitsoOrderBook(bids: [], asks: [], sequence: 1))
        let bad = BitsoDiff(book: "btc_mxn", sequence: 2, payload: [BitsoOrderChange(id: "x", price: 100, side: 0, amount: -1, status: "open")])
        #expect(throws: ExchangeEvent(.negativeSize, "BTC-MXN diff 2: order x of -1 at 100")) { try book.apply(bad) }
        #expect(book.phase == .syncing)
    }

    /// Kraken's recorded snapshot and update of ALGO/USD match their checksums; the book is exact.
    @Test func krakenRecordedChecksums() throws {
        let session = try ExchangeFixtures.krakenSession()
        guard case .book(true, let snapshot) = try KrakenMessage.parse(session[1]), case .book(false, let update) = try KrakenMessage.parse(session[2]) else {
            Issue.record("not book messages")
            return
        }
        var book = KrakenBook(market: MarketPair(base: "ALGO", quote: "USD"), depth: 10)
        try book.load(snapshot[0])
        #expect(try book.apply(update[0]))
        #expect(book.isSynced)
        #expect(book.book.top(10).bids[6] == BookLevel(price: try ExactDecimal("0.12275"), size: try ExactDecimal("6597.51731160")))
        #expect(book.book.krakenChecksum() == 1_100_635_717)
        #expect(book.book.sequence == 2)
    }

    /// A checksum that does not match unsyncs the book; updates are then ignored until a snapshot.
    @Test func krakenChecksumMismatch() throws {
        let session = try ExchangeFixtures.krakenSession()
        guard case .book(true, let snapshot) = try KrakenMessage.parse(session[1]),
              case .book(false, let update) = try KrakenMessage.parse(session[2].replacingOccurrences(of: "1100635717", with: "1100635718"))
        else {
            Issue.record("not book messages")
            return
        }
        var book = KrakenBook(market: MarketPair(base: "ALGO", quote: "USD"), depth: 10)
        try book.load(snapshot[0])
        #expect(throws: ExchangeEvent(.checksum, "ALGO-USD update: checksum 1100635717 computed, 1100635718 sent")) { try book.apply(update[0]) }
        #expect(!book.isSynced)
        #expect(try book.apply(update[0]) == false)
        try book.load(snapshot[0])
        #expect(book.isSynced)
    }

    /// The engine answers a mismatch by subscribing to that book again, counted as a resync.
    @Test func krakenEngineResubscribes() throws {
        let session = try ExchangeFixtures.krakenSession()
        var engine = try KrakenEngine(feed: "kraken-ws", markets: [MarketPair(base: "ALGO", quote: "USD")], depth: 10)
        _ = engine.connected()
        #expect(engine.receive(session[1], at: Date()).publications.map(\.topic.rawValue) == ["book.kraken-ws.ALGO-USD"])
        let output = engine.receive(session[2].replacingOccurrences(of: "1100635717", with: "42"), at: Date())
        #expect(output.events.map(\.reason) == [.checksum])
        #expect(output.resyncs == 1)
        #expect(output.send == [
            #"{"method":"unsubscribe","params":{"channel":"book","symbol":["ALGO/USD"],"depth":10}}"#,
            #"{"method":"subscribe","params":{"channel":"book","symbol":["ALGO/USD"],"depth":10}}"#,
        ])
        #expect(engine.receive(session[2], at: Date()).publications.isEmpty)
    }
}
