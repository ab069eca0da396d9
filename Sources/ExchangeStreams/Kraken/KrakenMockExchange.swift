import Foundation
import Market
import Money
import OrderBook
import Synchronization

/// A synthetic Kraken v2 for one connection of ``KrakenStreamClient/mock(seed:interval:)``: per subscribed symbol an
/// L2 book around the reference price; a `book` subscription answers with a snapshot, and each step changes a level
/// (an `update` with the book's real CRC32) or trades against the best level (`trade`, then `ticker`).
final class KrakenMockExchange: Sendable {
    private struct Symbol {
        var market: MarketPair
        var book: L2Book
        var depth: Int
        var booked = false
        var tickers = false
        var trades = false
        var nextTrade = 70_000
        var generator: SeededGenerator
    }

    private let state: Mutex<(seed: UInt64, symbols: [String: Symbol])>

    init(seed: UInt64) {
        state = Mutex((seed: seed, symbols: [:]))
    }

    /// The answer to a request: an acknowledgement, and a book snapshot or a ticker for a subscription.
    func received(_ text: String) -> [String] {
        struct Request: Decodable {
            struct Params: Decodable {
                var channel: String
                var symbol: [String]
                var depth: Int?
            }
            var method: String
            var params: Params
        }
        let now = Date()
        guard let request = try? JSONDecoder().decode(Request.self, from: Data(text.utf8)) else {
            return [#"{"error":"Malformed request","method":"","success":false,"time_in":"\#(Self.time(now))","time_out":"\#(Self.time(now))"}"#]
        }
        return state.withLock { state in
            var messages: [String] = []
            for name in request.params.symbol {
                guard let market = MarketPair(krakenSymbol: name) else { continue }
                if state.symbols[name] == nil {
                    guard let symbol = Self.seeded(market, seed: state.seed, at: now) else { continue }
                    state.symbols[name] = symbol
                }
                guard var symbol = state.symbols[name] else { continue }
                let subscribe = request.method == "subscribe"
                messages.append(#"{"method":"\#(request.method)","result":{"channel":"\#(request.params.channel)","symbol":"\#(name)"},"success":true,"time_in":"\#(Self.time(now))","time_out":"\#(Self.time(now))"}"#)
                switch request.params.channel {
                case "book":
                    symbol.booked = subscribe
                    if subscribe {
                        symbol.depth = request.params.depth ?? 10
                        symbol.book.truncate(to: symbol.depth)
                        messages.append(Self.book(symbol, name: name, type: "snapshot", bids: symbol.book.top(symbol.depth).bids, asks: symbol.book.top(symbol.depth).asks, at: nil))
                    }
                case "ticker":
                    symbol.tickers = subscribe
                    if subscribe { messages.append(Self.ticker(symbol, name: name, type: "snapshot")) }
                case "trade":
                    symbol.trades = subscribe
                default:
                    break
                }
                state.symbols[name] = symbol
            }
            return messages
        }
    }

    /// One step of every subscribed symbol at `time`.
    func step(_ time: Date) -> [String] {
        state.withLock { state in
            var messages: [String] = []
            for name in state.symbols.keys.sorted() {
                guard var symbol = state.symbols[name], symbol.booked else { continue }
                messages += Self.step(&symbol, name: name, at: time)
                state.symbols[name] = symbol
            }
            return messages
        }
    }

    private static func seeded(_ market: MarketPair, seed: UInt64, at time: Date) -> Symbol? {
        guard let reference = MockPricing.reference(market, at: time) else { return nil }
        var symbol = Symbol(market: market, book: L2Book(market: market), depth: 10, generator: SeededGenerator(seed: seed, stream: "kraken-ws:\(market.symbol)"))
        let tick = MockPricing.tick(for: reference)
        let mid = MockPricing.snap(reference, tick: tick)
        var bids: [BookLevel] = []
        var asks: [BookLevel] = []
        for level in 1...25 {
            bids.append(BookLevel(price: MockPricing.offset(mid, ticks: -level * 2, tick: tick), size: size(&symbol, at: time)))
            asks.append(BookLevel(price: MockPricing.offset(mid, ticks: level * 2, tick: tick), size: size(&symbol, at: time)))
        }
        try? symbol.book.replace(bids: bids, asks: asks, sequence: 0)
        return symbol
    }

    private static func size(_ symbol: inout Symbol, at time: Date) -> ExactDecimal {
        (try? MockPricing.size(symbol.market, dollars: symbol.generator.int(in: 50...8_000), at: time).rescaled(to: 8)) ?? ExactDecimal(1)
    }

    /// A level set or removed near the reference (its crossed levels removed first), or a trade at the best level.
    private static func step(_ symbol: inout Symbol, name: String, at time: Date) -> [String] {
        guard let reference = MockPricing.reference(symbol.market, at: time) else { return [] }
        let tick = MockPricing.tick(for: reference)
        let mid = MockPricing.snap(reference, tick: tick)
        var bids: [BookLevel] = []
        var asks: [BookLevel] = []
        let zero = (try? ExactDecimal.zero.rescaled(to: 8)) ?? .zero
        let (topBids, topAsks) = symbol.book.top(symbol.depth)
        for level in topBids where level.price >= mid { bids.append(BookLevel(price: level.price, size: zero)) }
        for level in topAsks where level.price <= mid { asks.append(BookLevel(price: level.price, size: zero)) }
        var messages: [String] = []
        let roll = symbol.generator.int(in: 0...9)
        let isBid = symbol.generator.int(in: 0...1) == 0
        if roll < 2, let best = isBid ? topBids.first : topAsks.first, (best.price < mid) == isBid {
            let traded = min(size(&symbol, at: time), best.size)
            let left = (try? best.size - traded) ?? .zero
            let level = BookLevel(price: best.price, size: left.isZero ? zero : left)
            if isBid { bids.append(level) } else { asks.append(level) }
            symbol.nextTrade += 1
            if symbol.trades {
                messages.append(#"{"channel":"trade","type":"update","data":[{"symbol":"\#(name)","side":"\#(isBid ? "sell" : "buy")","price":\#(best.price),"qty":\#(traded),"ord_type":"market","trade_id":\#(symbol.nextTrade),"timestamp":"\#(Self.time(time))"}]}"#)
            }
        } else {
            let ticks = symbol.generator.int(in: 1...40)
            let price = MockPricing.offset(mid, ticks: isBid ? -ticks : ticks, tick: tick)
            let level = BookLevel(price: price, size: roll < 4 ? zero : size(&symbol, at: time))
            if isBid { bids.append(level) } else { asks.append(level) }
        }
        for level in bids { _ = try? symbol.book.apply(side: .bid, price: level.price, size: level.size) }
        for level in asks { _ = try? symbol.book.apply(side: .ask, price: level.price, size: level.size) }
        symbol.book.truncate(to: symbol.depth)
        // As Kraken does, a level that comes into the subscribed depth when one leaves it is sent too.
        while symbol.book.count(.bid) < symbol.depth, let worst = symbol.book.top(symbol.depth).bids.last ?? topBids.last {
            let level = BookLevel(price: MockPricing.offset(min(worst.price, mid), ticks: -2, tick: tick), size: size(&symbol, at: time))
            guard (try? symbol.book.apply(side: .bid, price: level.price, size: level.size)) != nil else { break }
            bids.append(level)
        }
        while symbol.book.count(.ask) < symbol.depth, let worst = symbol.book.top(symbol.depth).asks.last ?? topAsks.last {
            let level = BookLevel(price: MockPricing.offset(max(worst.price, mid), ticks: 2, tick: tick), size: size(&symbol, at: time))
            guard (try? symbol.book.apply(side: .ask, price: level.price, size: level.size)) != nil else { break }
            asks.append(level)
        }
        messages.insert(book(symbol, name: name, type: "update", bids: bids, asks: asks, at: time), at: 0)
        if !messages.dropFirst().isEmpty, symbol.tickers { messages.append(ticker(symbol, name: name, type: "update")) }
        return messages
    }

    private static func book(_ symbol: Symbol, name: String, type: String, bids: [BookLevel], asks: [BookLevel], at time: Date?) -> String {
        func levels(_ levels: [BookLevel]) -> String { levels.map { #"{"price":\#($0.price),"qty":\#($0.size)}"# }.joined(separator: ",") }
        let stamp = time.map { #","timestamp":"\#(Self.time($0))""# } ?? ""
        return #"{"channel":"book","type":"\#(type)","data":[{"symbol":"\#(name)","bids":[\#(levels(bids))],"asks":[\#(levels(asks))],"checksum":\#(symbol.book.krakenChecksum())\#(stamp)}]}"#
    }

    private static func ticker(_ symbol: Symbol, name: String, type: String) -> String {
        let (bids, asks) = symbol.book.top(1)
        guard let bid = bids.first, let ask = asks.first else { return #"{"channel":"heartbeat"}"# }
        return #"{"channel":"ticker","type":"\#(type)","data":[{"symbol":"\#(name)","bid":\#(bid.price),"bid_qty":\#(bid.size),"ask":\#(ask.price),"ask_qty":\#(ask.size),"last":\#(bid.price)}]}"#
    }

    private static func time(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
