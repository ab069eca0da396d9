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
/// JSON as text, with the sequence number it stands at.
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

    /// A snapshot of `publisher`'s run `instance`.
    public init(publisher: String, instance: String, entries: [Entry]) {
        self.publisher = publisher
        self.instance = instance
        self.entries = entries
    }
}

/// Parameters of the `snapshot` method.
public struct SnapshotRequest: Codable, Sendable, Equatable {
    /// Only topics starting with this ("" for all).
    public var prefix: String

    /// A request for every topic under `prefix`.
    public init(prefix: String = "") { self.prefix = prefix }
}
