import Foundation

/// One value of a stream as a subscriber holds it: its topic, where it stands in the topic's sequence,
/// and the typed payload.
public struct StreamUpdate<Value: Sendable>: Sendable {
    /// The topic it came on.
    public var topic: Topic
    /// The envelope's sequence number.
    public var seq: UInt64
    /// When it was published.
    public var time: Date
    /// The envelope's source: a feed or a service.
    public var source: String
    /// The payload.
    public var value: Value

    /// An update.
    public init(topic: Topic, seq: UInt64, time: Date, source: String, value: Value) {
        self.topic = topic
        self.seq = seq
        self.time = time
        self.source = source
        self.value = value
    }
}

extension StreamUpdate: Equatable where Value: Equatable {}

/// What a typed stream reports, in order (the Clone pattern underneath: a late joiner or one that lost
/// messages gets a whole snapshot, then only newer updates).
public enum StreamEvent<Value: Sendable>: Sendable {
    /// The publisher's whole state under the subscription: replace what you hold.
    case snapshot([StreamUpdate<Value>])
    /// One newer value of a topic.
    case update(StreamUpdate<Value>)
    /// The publisher retracted the topic (an envelope of type `deleted`): forget its value.
    case removed(Topic)
    /// The publisher is silent or unreachable; the last values stand while the stream recovers.
    case unavailable(reason: String)
}

extension StreamEvent: Equatable where Value: Equatable {}
