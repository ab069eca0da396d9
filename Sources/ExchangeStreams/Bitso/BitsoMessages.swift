import Foundation
import Market
import Money

/// One change of one order on Bitso's `diff-orders` channel: `{"o", "r", "t", "a", "s", "d"}`.
public struct BitsoOrderChange: Sendable, Hashable, Codable {
    /// The order's id (`o`).
    public var id: String
    /// Its price (`r`, the rate), in the quote currency.
    public var price: ExactDecimal
    /// `t`: 0 a buy order (a bid), 1 a sell order (an ask).
    public var side: Int
    /// Its remaining amount in the base currency (`a`); absent from some `completed` entries.
    public var amount: ExactDecimal?
    /// `open`, `cancelled` or `completed` (`s`); an order that is not `open` leaves the book.
    public var status: String?

    /// A change.
    public init(id: String, price: ExactDecimal, side: Int, amount: ExactDecimal?, status: String?) {
        self.id = id
        self.price = price
        self.side = side
        self.amount = amount
        self.status = status
    }

    enum CodingKeys: String, CodingKey {
        case id = "o", price = "r", side = "t", amount = "a", status = "s"
    }
}

/// One `diff-orders` message: a book's changes numbered by its `sequence`.
public struct BitsoDiff: Sendable, Hashable, Codable {
    /// The book, e.g. `btc_mxn`.
    public var book: String
    /// The book's sequence number: each message is the previous one's plus one.
    public var sequence: Int64
    /// The changes.
    public var payload: [BitsoOrderChange]
    /// When Bitso sent it, in milliseconds since 1970.
    public var sent: Int64?

    /// A diff.
    public init(book: String, sequence: Int64, payload: [BitsoOrderChange], sent: Int64? = nil) {
        self.book = book
        self.sequence = sequence
        self.payload = payload
        self.sent = sent
    }
}

/// One trade on Bitso's `trades` channel: `{"i", "a", "r", "v", "t", "x"}`.
public struct BitsoTrade: Sendable, Hashable, Codable {
    /// The trade's id (`i`).
    public var id: Int64
    /// The amount in the base currency (`a`).
    public var amount: ExactDecimal
    /// The price (`r`).
    public var price: ExactDecimal
    /// The maker's side (`t`): 0 a buy (so the taker sold), 1 a sell (the taker bought).
    public var makerSide: Int?
    /// When it matched, in milliseconds since 1970 (`x`; absent from older messages).
    public var time: Int64?

    enum CodingKeys: String, CodingKey {
        case id = "i", amount = "a", price = "r", makerSide = "t", time = "x"
    }
}

/// One order of Bitso's whole order book (`GET /v3/order_book/?book=...&aggregate=false`).
public struct BitsoBookOrder: Sendable, Hashable, Codable {
    /// The price.
    public var price: ExactDecimal
    /// The amount in the base currency.
    public var amount: ExactDecimal
    /// The order's id (`oid`); an aggregated book has none.
    public var oid: String?

    /// An order.
    public init(price: ExactDecimal, amount: ExactDecimal, oid: String?) {
        self.price = price
        self.amount = amount
        self.oid = oid
    }
}

/// Bitso's REST order book and the `sequence` it stands at.
public struct BitsoOrderBook: Sendable, Hashable {
    /// Buy orders.
    public var bids: [BitsoBookOrder]
    /// Sell orders.
    public var asks: [BitsoBookOrder]
    /// The diff-orders sequence number the book includes.
    public var sequence: Int64

    /// A book.
    public init(bids: [BitsoBookOrder], asks: [BitsoBookOrder], sequence: Int64) {
        self.bids = bids
        self.asks = asks
        self.sequence = sequence
    }

    /// Parses the REST answer `{"success": true, "payload": {"asks", "bids", "updated_at", "sequence": "27214"}}`.
    public static func parse(_ data: Data) throws(ExchangeEvent) -> Self {
        struct Answer: Decodable {
            struct Payload: Decodable {
                var asks: [BitsoBookOrder]
                var bids: [BitsoBookOrder]
                var sequence: String
            }
            var success: Bool
            var payload: Payload?
        }
        let answer: Answer
        do {
            answer = try JSONDecoder().decode(Answer.self, from: data)
        } catch {
            throw ExchangeEvent(.malformed, "Bitso order book: \(error)")
        }
        guard answer.success, let payload = answer.payload else {
            throw ExchangeEvent(.exchangeError, "Bitso order book: \(String(decoding: data.prefix(200), as: UTF8.self))")
        }
        guard let sequence = Int64(payload.sequence) else {
            throw ExchangeEvent(.malformed, "Bitso order book: sequence \(payload.sequence.debugDescription) is not an integer")
        }
        return Self(bids: payload.bids, asks: payload.asks, sequence: sequence)
    }
}

/// A message of Bitso's websocket, by its `type`.
public enum BitsoMessage: Sendable, Hashable {
    /// A `diff-orders` message.
    case diff(BitsoDiff)
    /// A `trades` message: `book`'s trades, and when Bitso sent them.
    case trades(book: String, [BitsoTrade], sent: Int64?)
    /// The keep-alive, `{"type":"ka"}`.
    case keepAlive
    /// A subscription's answer: `ok`, or why not.
    case subscribed(type: String?, book: String?, response: String)
    /// An error Bitso sent (`{"error": "invalid message"}`, an unsupported book).
    case error(String)
    /// Another channel's message (`orders`), which the feed does not use.
    case other(type: String)

    /// Parses one text message.
    public static func parse(_ text: String) throws(ExchangeEvent) -> Self {
        struct Envelope: Decodable {
            var type: String?
            var book: String?
            var action: String?
            var response: String?
            var error: String?
        }
        struct Trades: Decodable {
            var book: String
            var payload: [BitsoTrade]
            var sent: Int64?
        }
        let data = Data(text.utf8)
        let decoder = JSONDecoder()
        do {
            let envelope = try decoder.decode(Envelope.self, from: data)
            if let error = envelope.error { return .error(error) }
            if envelope.action != nil {
                return .subscribed(type: envelope.type, book: envelope.book, response: envelope.response ?? "")
            }
            switch envelope.type {
            case "ka": return .keepAlive
            case "diff-orders": return .diff(try decoder.decode(BitsoDiff.self, from: data))
            case "trades":
                let trades = try decoder.decode(Trades.self, from: data)
                return .trades(book: trades.book, trades.payload, sent: trades.sent)
            case let type?: return .other(type: type)
            case nil: throw ExchangeEvent(.malformed, "Bitso message without a type: \(text.prefix(200))")
            }
        } catch let event as ExchangeEvent {
            throw event
        } catch {
            throw ExchangeEvent(.malformed, "Bitso message \(text.prefix(200).debugDescription): \(error)")
        }
    }
}

extension MarketPair {
    /// The market of a Bitso book name, `btc_mxn` -> BTC-MXN; nil unless two codes joined by `_`.
    public init?(bitsoBook: String) {
        let parts = bitsoBook.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(base: String(parts[0]), quote: String(parts[1]))
    }

    /// Bitso's name of the book, BTC-MXN -> `btc_mxn`.
    public var bitsoBook: String { "\(base.lowercased())_\(quote.lowercased())" }
}
