import BusContract
import Foundation
import Market
import Money
import OrderBook
import TickwireContract
import TickwireFeeds

/// What one message, or one snapshot, makes a feed do.
struct ExchangeOutput: Sendable {
    /// Values to publish.
    var publications: [FeedPublication] = []
    /// Messages to send on the socket (subscriptions).
    var send: [String] = []
    /// Events to count.
    var events: [ExchangeEvent] = []
    /// Books that need a REST snapshot.
    var snapshots: [MarketPair] = []
    /// Books re-synchronised on the socket (Kraken's resubscriptions).
    var resyncs = 0
}

/// One exchange's protocol: what to send on connecting, what each message means, and how a book's snapshot is
/// fetched where it does not come on the socket. Pure but for `fetchSnapshot`, so tests drive it message by message.
protocol ExchangeEngine: Sendable {
    associatedtype Snapshot: Sendable
    /// The markets followed.
    var markets: [MarketPair] { get }
    /// A connection opened: every book starts afresh; returns the subscriptions and the snapshots to fetch.
    mutating func connected() -> ExchangeOutput
    /// One text message received at `time`.
    mutating func receive(_ text: String, at time: Date) -> ExchangeOutput
    /// Fetches `market`'s book snapshot.
    func fetchSnapshot(of market: MarketPair) async throws -> Snapshot
    /// Loads a fetched snapshot.
    mutating func load(_ snapshot: Snapshot, of market: MarketPair, at time: Date) -> ExchangeOutput
}

/// A market's three topics under the feed's name.
struct MarketTopics: Sendable {
    let book: StreamTopic<BookDepth>
    let trade: StreamTopic<MarketTrade>
    let quote: StreamTopic<Quote>

    init(feed: String, market: MarketPair) throws {
        book = try Topics.book(feed: feed, market: market)
        trade = try Topics.trade(feed: feed, market: market)
        quote = try Topics.quote(feed: feed, market: market)
    }
}

/// How a feed writes what it keeps: `book.<feed>.<M>` (top `depth` levels), `trade.<feed>.<M>`, `quote.<feed>.<M>`.
struct ExchangePublisher: Sendable {
    let feed: String
    let depth: Int
    let topics: [MarketPair: MarketTopics]

    init(feed: String, depth: Int, markets: [MarketPair]) throws {
        self.feed = feed
        self.depth = depth
        var topics: [MarketPair: MarketTopics] = [:]
        for market in markets { topics[market] = try MarketTopics(feed: feed, market: market) }
        self.topics = topics
    }

    func book(_ book: L2Book, time: Date?) -> [FeedPublication] {
        guard let topic = topics[book.market]?.book else { return [] }
        return [FeedPublication(book.depth(source: feed, levels: depth, time: time), on: topic)]
    }

    func trade(_ trade: MarketTrade) -> [FeedPublication] {
        guard let topic = topics[trade.market]?.trade else { return [] }
        return [FeedPublication(trade, on: topic)]
    }

    /// The market's quote: `last` from its trades (or ticker), bid and ask from the book (or `base`'s), the rest from
    /// `base` (a ticker); nothing before a last price is known.
    func quote(_ market: MarketPair, last: ExactDecimal?, book: L2Book?, base: Quote? = nil, time: Date?) -> [FeedPublication] {
        guard let topic = topics[market]?.quote, let last = last ?? base?.last else { return [] }
        var quote = base ?? Quote(source: feed, market: market, last: last)
        quote.last = last
        quote.bid = book?.bestBid?.price ?? base?.bid
        quote.ask = book?.bestAsk?.price ?? base?.ask
        quote.time = time
        return [FeedPublication(quote, on: topic)]
    }
}

extension Date {
    /// The instant `milliseconds` after 1970.
    init(milliseconds: Int64) { self.init(timeIntervalSince1970: TimeInterval(milliseconds) / 1_000) }
}
