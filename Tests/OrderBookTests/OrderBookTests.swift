import Market
import Money
import OrderBook
import Testing

/// A decimal from text, for tests.
func dec(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

/// A level from text, for tests.
func level(_ price: String, _ size: String) throws -> BookLevel { BookLevel(price: try dec(price), size: try dec(size)) }

/// The levels as "price size" text, best first.
func text(_ levels: [BookLevel]) -> [String] { levels.map { "\($0.price) \($0.size)" } }

let btcMXN = MarketPair(base: "BTC", quote: "MXN")

@Suite("L2Book")
struct L2BookTests {
    /// A snapshot of three levels a side, in no particular order.
    func snapshot() throws -> L2Book {
        var book = L2Book(market: btcMXN)
        try book.replace(
            bids: [level("100.5", "1"), level("101", "2"), level("99.25", "3")],
            asks: [level("103", "1.5"), level("102.5", "0.5"), level("104.75", "4")],
            sequence: 41
        )
        return book
    }

    /// A snapshot is sorted best first on each side and keeps its sequence and the prices and sizes as written.
    @Test func snapshotIsSortedBestFirst() throws {
        let book = try snapshot()
        let (bids, asks) = book.top(10)
        #expect(text(bids) == ["101 2", "100.5 1", "99.25 3"])
        #expect(text(asks) == ["102.5 0.5", "103 1.5", "104.75 4"])
        #expect(book.sequence == 41)
        #expect(try book.bestBid == level("101", "2"))
        #expect(try book.bestAsk == level("102.5", "0.5"))
        #expect(book.count(.bid) == 3 && book.count(.ask) == 3)
        #expect(!book.isCrossed)
    }

    /// Diffs insert, update and remove levels; the change says which, and the top follows.
    @Test func diffsInsertUpdateAndRemove() throws {
        var book = try snapshot()
        #expect(try book.apply(side: .bid, price: dec("101.5"), size: dec("0.25")) == .inserted)
        #expect(try book.apply(side: .bid, price: dec("100.50"), size: dec("7")) == .updated)
        #expect(try book.apply(side: .ask, price: dec("102.5"), size: dec("0")) == .removed)
        #expect(try book.apply(side: .ask, price: dec("102.75"), size: dec("0.000")) == .absent)
        #expect(try book.apply(side: .ask, price: dec("102.6"), size: dec("2")) == .inserted)
        let (bids, asks) = book.top(10)
        #expect(text(bids) == ["101.5 0.25", "101 2", "100.50 7", "99.25 3"])
        #expect(text(asks) == ["102.6 2", "103 1.5", "104.75 4"])
    }

    /// Removing every level empties the book; an absent level's removal changes nothing.
    @Test func removalsEmptyTheBook() throws {
        var book = try snapshot()
        for price in ["101", "100.5", "99.25"] { try book.apply(side: .bid, price: dec(price), size: 0) }
        for price in ["103", "102.5", "104.75"] { try book.apply(side: .ask, price: dec(price), size: 0) }
        #expect(book.isEmpty)
        #expect(book.top(5).bids.isEmpty && book.top(5).asks.isEmpty)
        #expect(book.bestBid == nil && book.bestAsk == nil)
        #expect(try book.apply(side: .bid, price: dec("101"), size: 0) == .absent)
        #expect(!book.isCrossed)
    }

    /// top(n) gives at most n levels a side, best first; depth carries them with the source, market, sequence and time.
    @Test func topNAndDepth() throws {
        var book = L2Book(market: btcMXN)
        for offset in 1...30 {
            try book.apply(side: .bid, price: ExactDecimal(1_000 - offset), size: ExactDecimal(offset))
            try book.apply(side: .ask, price: ExactDecimal(1_000 + offset), size: ExactDecimal(offset))
        }
        book.sequence = 77
        let (bids, asks) = book.top(3)
        #expect(text(bids) == ["999 1", "998 2", "997 3"])
        #expect(text(asks) == ["1001 1", "1002 2", "1003 3"])
        #expect(book.top(0).bids.isEmpty)
        #expect(book.top(100).bids.count == 30)
        let depth = book.depth(source: "bitso-ws", levels: 2)
        #expect(depth == BookDepth(source: "bitso-ws", market: btcMXN, sequence: 77, bids: Array(bids.prefix(2)), asks: Array(asks.prefix(2))))
    }

    /// A bid at or above the best ask crosses (or locks) the book.
    @Test func crossing() throws {
        var book = try snapshot()
        try book.apply(side: .bid, price: dec("102.49"), size: 1)
        #expect(!book.isCrossed)
        try book.apply(side: .bid, price: dec("102.50"), size: 1)
        #expect(book.isCrossed)
        try book.apply(side: .bid, price: dec("102.50"), size: 0)
        try book.apply(side: .ask, price: dec("100"), size: 1)
        #expect(book.isCrossed)
    }

    /// Prices with more decimals than any before raise the book's scale; 2.5, 2.50 and 2.500 are one level.
    @Test func pricesOfManyScalesCompareExactly() throws {
        var book = L2Book(market: btcMXN)
        try book.apply(side: .ask, price: dec("3"), size: 1)
        try book.apply(side: .ask, price: dec("2.5"), size: 2)
        try book.apply(side: .ask, price: dec("2.500"), size: 3)
        try book.apply(side: .ask, price: dec("2.4999999999999999999"), size: 4)
        try book.apply(side: .ask, price: dec("2.50000000000000000001"), size: 5)
        #expect(text(book.top(10).asks) == ["2.4999999999999999999 4", "2.500 3", "2.50000000000000000001 5", "3 1"])
        try book.apply(side: .ask, price: dec("2.50"), size: 0)
        #expect(text(book.top(10).asks) == ["2.4999999999999999999 4", "2.50000000000000000001 5", "3 1"])
    }

    /// A zero or negative price, a negative size, or a price too precise beside the book's others throws a clear
    /// error with a reason to count, and changes nothing.
    @Test func badInputsThrowAndChangeNothing() throws {
        var book = try snapshot()
        let before = book.top(10)
        let cases: [(BookSide, String, String, BookError.Reason, String)] = [
            (.bid, "0", "1", .price, "price 0 is not above zero"),
            (.ask, "-1.5", "1", .price, "price -1.5 is not above zero"),
            (.bid, "100.5", "-0.1", .size, "size -0.1 at price 100.5 is negative"),
        ]
        for (side, price, size, reason, message) in cases {
            let error = #expect(throws: BookError.self) { try book.apply(side: side, price: dec(price), size: dec(size)) }
            #expect(error?.reason == reason)
            #expect(error?.description == message)
        }
        // 38 digits at 37 decimals beside a price of 10 digits: no common scale holds both exactly.
        let tiny = try dec("1.0000000000000000000000000000000000001")
        let precision = #expect(throws: BookError.self) { try book.apply(side: .bid, price: tiny, size: 1) }
        #expect(precision?.reason == .precision)
        #expect(book.top(10).bids == before.bids && book.top(10).asks == before.asks)
        #expect(throws: BookError.self) {
            try book.replace(bids: [level("1", "1")], asks: [level("2", "-1")], sequence: 9)
        }
        #expect(book.sequence == 41 && book.top(10).bids == before.bids)
    }

    /// A snapshot replaces everything; size-zero levels are left out and a repeated price keeps the later level.
    @Test func replaceStartsOver() throws {
        var book = try snapshot()
        try book.replace(bids: [level("50", "1"), level("50.0", "2"), level("49", "0")], asks: [], sequence: 100)
        #expect(text(book.top(10).bids) == ["50.0 2"])
        #expect(book.top(10).asks.isEmpty)
        #expect(book.sequence == 100)
        book.clear()
        #expect(book.isEmpty && book.sequence == 0)
    }

    /// truncate keeps the best levels of each side.
    @Test func truncateKeepsTheBest() throws {
        var book = try snapshot()
        book.truncate(to: 2)
        #expect(text(book.top(10).bids) == ["101 2", "100.5 1"])
        #expect(text(book.top(10).asks) == ["102.5 0.5", "103 1.5"])
        try book.apply(side: .bid, price: dec("99"), size: 1)
        #expect(text(book.top(10).bids) == ["101 2", "100.5 1", "99 1"])
    }

    /// 20,000 seeded diffs, near and far from the top, against a dictionary sorted after each: the same top 10 every time.
    @Test func matchesAReferenceModel() throws {
        var book = L2Book(market: btcMXN)
        var reference: [BookSide: [ExactDecimal: ExactDecimal]] = [.bid: [:], .ask: [:]]
        var state: UInt64 = 42
        func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state >> 33
        }
        for step in 0..<20_000 {
            let side: BookSide = next() % 2 == 0 ? .bid : .ask
            let distance = Int128(1 + next() % (next() % 4 == 0 ? 400 : 12))
            let ticks = side == .bid ? 10_000 - distance : 10_000 + distance
            let price = try ExactDecimal(mantissa: ticks * 10, scale: 2)
            let size = next() % 3 == 0 ? ExactDecimal.zero : ExactDecimal(Int(next() % 1_000) + 1)
            try book.apply(side: side, price: price, size: size)
            reference[side]![price] = size.isZero ? nil : size
            if step % 97 == 0 || step > 19_900 {
                let bids = reference[.bid]!.sorted { $0.key > $1.key }.prefix(10).map { BookLevel(price: $0.key, size: $0.value) }
                let asks = reference[.ask]!.sorted { $0.key < $1.key }.prefix(10).map { BookLevel(price: $0.key, size: $0.value) }
                let top = book.top(10)
                #expect(top.bids == bids && top.asks == asks, "after diff \(step)")
                #expect(book.count(.bid) == reference[.bid]!.count && book.count(.ask) == reference[.ask]!.count)
            }
        }
    }
}

