import Foundation

/// The payload of `heartbeat.<service>`.
public struct Heartbeat: Codable, Sendable, Equatable {
    /// The publishing service.
    public var service: String
    /// The publisher's run identity; a new value means it restarted.
    public var instance: String
    /// How many topics it retains.
    public var topics: Int
    /// Messages that did not reach every subscriber: published after its socket closed, or lost by a
    /// subscriber a high-water mark behind (``Publisher/droppedMessages``).
    public var dropped: Int
    /// How often heartbeats come.
    public var intervalMilliseconds: Int

    /// A heartbeat.
    public init(service: String, instance: String, topics: Int, dropped: Int, intervalMilliseconds: Int) {
        self.service = service
        self.instance = instance
        self.topics = topics
        self.dropped = dropped
        self.intervalMilliseconds = intervalMilliseconds
    }
}

/// A publisher's last values: the answer to the `snapshot` method (Clone pattern).
///
/// Each entry is exactly what the stream would carry: its topic, and the envelope
/// JSON as text, with the sequence number it stands at. The topics it holds no value of
/// (retracted) are in ``retracted`` with their sequence numbers, so a subscriber takes
/// their next message without seeing a gap.
public struct Snapshot: Codable, Sendable, Equatable {
    /// One retained topic.
    public struct Entry: Codable, Sendable, Equatable {
        /// The topic.
        public var topic: Topic
        /// The envelope's sequence number.
        public var seq: UInt64
        /// The envelope JSON.
        public var body: String

        /// An entry for `topic` at `seq`.
        public init(topic: Topic, seq: UInt64, body: String) {
            self.topic = topic
            self.seq = seq
            self.body = body
        }
    }

    /// The publishing service.
    public var publisher: String
    /// The publisher's run identity.
    public var instance: String
    /// The topics, sorted.
    public var entries: [Entry]
    /// The topics under the prefix the publisher numbers but holds no value of (retracted, or only ever
    /// published without `retain`), each with the sequence number it stands at. On the wire a JSON object
    /// keyed by topic, left out when empty; a snapshot without it (an older publisher) has none.
    public var retracted: [Topic: UInt64]

    /// A snapshot of `publisher`'s run `instance`.
    public init(publisher: String, instance: String, entries: [Entry], retracted: [Topic: UInt64] = [:]) {
        self.publisher = publisher
        self.instance = instance
        self.entries = entries
        self.retracted = retracted
    }

    private enum CodingKeys: String, CodingKey { case publisher, instance, entries, retracted }

    /// A member of `retracted`: a topic.
    private struct TopicKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Reads a snapshot; a missing (or `null`) `retracted` is empty, a member of it that is not a topic is refused.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        publisher = try container.decode(String.self, forKey: .publisher)
        instance = try container.decode(String.self, forKey: .instance)
        entries = try container.decode([Entry].self, forKey: .entries)
        retracted = [:]
        guard container.contains(.retracted), try !container.decodeNil(forKey: .retracted) else { return }
        let members = try container.nestedContainer(keyedBy: TopicKey.self, forKey: .retracted)
        for key in members.allKeys {
            guard let topic = try? Topic(key.stringValue) else {
                throw DecodingError.dataCorruptedError(forKey: key, in: members, debugDescription: "\"\(key.stringValue)\" is not a topic")
            }
            retracted[topic] = try members.decode(UInt64.self, forKey: key)
        }
    }

    /// Writes the members in declaration order, `retracted` sorted by topic and only when it has any.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(publisher, forKey: .publisher)
        try container.encode(instance, forKey: .instance)
        try container.encode(entries, forKey: .entries)
        guard !retracted.isEmpty else { return }
        var members = container.nestedContainer(keyedBy: TopicKey.self, forKey: .retracted)
        for (topic, seq) in retracted.sorted(by: { $0.key < $1.key }) {
            try members.encode(seq, forKey: TopicKey(stringValue: topic.rawValue))
        }
    }
}

/// Parameters of the `snapshot` method.
public struct SnapshotRequest: Codable, Sendable, Equatable {
    /// Only topics starting with this ("" for all).
    public var prefix: String

    /// A request for every topic under `prefix`.
    public init(prefix: String = "") { self.prefix = prefix }
}
