import Foundation
import Market
import Money

/// One price level of a Kraken v2 `book` message, its digits kept as sent.
public struct KrakenLevel: Sendable, Hashable, Decodable {
    /// The price.
    public var price: ExactDecimal
    /// The quantity at it; 0 removes the level.
    public var qty: ExactDecimal

    /// A level.
    public init(price: ExactDecimal, qty: ExactDecimal) {
        self.price = price
        self.qty = qty
    }
}

/// One symbol's part of a Kraken v2 `book` snapshot or update.
public struct KrakenBookData: Sendable, Hashable, Decodable {
    /// The symbol, e.g. `BTC/USD`.
    public var symbol: String
    /// Bid changes (a snapshot: the bids, best first).
    public var bids: [KrakenLevel]
    /// Ask changes.
    public var asks: [KrakenLevel]
    /// CRC32 of the top 10 levels after this message.
    public var checksum: UInt32
    /// When the exchange made the change (updates; snapshots may omit it).
    public var timestamp: Date?

    /// A book message's data.
    public init(symbol: String, bids: [KrakenLevel], asks: [KrakenLevel], checksum: UInt32, timestamp: Date? = nil) {
        self.symbol = symbol
        self.bids = bids
        self.asks = asks
        self.checksum = checksum
        self.timestamp = timestamp
    }

    enum CodingKeys: String, CodingKey { case symbol, bids, asks, checksum, timestamp }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        symbol = try container.decode(String.self, forKey: .symbol)
        bids = try container.decodeIfPresent([KrakenLevel].self, forKey: .bids) ?? []
        asks = try container.decodeIfPresent([KrakenLevel].self, forKey: .asks) ?? []
        let text = try container.decode(String.self, forKey: .checksum)
        guard let checksum = UInt32(text) else {
            throw DecodingError.dataCorruptedError(forKey: .checksum, in: container, debugDescription: "checksum \(text) is not a UInt32")
        }
        self.checksum = checksum
        timestamp = try container.decodeIfPresent(String.self, forKey: .timestamp).map { text in
            guard let date = KrakenTime.parse(text) else {
                throw DecodingError.dataCorruptedError(forKey: .timestamp, in: container, debugDescription: "time \(text)")
            }
            return date
        }
    }
}

/// One trade of Kraken v2's `trade` channel.
public struct KrakenTrade: Sendable, Hashable, Decodable {
    /// The symbol.
    public var symbol: String
    /// The taker's side, `buy` or `sell`.
    public var side: String
    /// The price.
    public var price: ExactDecimal
    /// The quantity.
    public var qty: ExactDecimal
    /// The trade's id.
    public var tradeID: String
    /// When it matched.
    public var timestamp: String

    enum CodingKeys: String, CodingKey {
        case symbol, side, price, qty, tradeID = "trade_id", timestamp
    }
}

/// One symbol's Kraken v2 `ticker`.
public struct KrakenTicker: Sendable, Hashable, Decodable {
    /// The symbol.
    public var symbol: String
    /// Best bid.
    public var bid: ExactDecimal?
    /// Best ask.
    public var ask: ExactDecimal?
    /// Last trade's price.
    public var last: ExactDecimal
    /// Volume of the last 24 hours, base currency.
    public var volume: ExactDecimal?
    /// Volume-weighted average price of the last 24 hours.
    public var vwap: ExactDecimal?
    /// Lowest price of the last 24 hours.
    public var low: ExactDecimal?
    /// Highest price of the last 24 hours.
    public var high: ExactDecimal?
    /// Price change of the last 24 hours.
    public var change: ExactDecimal?
    /// Price change of the last 24 hours, percent.
    public var changePercent: ExactDecimal?

    enum CodingKeys: String, CodingKey {
        case symbol, bid, ask, last, volume, vwap, low, high, change, changePercent = "change_pct"
    }
}

/// A message of Kraken's websocket v2, by its `channel` (or `method` for an answer to a request).
public enum KrakenMessage: Sendable, Hashable {
    /// A `book` snapshot (`isSnapshot`) or update.
    case book(isSnapshot: Bool, [KrakenBookData])
    /// `trade` messages.
    case trades([KrakenTrade])
    /// `ticker` messages.
    case tickers([KrakenTicker])
    /// `heartbeat`, `status`, or a request's successful answer.
    case ignored
    /// A request's answer with `"success": false`, or an error.
    case error(String)

    /// Parses one text message, keeping every number's digits as sent.
    public static func parse(_ text: String) throws(ExchangeEvent) -> Self {
        struct Envelope: Decodable {
            var channel: String?
            var type: String?
            var method: String?
            var success: Bool?
            var error: String?
        }
        struct Frame<Item: Decodable>: Decodable { var data: [Item] }
        let data = Data(JSONNumberText.quotingNumbers(text).utf8)
        let decoder = JSONDecoder()
        do {
            let envelope = try decoder.decode(Envelope.self, from: data)
            if envelope.method != nil {
                return envelope.success == false ? .error(envelope.error ?? "request refused: \(text.prefix(200))") : .ignored
            }
            switch envelope.channel {
            case "book":
                return .book(isSnapshot: envelope.type == "snapshot", try decoder.decode(Frame<KrakenBookData>.self, from: data).data)
            case "trade": return .trades(try decoder.decode(Frame<KrakenTrade>.self, from: data).data)
            case "ticker": return .tickers(try decoder.decode(Frame<KrakenTicker>.self, from: data).data)
            case "heartbeat", "status", "instrument": return .ignored
            case let channel?: throw ExchangeEvent(.malformed, "Kraken channel \(channel.debugDescription) was not subscribed")
            case nil:
                if let error = envelope.error { return .error(error) }
                throw ExchangeEvent(.malformed, "Kraken message without a channel: \(text.prefix(200))")
            }
        } catch let event as ExchangeEvent {
            throw event
        } catch {
            throw ExchangeEvent(.malformed, "Kraken message \(text.prefix(200).debugDescription): \(error)")
        }
    }
}

/// Kraken's RFC 3339 times with up to nine fractional digits, `2024-10-03T02:46:57.050170Z`.
enum KrakenTime {
    static func parse(_ text: String) -> Date? {
        guard text.hasSuffix("Z") else { return nil }
        let body = text.dropLast()
        let parts = body.split(separator: ".", maxSplits: 1)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime]
        guard let seconds = formatter.date(from: parts[0] + "Z") else { return nil }
        guard parts.count == 2 else { return seconds }
        let fraction = parts[1]
        guard !fraction.isEmpty, fraction.count <= 9, fraction.allSatisfy(\.isNumber), let value = Int(fraction) else { return nil }
        let nanoseconds = value * Int(pow(10, Double(9 - fraction.count)))
        return seconds.addingTimeInterval(TimeInterval(nanoseconds) / 1_000_000_000)
    }
}

extension MarketPair {
    /// The market of a Kraken v2 symbol, `BTC/USD` -> BTC-USD; nil unless two codes joined by `/`.
    public init?(krakenSymbol: String) {
        let parts = krakenSymbol.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(base: String(parts[0]), quote: String(parts[1]))
    }

    /// Kraken v2's symbol, BTC-USD -> `BTC/USD`.
    public var krakenSymbol: String { "\(base)/\(quote)" }
}
