/// One topic of a stream, with the stream's payload type: what a publisher publishes on, so the
/// compiler checks that the payload fits the topic.
public struct StreamTopic<Payload: Codable & Sendable>: Sendable, Hashable, CustomStringConvertible {
    /// The topic.
    public let topic: Topic

    /// `topic`, which must belong to `spec`.
    public init(_ topic: Topic, of spec: TopicSpec<Payload>) {
        precondition(spec.matches(topic), "\(topic) is not a topic of \(spec)")
        self.topic = topic
    }

    /// The topic as sent in the first frame.
    public var rawValue: String { topic.rawValue }

    public var description: String { topic.rawValue }
}

extension TopicSpec {
    /// The topic `kind.source[.key]` of this stream.
    public func topic(source: String, key: String? = nil) throws(BusError) -> StreamTopic<Payload> {
        StreamTopic(try Topic(kind: kind, source: source, key: key), of: self)
    }

    /// A topic spelled out in code, e.g. `portfolio.changed`; it must follow the grammar and belong to this stream.
    public func constant(_ text: StaticString) -> StreamTopic<Payload> {
        StreamTopic(Topic(constant: text), of: self)
    }
}

/// The stream every publisher has besides its own.
public enum StandardStreams {
    /// `heartbeat.<service>`: the publisher is alive, once a second.
    public static let heartbeat = TopicSpec<Heartbeat>(kind: "heartbeat")
}
