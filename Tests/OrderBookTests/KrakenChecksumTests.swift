import Foundation
import Market
import Money
import OrderBook
import Testing

/// A Kraken websocket v2 `book` message as the fixtures hold it (prices and quantities as decimal text).
private struct KrakenBookMessage: Decodable {
    struct Level: Decodable {
        var price: String
        var qty: String
    }
    struct Book: Decodable {
        var symbol: String
        var bids: [Level]
        var asks: [Level]
        var checksum: UInt32
    }
    var channel: String
    var type: String
    var data: [Book]

    /// The fixture `name` (Fixtures/PROVENANCE.md says where each comes from).
    static func fixture(_ name: String) throws -> Book {
        let url = try #require(Bundle.module.url(forResource: "Fixtures/\(name)", withExtension: "json"))
        return try #require(try JSONDecoder().decode(Self.self, from: Data(contentsOf: url)).data.first)
    }
}

private func levels(_ levels: [KrakenBookMessage.Level]) throws -> [BookLevel] {
    try levels.map { BookLevel(price: try ExactDecimal($0.price), size: try ExactDecimal($0.qty)) }
}

@Suite("Kraken book checksum")
struct KrakenChecksumTests {
    /// Kraken's guide: "45285.2" becomes "452852" and "0.00100000" becomes "100000", so the first ask writes "452852100000".
    @Test func writesDigitsWithoutPointOrLeadingZeros() throws {
        let ask = BookLevel(price: try ExactDecimal("45285.2"), size: try ExactDecimal("0.00100000"))
        #expect(KrakenChecksum.text(bids: [], asks: [ask]) == "452852100000")
        #expect(KrakenChecksum.text(bids: [], asks: [ask], pricePrecision: 2, quantityPrecision: 8) == "4528520100000")
        #expect(KrakenChecksum.text(bids: [], asks: [ask], pricePrecision: 1, quantityPrecision: 5) == "452852100")
    }

    /// The guide's worked example: its snapshot's checksum is 3310070434.
    @Test func guideExample() throws {
        let book = try KrakenBookMessage.fixture("kraken-book-v2-doc-example")
        #expect(book.checksum == 3_310_070_434)
        #expect(KrakenChecksum.checksum(bids: try levels(book.bids), asks: try levels(book.asks)) == book.checksum)
        #expect(KrakenChecksum.checksum(bids: try levels(book.bids), asks: try levels(book.asks), pricePrecision: 1, quantityPrecision: 8) == book.checksum)
    }

    /// A received BTC/USDT snapshot of depth 25: kept in an L2Book, its top 10 give the checksum Kraken sent; a changed
    /// size, or a diff below the top 10, changes it or not accordingly.
    @Test func receivedSnapshotThroughTheBook() throws {
        let snapshot = try KrakenBookMessage.fixture("kraken-book-v2-btc-usdt-snapshot")
        var book = L2Book(market: MarketPair(base: "BTC", quote: "USDT"))
        try book.replace(bids: try levels(snapshot.bids), asks: try levels(snapshot.asks), sequence: 0)
        #expect(book.count(.bid) == 25 && book.count(.ask) == 25)
        #expect(book.krakenChecksum(pricePrecision: 1, quantityPrecision: 8) == 4_162_058_887)
        #expect(book.krakenChecksum() == 4_162_058_887)
        try book.apply(side: .bid, price: try ExactDecimal("105864.7"), size: try ExactDecimal("1.00000000"))
        #expect(book.krakenChecksum(pricePrecision: 1, quantityPrecision: 8) == 4_162_058_887)
        try book.apply(side: .ask, price: try ExactDecimal("105906.8"), size: try ExactDecimal("0.05665136"))
        #expect(book.krakenChecksum(pricePrecision: 1, quantityPrecision: 8) != 4_162_058_887)
    }
}
