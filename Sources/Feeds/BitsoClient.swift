import Foundation
import Market
import Money

/// Bitso's public market data: its order books and their tickers.
public struct BitsoClient: Sendable {
    /// Every book the exchange trades, with its order limits.
    public var availableBooks: @Sendable () async throws -> [BookInfo]
    /// The ticker of one book, e.g. "btc_mxn".
    public var ticker: @Sendable (_ book: String) async throws -> Quote
    /// The tickers of every book.
    public var tickers: @Sendable () async throws -> [Quote]

    /// A client from its endpoints.
    public init(
        availableBooks: @escaping @Sendable () async throws -> [BookInfo],
        ticker: @escaping @Sendable (_ book: String) async throws -> Quote,
        tickers: @escaping @Sendable () async throws -> [Quote]
    ) {
        self.availableBooks = availableBooks
        self.ticker = ticker
        self.tickers = tickers
    }
}

extension BitsoClient {
    /// The recorded responses: six books; `ticker("btc_mxn")` from its own recording, other books from the all-tickers one.
    public static let test = test(books: .bitsoAvailableBooks)

    /// The recorded responses, with the books from `books` (e.g. ``FeedFixture/bitsoAvailableBooksWithFees``).
    public static func test(books: FeedFixture) -> Self {
        Self(
            availableBooks: { try fixtureBooks(books) },
            ticker: { book in try fixtureTicker(book) },
            tickers: { try fixtureTickers() }
        )
    }

    /// Alive without the network: each call moves the recorded tickers onto their market's ``MockMarket`` reference
    /// at `now` and walks them a little from there, deterministically for `seed`; the books come from `books`.
    public static func mock(
        seed: UInt64, books: FeedFixture = .bitsoAvailableBooks, now: @escaping @Sendable () -> Date = { Date() }
    ) -> Self {
        let walk = PriceWalk(seed: seed)
        @Sendable func moved(_ quote: Quote) throws -> Quote {
            let time = now()
            var quote = try quote.onMockReference(at: time).moved(by: walk.step(quote.market.symbol))
            quote.time = time
            return quote
        }
        return Self(
            availableBooks: { try fixtureBooks(books) },
            ticker: { book in try moved(find(book, in: fixtureTickers())) },
            tickers: { try fixtureTickers().map(moved) }
        )
    }

    private static func fixtureBooks(_ fixture: FeedFixture) throws -> [BookInfo] {
        try BitsoWire.books(from: fixture.data(), origin: fixture.origin)
    }

    private static func fixtureTickers() throws -> [Quote] {
        let fixture = FeedFixture.bitsoTickers
        return try BitsoWire.tickers(from: fixture.data(), origin: fixture.origin)
    }

    private static func fixtureTicker(_ book: String) throws -> Quote {
        if book == "btc_mxn" {
            let fixture = FeedFixture.bitsoTickerBTCMXN
            return try BitsoWire.ticker(from: fixture.data(), origin: fixture.origin)
        }
        return try find(book, in: fixtureTickers())
    }

    private static func find(_ book: String, in quotes: [Quote]) throws -> Quote {
        guard let quote = quotes.first(where: { BitsoWire.book(for: $0.market) == book }) else {
            throw FeedError.notInFixtures("bitso ticker for book \(book)")
        }
        return quote
    }
}
