import Foundation
import Market
import Money

/// Bitso's JSON: `{"success": true, "payload": ...}` or `{"success": false, "error": {"code", "message"}}`.
enum BitsoWire {
    static let source = "bitso"

    private struct Envelope<Payload: Decodable>: Decodable {
        let success: Bool
        let payload: Payload?
        let error: APIError?
    }

    private struct ErrorEnvelope: Decodable {
        let success: Bool
        let error: APIError
    }

    private struct APIError: Decodable {
        let code: String
        let message: String
    }

    /// One book's limits. Bitso also sends `fees` (`flat_rate` and a volume `structure`), `tick_size` and
    /// `default_chart`; the books exercise ignores fees, so none of them is decoded and no change in their
    /// shape can fail a book.
    private struct Book: Decodable {
        let book: String
        let minimumPrice: ExactDecimal
        let maximumPrice: ExactDecimal
        let minimumAmount: ExactDecimal
        let maximumAmount: ExactDecimal
        let minimumValue: ExactDecimal
        let maximumValue: ExactDecimal

        enum CodingKeys: String, CodingKey {
            case book
            case minimumPrice = "minimum_price", maximumPrice = "maximum_price"
            case minimumAmount = "minimum_amount", maximumAmount = "maximum_amount"
            case minimumValue = "minimum_value", maximumValue = "maximum_value"
        }
    }

    private struct Ticker: Decodable {
        let book: String
        let last: ExactDecimal
        let high: ExactDecimal?
        let low: ExactDecimal?
        let volume: ExactDecimal?
        let vwap: ExactDecimal?
        let ask: ExactDecimal?
        let bid: ExactDecimal?
        let change24: ExactDecimal?
        let createdAt: String?

        enum CodingKeys: String, CodingKey {
            case book, last, high, low, volume, vwap, ask, bid
            case change24 = "change_24", createdAt = "created_at"
        }
    }

    static func books(from data: Data, origin: String) throws(FeedError) -> [BookInfo] {
        var books: [BookInfo] = []
        for book in try payload([Book].self, from: data, origin: origin) {
            books.append(BookInfo(
                book: book.book, market: try market(book: book.book, origin: origin, data),
                minimumAmount: book.minimumAmount, maximumAmount: book.maximumAmount,
                minimumPrice: book.minimumPrice, maximumPrice: book.maximumPrice,
                minimumValue: book.minimumValue, maximumValue: book.maximumValue
            ))
        }
        return books
    }

    static func ticker(from data: Data, origin: String) throws(FeedError) -> Quote {
        try quote(payload(Ticker.self, from: data, origin: origin), origin: origin, data)
    }

    static func tickers(from data: Data, origin: String) throws(FeedError) -> [Quote] {
        var quotes: [Quote] = []
        for ticker in try payload([Ticker].self, from: data, origin: origin) {
            quotes.append(try quote(ticker, origin: origin, data))
        }
        return quotes
    }

    /// Bitso's error body, if `data` is one.
    static func apiError(in data: Data, origin: String) -> FeedError? {
        guard let body = try? Wire.decode(ErrorEnvelope.self, from: data, origin: origin), !body.success else {
            return nil
        }
        return .api(source: source, code: body.error.code, message: body.error.message, url: origin)
    }

    /// Bitso's name for a pair's book: BTC-MXN is "btc_mxn".
    static func book(for market: MarketPair) -> String {
        "\(market.base.lowercased())_\(market.quote.lowercased())"
    }

    private static func payload<P: Decodable>(_ type: P.Type, from data: Data, origin: String) throws(FeedError) -> P {
        let envelope = try Wire.decode(Envelope<P>.self, from: data, origin: origin)
        guard envelope.success else {
            guard let error = envelope.error else {
                throw Wire.malformed(origin, reason: "success is false but there is no error", data)
            }
            throw .api(source: source, code: error.code, message: error.message, url: origin)
        }
        guard let payload = envelope.payload else {
            throw Wire.malformed(origin, reason: "success without a payload", data)
        }
        return payload
    }

    private static func quote(_ ticker: Ticker, origin: String, _ data: Data) throws(FeedError) -> Quote {
        Quote(
            source: source, market: try market(book: ticker.book, origin: origin, data), last: ticker.last,
            high: ticker.high, low: ticker.low, volume: ticker.volume, vwap: ticker.vwap,
            ask: ticker.ask, bid: ticker.bid, change24h: ticker.change24,
            time: try ticker.createdAt.map { text throws(FeedError) in try Wire.isoDate(text, origin: origin, data) }
        )
    }

    private static func market(book: String, origin: String, _ data: Data) throws(FeedError) -> MarketPair {
        let parts = book.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw Wire.malformed(origin, reason: "book \"\(book)\" is not base_quote", data)
        }
        return MarketPair(base: String(parts[0]), quote: String(parts[1]))
    }
}
