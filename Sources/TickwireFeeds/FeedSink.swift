import Bus
import Synchronization

/// Where a feed's publications go: a witness over a ``FeedConnection`` to a remote hub (`connection`), the hub's
/// own ``Publisher`` in process (`publisher`), or a recorder in tests (`recording`).
public struct FeedSink: Sendable {
    /// The feed's name, the source of every topic it takes.
    public var name: String
    /// Publishes one value unless it equals its topic's last; returns its sequence number, nil when skipped.
    public var publish: @Sendable (_ publication: FeedPublication) throws -> UInt64?

    /// A sink of its closure.
    public init(name: String, publish: @escaping @Sendable (_ publication: FeedPublication) throws -> UInt64?) {
        self.name = name
        self.publish = publish
    }
}

extension FeedSink {
    /// Sends to a hub's ingest endpoint through `connection`.
    public static func connection(_ connection: FeedConnection) -> Self {
        Self(name: connection.name) { try connection.publish($0) }
    }

    /// Publishes on a hub's own `publisher` in process, as a built-in feed `name` does.
    public static func publisher(_ publisher: Publisher, name: String) -> Self {
        Self(name: name) { try $0.publish(with: publisher) }
    }

    /// Takes every publication and hands it to `record`, numbering each topic's from 1 (tests).
    public static func recording(name: String, _ record: @escaping @Sendable (FeedPublication, UInt64) -> Void) -> Self {
        let seqs = Mutex<[String: UInt64]>([:])
        return Self(name: name) { publication in
            let seq = seqs.withLock { seqs -> UInt64 in
                seqs[publication.topic.rawValue, default: 0] += 1
                return seqs[publication.topic.rawValue, default: 0]
            }
            record(publication, seq)
            return seq
        }
    }

    /// Refuses every publication with `error` (a hub that is gone, in tests).
    public static func failing(name: String, _ error: any Error) -> Self {
        Self(name: name) { _ in throw error }
    }
}
