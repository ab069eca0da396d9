import Foundation
import Market
import Money
import OrderBook

/// Kraken's websocket v2: `book` (checked by its CRC32), `trade` and `ticker` of each symbol.
struct KrakenEngine: ExchangeEngine {
    /// The book depths Kraken takes.
    static let depths = [10, 25, 100, 500, 1000]

    let markets: [MarketPair]
    let publisher: ExchangePublisher
    /// The depth subscribed: the smallest Kraken takes that covers the published depth.
    let subscribedDepth: Int
    private(set) var books: [MarketPair: KrakenBook] = [:]
    private var last: [MarketPair: ExactDecimal] = [:]
    private var tickers: [MarketPair: Quote] = [:]

    init(feed: String, markets: [MarketPair], depth: Int) throws {
        self.markets = markets
        publisher = try ExchangePublisher(feed: feed, depth: depth, markets: markets)
        subscribedDepth = Self.depths.first { $0 >= depth } ?? Self.depths.last!
        for market in markets { books[market] = KrakenBook(market: market, depth: subscribedDepth) }
    }

    mutating func connected() -> ExchangeOutput {
        var output = ExchangeOutput()
        for market in markets { books[market] = KrakenBook(market: market, depth: subscribedDepth) }
        let symbols = markets.map { "\"\($0.krakenSymbol)\"" }.joined(separator: ",")
        output.send = [
            #"{"method":"subscribe","params":{"channel":"book","symbol":[\#(symbols)],"depth":\#(subscribedDepth)}}"#,
            #"{"method":"subscribe","params":{"channel":"trade","symbol":[\#(symbols)],"snapshot":false}}"#,
            #"{"method":"subscribe","params":{"channel":"ticker","symbol":[\#(symbols)]}}"#,
        ]
        return output
    }

    mutating func receive(_ text: String, at time: Date) -> ExchangeOutput {
        var output = ExchangeOutput()
        let message: KrakenMessage
        do {
            message = try KrakenMessage.parse(text)
        } catch {
            output.events.append(error)
            return output
        }
        switch message {
        case .ignored:
            break
        case .error(let error):
            output.events.append(ExchangeEvent(.exchangeError, "Kraken: \(error)"))
        case .book(let isSnapshot, let updates):
            for update in updates {
                guard let market = MarketPair(krakenSymbol: update.symbol), var book = books[market] else {
                    output.events.append(ExchangeEvent(.otherMarket, "book \(isSnapshot ? "snapshot" : "update") of \(update.symbol), which is not subscribed"))
                    continue
                }
                do {
                    let applied: Bool
                    if isSnapshot {
                        try book.load(update)
                        applied = true
                    } else {
                        applied = try book.apply(update)
                    }
                    if applied {
                        output.publications += publisher.book(book.book, time: update.timestamp ?? time)
                        output.publications += publisher.quote(market, last: last[market], book: book.book, base: tickers[market], time: update.timestamp ?? time)
                    }
                } catch {
                    output.events.append(error)
                    resubscribe(market, &book, &output)
                }
                books[market] = book
            }
        case .trades(let trades):
            var touched: [MarketPair: Date] = [:]
            for trade in trades {
                guard let market = MarketPair(krakenSymbol: trade.symbol), books[market] != nil else {
                    output.events.append(ExchangeEvent(.otherMarket, "trade \(trade.tradeID) of \(trade.symbol), which is not subscribed"))
                    continue
                }
                guard !trade.qty.isNegative else {
                    output.events.append(ExchangeEvent(.negativeSize, "\(market) trade \(trade.tradeID): quantity \(trade.qty)"))
                    continue
                }
                guard !trade.qty.isZero, trade.price > .zero, let when = KrakenTime.parse(trade.timestamp) else {
                    output.events.append(ExchangeEvent(.malformed, "\(market) trade \(trade.tradeID): \(trade.qty) at \(trade.price), \(trade.timestamp)"))
                    continue
                }
                let side: TradeSide? = TradeSide(rawValue: trade.side)
                output.publications += publisher.trade(MarketTrade(
                    source: publisher.feed, market: market, id: trade.tradeID, price: trade.price, size: trade.qty, side: side, time: when))
                last[market] = trade.price
                touched[market] = when
            }
            for (market, when) in touched.sorted(by: { $0.key < $1.key }) {
                output.publications += publisher.quote(market, last: last[market], book: books[market]?.syncedBook, base: tickers[market], time: when)
            }
        case .tickers(let tickers):
            for ticker in tickers {
                guard let market = MarketPair(krakenSymbol: ticker.symbol), books[market] != nil else {
                    output.events.append(ExchangeEvent(.otherMarket, "ticker of \(ticker.symbol), which is not subscribed"))
                    continue
                }
                let quote = Quote(
                    source: publisher.feed, market: market, last: ticker.last, high: ticker.high, low: ticker.low, volume: ticker.volume,
                    vwap: ticker.vwap, ask: ticker.ask, bid: ticker.bid, change24h: ticker.change, changePercent24h: ticker.changePercent)
                self.tickers[market] = quote
                if last[market] == nil { last[market] = ticker.last }
                output.publications += publisher.quote(market, last: last[market], book: books[market]?.syncedBook, base: quote, time: time)
            }
        }
        return output
    }

    /// Subscribes to `market`'s book again, for a new snapshot.
    private func resubscribe(_ market: MarketPair, _ book: inout KrakenBook, _ output: inout ExchangeOutput) {
        book.invalidate()
        let params = #""channel":"book","symbol":["\#(market.krakenSymbol)"],"depth":\#(subscribedDepth)"#
        output.send += [#"{"method":"unsubscribe","params":{\#(params)}}"#, #"{"method":"subscribe","params":{\#(params)}}"#]
        output.resyncs += 1
    }

    func fetchSnapshot(of market: MarketPair) async throws {}

    mutating func load(_ snapshot: Void, of market: MarketPair, at time: Date) -> ExchangeOutput { ExchangeOutput() }
}

extension KrakenBook {
    /// The book while it is synced; nil otherwise.
    var syncedBook: L2Book? { isSynced ? book : nil }
}
