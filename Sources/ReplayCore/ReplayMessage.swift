import Bus
import BusContract
import Capture
import Foundation
import Market
import Money
import TickwireContract
import TickwireFeeds

/// The feed topics a replay plays: what a plugin may publish into a hub, less its own status and heartbeats.
/// Everything else in a capture (the hub's and services' output: `status.`, `heartbeat.`, `price.`, `candle.`, ...)
/// is skipped.
public enum ReplayKind: String, Sendable, CaseIterable {
    case quote, rate, limits, book, trade, coin
}

/// How fast a replay plays: at the capture's pace times a factor (1: real time), or as fast as the hub takes it.
public enum ReplaySpeed: Sendable, Equatable, CustomStringConvertible {
    /// The capture's gaps divided by the factor.
    case times(Double)
    /// No waiting between messages.
    case max

    /// `max`, or a factor above zero (`1`, `10`, `0.5`); nil otherwise.
    public init?(argument: String) {
        if argument == "max" {
            self = .max
        } else if let factor = Double(argument), factor > 0, factor.isFinite {
            self = .times(factor)
        } else {
            return nil
        }
    }

    public var description: String {
        switch self {
        case .max: "max"
        case .times(let factor): "\(factor)x"
        }
    }
}

/// A record the replay could not play: where it is in which file, and why. Nothing after it is sent.
public struct ReplayError: Error, Sendable, CustomStringConvertible {
    /// The bad record's place (file, record number, offset) and what was wrong with it.
    public var error: CaptureError

    public var description: String { "bad capture record, replay stopped: \(error)" }
}

/// One capture record made a feed's publication again.
public enum ReplayMessage {
    /// The feed name `topic` names (its second component) when it is a topic of a ``ReplayKind``; nil to skip it.
    public static func feed(of topic: String) -> String? {
        guard let parsed = try? Topic(topic), ReplayKind(rawValue: String(parsed.kind)) != nil,
              let source = parsed.source.map(String.init), FeedName.isValid(source) else { return nil }
        return source
    }

    /// `record`'s envelope read as its topic's payload and made a publication on the same topic, its times moved by
    /// `shift` when given (`--retime`); nil for a topic the replay skips.
    /// - Throws: a ``CaptureError`` naming the record when its envelope is not of its topic's type.
    public static func publication(
        of record: CaptureRecord, file: String, number: Int, offset: Int64, shift: TimeInterval? = nil
    ) throws(CaptureError) -> FeedPublication? {
        guard feed(of: record.topic) != nil, let topic = try? Topic(record.topic), let kind = ReplayKind(rawValue: String(topic.kind)) else {
            return nil
        }
        do {
            switch kind {
            case .quote:
                guard let shift else { return try forward(Quote.self, of: record, on: StreamTopic(topic, of: RatesFetcherAPI.quotes)) }
                var quote = try Wire.decode(Envelope<Quote>.self, from: record.envelope).data
                quote.time = quote.time?.addingTimeInterval(shift)
                return FeedPublication(quote, on: StreamTopic(topic, of: RatesFetcherAPI.quotes))
            case .rate:
                return try forward(ExchangeRate.self, of: record, on: StreamTopic(topic, of: RatesFetcherAPI.rates))
            case .limits:
                return try forward(BookInfo.self, of: record, on: StreamTopic(topic, of: RatesFetcherAPI.limits))
            case .book:
                guard let shift else { return try forward(BookDepth.self, of: record, on: StreamTopic(topic, of: RatesFetcherAPI.books)) }
                var book = try Wire.decode(Envelope<BookDepth>.self, from: record.envelope).data
                book.time = book.time?.addingTimeInterval(shift)
                return FeedPublication(book, on: StreamTopic(topic, of: RatesFetcherAPI.books))
            case .trade:
                guard let shift else { return try forward(MarketTrade.self, of: record, on: StreamTopic(topic, of: RatesFetcherAPI.trades)) }
                var trade = try Wire.decode(Envelope<MarketTrade>.self, from: record.envelope).data
                trade.time = trade.time.addingTimeInterval(shift)
                return FeedPublication(trade, on: StreamTopic(topic, of: RatesFetcherAPI.trades))
            case .coin:
                return try forward(CoinInfo.self, of: record, on: StreamTopic(topic, of: RatesFetcherAPI.coins))
            }
        } catch {
            throw CaptureError(file: file, record: number, offset: offset, "the envelope on \(record.topic) is not a \(kind.rawValue) envelope: \(error)")
        }
    }

    /// `record`'s envelope checked to be a `Payload` envelope (decoded), and its `data` bytes forwarded as they are
    /// rather than encoded again (bench/PROFILE.md, "Replay": the encoding was 13 % of a replay's CPU); encoded again
    /// only when the member cannot be cut out.
    private static func forward<Payload: Codable & Sendable & Equatable>(
        _ type: Payload.Type, of record: CaptureRecord, on topic: StreamTopic<Payload>
    ) throws -> FeedPublication {
        let payload = try Wire.decode(Envelope<Payload>.self, from: record.envelope).data
        guard let data = EnvelopeData.bytes(in: record.envelope) else { return FeedPublication(payload, on: topic) }
        return FeedPublication(payload, encoded: data, on: topic)
    }
}

/// The bytes of an envelope's `data` member, found by skipping the top-level object's other members (strings, nested
/// values) without decoding them: hand-written because the decoder does not give a member's byte range. Used only on
/// an envelope that has just decoded, so it need not validate.
enum EnvelopeData {
    /// The value of the one top-level member named `data` (an unescaped key) of the JSON object `envelope`, nil when
    /// there is none or more than one.
    static func bytes(in envelope: Data) -> Data? {
        envelope.withUnsafeBytes { raw -> Data? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            var found: Range<Int>?
            skipSpace(bytes, &index)
            guard index < bytes.count, bytes[index] == UInt8(ascii: "{") else { return nil }
            index += 1
            while true {
                skipSpace(bytes, &index)
                let keyStart = index
                guard index < bytes.count, bytes[index] == UInt8(ascii: "\""), skipString(bytes, &index) else { return nil }
                let isData = bytes[keyStart..<index].elementsEqual("\"data\"".utf8)
                skipSpace(bytes, &index)
                guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
                index += 1
                skipSpace(bytes, &index)
                let start = index
                guard skipValue(bytes, &index) else { return nil }
                var end = index
                while end > start, isSpace(bytes[end - 1]) { end -= 1 }
                if isData {
                    guard found == nil else { return nil }
                    found = start..<end
                }
                skipSpace(bytes, &index)
                guard index < bytes.count else { return nil }
                if bytes[index] == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard bytes[index] == UInt8(ascii: "}"), let found else { return nil }
                return Data(bytes[found])
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\t")
    }

    private static func skipSpace(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) {
        while index < bytes.count, isSpace(bytes[index]) { index += 1 }
    }

    /// Past the string whose opening quote is at `index`; false when it does not end.
    private static func skipString(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Bool {
        index += 1
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\\"): index += 2
            case UInt8(ascii: "\""):
                index += 1
                return true
            default: index += 1
            }
        }
        return false
    }

    /// Past the value at `index`, up to the `,` or `}` after it; false when it does not end.
    private static func skipValue(_ bytes: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Bool {
        var depth = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""):
                guard skipString(bytes, &index) else { return false }
                if depth == 0 { return true }
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth += 1
                index += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if depth == 0 { return true }
                depth -= 1
                index += 1
                if depth == 0 { return true }
            case UInt8(ascii: ","):
                if depth == 0 { return true }
                index += 1
            default:
                index += 1
            }
        }
        return false
    }
}
