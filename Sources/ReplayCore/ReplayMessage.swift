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
                var quote = try Wire.decode(Envelope<Quote>.self, from: record.envelope).data
                if let shift { quote.time = quote.time?.addingTimeInterval(shift) }
                return FeedPublication(quote, on: StreamTopic(topic, of: RatesFetcherAPI.quotes))
            case .rate:
                return FeedPublication(try Wire.decode(Envelope<ExchangeRate>.self, from: record.envelope).data, on: StreamTopic(topic, of: RatesFetcherAPI.rates))
            case .limits:
                return FeedPublication(try Wire.decode(Envelope<BookInfo>.self, from: record.envelope).data, on: StreamTopic(topic, of: RatesFetcherAPI.limits))
            case .book:
                var book = try Wire.decode(Envelope<BookDepth>.self, from: record.envelope).data
                if let shift { book.time = book.time?.addingTimeInterval(shift) }
                return FeedPublication(book, on: StreamTopic(topic, of: RatesFetcherAPI.books))
            case .trade:
                var trade = try Wire.decode(Envelope<MarketTrade>.self, from: record.envelope).data
                if let shift { trade.time = trade.time.addingTimeInterval(shift) }
                return FeedPublication(trade, on: StreamTopic(topic, of: RatesFetcherAPI.trades))
            case .coin:
                return FeedPublication(try Wire.decode(Envelope<CoinInfo>.self, from: record.envelope).data, on: StreamTopic(topic, of: RatesFetcherAPI.coins))
            }
        } catch {
            throw CaptureError(file: file, record: number, offset: offset, "the envelope on \(record.topic) is not a \(kind.rawValue) envelope: \(error)")
        }
    }
}
