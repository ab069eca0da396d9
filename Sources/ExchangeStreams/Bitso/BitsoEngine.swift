import Foundation
import Market
import Money
import OrderBook

/// Bitso's websocket: `diff-orders` and `trades` of each book, the books kept from the REST snapshot and the diffs.
struct BitsoEngine: ExchangeEngine {
    let client: BitsoStreamClient
    let markets: [MarketPair]
    let publisher: ExchangePublisher
    private(set) var books: [MarketPair: BitsoBook] = [:]
    private var last: [MarketPair: ExactDecimal] = [:]

    init(client: BitsoStreamClient, feed: String, markets: [MarketPair], depth: Int) throws {
        self.client = client
        self.markets = markets
        publisher = try ExchangePublisher(feed: feed, depth: depth, markets: markets)
        for market in markets { books[market] = BitsoBook(market: market) }
    }

    mutating func connected() -> ExchangeOutput {
        var output = ExchangeOutput()
        for market in markets {
            books[market] = BitsoBook(market: market)
            for channel in ["diff-orders", "trades"] {
                output.send.append(#"{"action":"subscribe","book":"\#(market.bitsoBook)","type":"\#(channel)"}"#)
            }
            output.snapshots.append(market)
        }
        return output
    }

    mutating func receive(_ text: String, at time: Date) -> ExchangeOutput {
        var output = ExchangeOutput()
        let message: BitsoMessage
        do {
            message = try BitsoMessage.parse(text)
        } catch {
            output.events.append(error)
            return output
        }
        switch message {
        case .keepAlive, .other:
            break
        case .subscribed(let type, let book, let response):
            if response != "ok" && !response.hasPrefix("Already subscribed") {
                output.events.append(ExchangeEvent(.exchangeError, "subscription to \(type ?? "?") of \(book ?? "?"): \(response)"))
            }
        case .error(let error):
            output.events.append(ExchangeEvent(.exchangeError, "Bitso: \(error)"))
        case .diff(let diff):
            guard let market = MarketPair(bitsoBook: diff.book), var book = books[market] else {
                output.events.append(ExchangeEvent(.otherMarket, "diff-orders \(diff.sequence) of book \(diff.book), which is not subscribed"))
                return output
            }
            defer { books[market] = book }
            do {
                switch try book.apply(diff) {
                case .applied:
                    let sent = diff.sent.map(Date.init(milliseconds:))
                    output.publications += publisher.book(book.book, time: sent)
                    output.publications += publisher.quote(market, last: last[market], book: book.book, time: sent ?? time)
                case .stale:
                    break
                case .queued:
                    output.snapshots.append(market)
                case .gap(let expected, let received):
                    output.events.append(ExchangeEvent(.gap, "\(market): diff-orders \(received) after \(expected - 1) (\(received - expected) lost)"))
                    output.snapshots.append(market)
                }
            } catch {
                output.events.append(error)
                output.snapshots.append(market)
            }
        case .trades(let bookName, let trades, let sent):
            guard let market = MarketPair(bitsoBook: bookName), books[market] != nil else {
                output.events.append(ExchangeEvent(.otherMarket, "trades of book \(bookName), which is not subscribed"))
                return output
            }
            var newest: Date?
            for trade in trades {
                guard !trade.amount.isNegative else {
                    output.events.append(ExchangeEvent(.negativeSize, "\(market) trade \(trade.id): amount \(trade.amount)"))
                    continue
                }
                guard !trade.amount.isZero, trade.price > .zero else {
                    output.events.append(ExchangeEvent(.malformed, "\(market) trade \(trade.id): \(trade.amount) at \(trade.price)"))
                    continue
                }
                let side: TradeSide? = switch trade.makerSide {
                case 0: .sell
                case 1: .buy
                default: nil
                }
                let when = (trade.time ?? sent).map(Date.init(milliseconds:)) ?? time
                newest = when
                output.publications += publisher.trade(MarketTrade(
                    source: publisher.feed, market: market, id: String(trade.id), price: trade.price, size: trade.amount, side: side, time: when))
                last[market] = trade.price
            }
            if let newest {
                output.publications += publisher.quote(market, last: last[market], book: books[market]?.liveBook, time: newest)
            }
        }
        return output
    }

    func fetchSnapshot(of market: MarketPair) async throws -> BitsoOrderBook {
        try await client.orderBook(market.bitsoBook)
    }

    mutating func load(_ snapshot: BitsoOrderBook, of market: MarketPair, at time: Date) -> ExchangeOutput {
        var output = ExchangeOutput()
        guard var book = books[market] else { return output }
        defer { books[market] = book }
        do {
            switch try book.load(snapshot) {
            case .synced:
                output.publications += publisher.book(book.book, time: time)
                output.publications += publisher.quote(market, last: last[market], book: book.book, time: time)
            case .behind(let sequence, let first):
                output.events.append(ExchangeEvent(.staleSnapshot, "\(market): REST book at \(sequence), diffs queued from \(first)"))
            }
        } catch {
            output.events.append(error)
        }
        return output
    }
}

extension BitsoBook {
    /// The book while it is live; nil while it syncs.
    var liveBook: L2Book? { phase == .live ? book : nil }
}
