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
    /// The trace context it was published in, so its consumer continues that trace; nil when it carries none.
    public var trace: TraceContext?

    /// An update, with the trace context it came in if any.
    public init(topic: Topic, seq: UInt64, time: Date, source: String, value: Value, trace: TraceContext? = nil) {
        self.topic = topic
        self.seq = seq
        self.time = time
        self.source = source
        self.value = value
        self.trace = trace
    }
}

extension StreamUpdate: Equatable where Value: Equatable {
    /// Equal when all but the trace context are: the same value, whichever trace brought it.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.topic == rhs.topic && lhs.seq == rhs.seq && lhs.time == rhs.time && lhs.source == rhs.source && lhs.value == rhs.value
    }
}

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

extension StreamEvent {
    /// The trace context of an update, nil for the other events (a snapshot's values each have their own).
    public var trace: TraceContext? {
        if case .update(let update) = self { update.trace } else { nil }
    }
}
