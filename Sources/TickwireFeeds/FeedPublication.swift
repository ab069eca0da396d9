import Bus
import BusContract
import Foundation

/// One value a feed publishes: a typed payload on its topic (`quote.<feed>.<BASE>-<QUOTE>`, `coin.<feed>.<SYMBOL>`, ...).
///
/// A feed's job returns these; a ``FeedSink`` (a ``FeedConnection`` to a remote hub, or the hub's own publisher in
/// process) numbers and sends them.
public struct FeedPublication: Sendable {
    /// Where it goes.
    public let topic: Topic
    /// The payload, to compare with the topic's last one.
    let payload: any Sendable
    private let equalsPayload: @Sendable (any Sendable) -> Bool
    private let envelope: @Sendable (_ seq: UInt64, _ time: Date, _ source: String) throws -> Data
    private let onPublisher: @Sendable (Publisher) throws -> UInt64?

    /// `payload` on `topic`, in an envelope of the topic's kind.
    public init<Payload: Codable & Sendable & Equatable>(_ payload: Payload, on topic: StreamTopic<Payload>) {
        self.topic = topic.topic
        self.payload = payload
        self.equalsPayload = { ($0 as? Payload) == payload }
        let kind = String(topic.topic.kind)
        self.envelope = { seq, time, source in
            try Wire.encode(Envelope(type: kind, seq: seq, time: time, source: source, trace: .current, data: payload))
        }
        self.onPublisher = { try $0.publish(payload, on: topic, onlyIfChanged: true) }
    }

    /// `payload` on `topic` whose wire JSON is `encoded` already (a replay forwards a capture's bytes): its envelope
    /// carries those bytes as `data` rather than encoding `payload` again, which it keeps to compare and for a hub in
    /// process.
    public init<Payload: Codable & Sendable & Equatable>(_ payload: Payload, encoded: Data, on topic: StreamTopic<Payload>) {
        self.topic = topic.topic
        self.payload = payload
        self.equalsPayload = { ($0 as? Payload) == payload }
        let kind = String(topic.topic.kind)
        self.envelope = { seq, time, source in
            // The envelope with `0` as its data, written by the wire's encoder, ends `0}`: the bytes replace that `0`.
            var envelope = try Wire.encode(Envelope(type: kind, seq: seq, time: time, source: source, trace: .current, data: 0))
            envelope.removeLast(2)
            envelope.append(encoded)
            envelope.append(UInt8(ascii: "}"))
            return envelope
        }
        self.onPublisher = { try $0.publish(payload, on: topic, onlyIfChanged: true) }
    }

    /// Whether it carries the same payload as `other` (of any topic).
    public func hasSamePayload(as other: FeedPublication) -> Bool { equalsPayload(other.payload) }

    /// Its envelope's JSON, numbered `seq`, published at `time` by `source`.
    public func envelope(seq: UInt64, time: Date, source: String) throws -> Data { try envelope(seq, time, source) }

    /// Publishes it on a hub's own `publisher` (numbered by it), unless it equals the topic's last value there.
    @discardableResult
    public func publish(with publisher: Publisher) throws -> UInt64? { try onPublisher(publisher) }
}