@Suite("SequenceTracker")
struct SequenceTrackerTests {
    /// After a snapshot at 10: 9 and 10 are stale, 11 applies, 13 is a gap that leaves the tracker at 11.
    @Test func okStaleAndGap() {
        var tracker = SequenceTracker()
        tracker.reset(to: 10)
        #expect(tracker.check(9) == .stale)
        #expect(tracker.check(10) == .stale)
        #expect(tracker.check(11) == .ok)
        #expect(tracker.last == 11)
        #expect(tracker.check(13) == .gap(expected: 12, received: 13))
        #expect(tracker.last == 11)
        #expect(tracker.check(12) == .ok)
    }

    /// With no snapshot the first number is taken as it comes; clear forgets it.
    @Test func firstNumberStarts() {
        var tracker = SequenceTracker()
        #expect(tracker.check(500) == .ok)
        #expect(tracker.check(501) == .ok)
        tracker.clear()
        #expect(tracker.last == nil)
        #expect(tracker.check(7) == .ok)
    }
}

@Suite("CRC32")
struct CRC32Tests {
    /// The check value of CRC-32/ISO-HDLC, the empty input, and zlib's value of a pangram.
    @Test func knownVectors() {
        #expect(CRC32.checksum(Array("123456789".utf8)) == 0xCBF4_3926)
        #expect(CRC32.checksum([UInt8]()) == 0)
        #expect(CRC32.checksum(Array("The quick brown fox jumps over the lazy dog".utf8)) == 0x414F_A339)
    }

    /// Updating in pieces gives the checksum of the whole.
    @Test func incremental() {
        var crc = CRC32()
        crc.update(Array("12345".utf8))
        crc.update(Array("6789".utf8))
        #expect(crc.value == 0xCBF4_3926)
    }
}
