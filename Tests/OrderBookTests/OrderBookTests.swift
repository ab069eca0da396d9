import Market
import Money
import OrderBook
import Testing

/// A decimal from text, for tests.
func dec(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

/// A level from text, for tests.
func level(_ price: String, _ size: String) throws -> BookLevel { BookLevel(price: try dec(price), size: try dec(size)) }

/// The levels' prices as text, best first.
func prices(_ levels: [BookLevel]) -> [String] { levels.map(\.price.description) }

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

    /// A snapshot is sorted best first on each side and keeps its sequence and the prices as written.
    @Test func snapshotIsSortedBestFirst() throws {
        let book = try snapshot()
        let (bids, asks) = book.top(10)
        #expect(prices(bids) == ["101", "100.5", "99.25"])
        #expect(prices(asks) == ["102.5", "103", "104.75"])
        #expect(book.sequence == 41)
        #expect(try book.bestBid == level("101", "2"))
        #expect(try book.bestAsk == level("102.5", "0.5"))
        #expect(!book.isCrossed)
    }
}
