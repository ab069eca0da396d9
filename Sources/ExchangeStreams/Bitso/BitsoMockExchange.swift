import Foundation
import Market
import Money
import Synchronization

/// A synthetic Bitso for ``BitsoStreamClient/mock(seed:interval:)``: per subscribed book, resting orders around the
/// reference price, and each step one numbered change (a new order, a cancel, or a trade that fills an order) in
/// Bitso's own message shapes, so the feed's real parser and book run on it.
final class BitsoMockExchange: Sendable {
    private struct Order {
        var side: Int
        var price: ExactDecimal
        var amount: ExactDecimal
    }

    private struct Book {
        var market: MarketPair
        var orders: [String: Order] = [:]
        var sequence: Int64 = 1_000
        var nextOrder = 0
        var nextTrade: Int64 = 5_000
        var generator: SeededGenerator
    }

    private let state: Mutex<(seed: UInt64, books: [String: Book])>

    init(seed: UInt64) {
        state = Mutex((seed: seed, books: [:]))
    }

    /// The answer to a message the feed sent: a subscription's acknowledgement (and the book, set up).
    func received(_ text: String) -> [String] {
        struct Subscribe: Decodable {
            var action: String
            var book: String
            var type: String
        }
        guard let request = try? JSONDecoder().decode(Subscribe.self, from: Data(text.utf8)), request.action == "subscribe",
              let market = MarketPair(bitsoBook: request.book)
        else { return [#"{"error":"invalid message","time":\#(Self.milliseconds(Date()))}"#] }
        let now = Date()
        state.withLock { state in
            if state.books[request.book] == nil, let book = Self.seeded(market, seed: state.seed, at: now) {
                state.books[request.book] = book
            }
        }
        return [#"{"action":"subscribe","response":"ok","time":\#(Self.milliseconds(now)),"type":"\#(request.type)","book":"\#(request.book)"}"#]
    }

    /// The REST order book of `book`, at its current sequence.
    func orderBook(_ book: String) throws -> BitsoOrderBook {
        try state.withLock { state in
            guard let book = state.books[book] else { throw HTTPStatusError(url: "mock /v3/order_book/?book=\(book)", status: 404) }
            let orders = book.orders.sorted { $0.key < $1.key }
            let bids = orders.filter { $0.value.side == 0 }.map { BitsoBookOrder(price: $0.value.price, amount: $0.value.amount, oid: $0.key) }
            let asks = orders.filter { $0.value.side == 1 }.map { BitsoBookOrder(price: $0.value.price, amount: $0.value.amount, oid: $0.key) }
            return BitsoOrderBook(bids: bids, asks: asks, sequence: book.sequence)
        }
    }

    /// One step of every book at `time`.
    func step(_ time: Date) -> [String] {
        state.withLock { state in
            var messages: [String] = []
            for name in state.books.keys.sorted() {
                guard var book = state.books[name] else { continue }
                messages += Self.step(&book, name: name, at: time)
                state.books[name] = book
            }
            return messages
        }
    }

    /// A book of ten orders a side around the reference price.
    private static func seeded(_ market: MarketPair, seed: UInt64, at time: Date) -> Book? {
        guard let reference = MockPricing.reference(market, at: time) else { return nil }
        var book = Book(market: market, generator: SeededGenerator(seed: seed, stream: "bitso-ws:\(market.symbol)"))
        let tick = MockPricing.tick(for: reference)
        let mid = MockPricing.snap(reference, tick: tick)
        for level in 1...10 {
            for side in [0, 1] {
                let price = MockPricing.offset(mid, ticks: side == 0 ? -level * 3 : level * 3, tick: tick)
                let amount = MockPricing.size(market, dollars: book.generator.int(in: 50...5_000), at: time)
                book.orders[newID(&book)] = Order(side: side, price: price, amount: amount)
            }
        }
        return book
    }

    private static func newID(_ book: inout Book) -> String {
        book.nextOrder += 1
        return "mock\(book.market.base)\(book.nextOrder)"
    }

    /// One change of `book`: a trade against the best order (one step in five), a cancel of the order farthest from
    /// the reference when a side is long, or a new order near it (on a side short of ten price levels first, at a new level); orders the
    /// moving reference crossed are cancelled.
    private static func step(_ book: inout Book, name: String, at time: Date) -> [String] {
        guard let reference = MockPricing.reference(book.market, at: time) else { return [] }
        let tick = MockPricing.tick(for: reference)
        let mid = MockPricing.snap(reference, tick: tick)
        var messages: [String] = []
        let crossed = book.orders.filter { ($0.value.side == 0 && $0.value.price >= mid) || ($0.value.side == 1 && $0.value.price <= mid) }
        for (id, order) in crossed.sorted(by: { $0.key < $1.key }) {
            book.orders[id] = nil
            messages.append(diff(&book, name: name, id: id, order: order, status: "cancelled", at: time))
        }
        let roll = book.generator.int(in: 0...9)
        if roll < 2, let (id, order) = best(book, side: book.generator.int(in: 0...1)) {
            let filled = MockPricing.size(book.market, dollars: book.generator.int(in: 20...500), at: time)
            let left = (try? order.amount - filled) ?? .zero
            let amount = left > .zero ? filled : order.amount
            if left > .zero {
                book.orders[id]?.amount = left
                messages.append(diff(&book, name: name, id: id, order: Order(side: order.side, price: order.price, amount: left), status: "open", at: time))
            } else {
                book.orders[id] = nil
                messages.append(diff(&book, name: name, id: id, order: order, status: "completed", at: time))
            }
            book.nextTrade += 1
            let value = ((try? order.price * amount) ?? .zero).rounded(scale: 2)
            messages.append(#"{"type":"trades","book":"\#(name)","payload":[{"i":\#(book.nextTrade),"a":"\#(amount)","r":"\#(order.price)","v":"\#(value)","t":\#(order.side),"x":\#(milliseconds(time))}],"sent":\#(milliseconds(time))}"#)
        } else if roll < 4, book.orders.count > 24 {
            let side = book.generator.int(in: 0...1)
            let farthest = book.orders.filter { $0.value.side == side }.max { lhs, rhs in
                side == 0 ? lhs.value.price > rhs.value.price : lhs.value.price < rhs.value.price
            }
            if let (id, order) = farthest {
                book.orders[id] = nil
                messages.append(diff(&book, name: name, id: id, order: order, status: "cancelled", at: time))
            }
        } else {
            let bidPrices = Set(book.orders.values.filter { $0.side == 0 }.map(\.price))
            let askPrices = Set(book.orders.values.filter { $0.side == 1 }.map(\.price))
            let side = bidPrices.count < 10 && bidPrices.count <= askPrices.count ? 0 : askPrices.count < 10 ? 1 : book.generator.int(in: 0...1)
            let prices = side == 0 ? bidPrices : askPrices
            var ticks = book.generator.int(in: 1...30)
            var price = MockPricing.offset(mid, ticks: side == 0 ? -ticks : ticks, tick: tick)
            while prices.count < 10, prices.contains(price) {
                ticks += 1
                price = MockPricing.offset(mid, ticks: side == 0 ? -ticks : ticks, tick: tick)
            }
            let order = Order(side: side, price: price, amount: MockPricing.size(book.market, dollars: book.generator.int(in: 50...5_000), at: time))
            let id = newID(&book)
            book.orders[id] = order
            messages.append(diff(&book, name: name, id: id, order: order, status: "open", at: time))
        }
        return messages
    }

    /// The best order of `side` (0 bids, 1 asks).
    private static func best(_ book: Book, side: Int) -> (String, Order)? {
        let orders = book.orders.filter { $0.value.side == side }.sorted { $0.key < $1.key }
        let best = side == 0 ? orders.max { $0.value.price < $1.value.price } : orders.min { $0.value.price < $1.value.price }
        return best.map { ($0.key, $0.value) }
    }

    /// A `diff-orders` message of one order change, numbered next.
    private static func diff(_ book: inout Book, name: String, id: String, order: Order, status: String, at time: Date) -> String {
        book.sequence += 1
        let value = ((try? order.price * order.amount) ?? .zero).rounded(scale: 2)
        let amount = status == "completed" ? "" : #""a":"\#(order.amount)","v":"\#(value)","#
        return #"{"type":"diff-orders","book":"\#(name)","sequence":\#(book.sequence),"payload":[{"o":"\#(id)","d":\#(milliseconds(time)),"r":"\#(order.price)","t":\#(order.side),\#(amount)"s":"\#(status)"}],"sent":\#(milliseconds(time))}"#
    }

    private static func milliseconds(_ time: Date) -> Int64 { Int64((time.timeIntervalSince1970 * 1_000).rounded(.down)) }
}
