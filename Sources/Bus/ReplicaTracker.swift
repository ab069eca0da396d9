import BusContract
/// The sequence bookkeeping of a subscriber (the ZeroMQ guide's Clone pattern), as a
/// plain value: which sequence number each topic stands at, and whether the next
/// message of a topic is new, stale or shows a gap.
public struct ReplicaTracker: Sendable, Equatable {
    /// What to do with a stream message.
    public enum Verdict: Sendable, Equatable {
        /// The next message of its topic: apply it.
        case apply
        /// Already covered by the snapshot or an earlier message: drop it.
        case stale
        /// Messages are missing between the last one and this: re-synchronise.
        case gap(expected: UInt64, received: UInt64)
    }

    private var seqs: [Topic: UInt64] = [:]
    /// The topics whose last message was a retraction: a publisher may forget such a topic's number (it keeps a
    /// bounded number of them), and its return then starts again at 1.
    private var retracted: Set<Topic> = []
    /// The publisher run the state belongs to.
    public private(set) var instance: String?

    /// An empty tracker that has seen no snapshot.
    public init() {}

    /// Starts over from a snapshot: its entries' sequence numbers, and those of the topics it lists as
    /// `retracted` (no value, but numbered: their next message follows on), become the state.
    public mutating func reset(instance: String, entries: [Snapshot.Entry], retracted: [Topic: UInt64] = [:]) {
        self.instance = instance
        seqs = Dictionary(entries.map { ($0.topic, $0.seq) }, uniquingKeysWith: max).merging(retracted, uniquingKeysWith: max)
        self.retracted = Set(retracted.keys)
    }

    /// The verdict on `message`, recording it when it is to be applied.
    ///
    /// - Parameter older: how many messages of the topic came just before `message` and are
    ///   superseded by it, unread: it applies only if it is that many further on.
    public mutating func check(_ message: BusMessage, superseding older: Int = 0) -> Verdict {
        // The topic is looked up once, for the number and for recording it.
        let index = seqs.index(forKey: message.topic)
        let last = index.map { seqs.values[$0] } ?? 0
        let seq = message.header.seq
        if seq <= last {
            // A retracted topic back at 1: its publisher forgot its number; re-synchronise to take it in.
            return seq == UInt64(older) + 1 && isRetracted(message.topic) ? .gap(expected: last + 1, received: seq) : .stale
        }
        if seq - last != UInt64(older) + 1 {
            let (expected, overflow) = last.addingReportingOverflow(UInt64(older) + 1)
            return .gap(expected: overflow ? .max : expected, received: seq)
        }
        if let index { seqs.values[index] = seq } else { seqs[message.topic] = seq }
        if message.isRetraction {
            retracted.insert(message.topic)
        } else if !retracted.isEmpty {
            retracted.remove(message.topic)
        }
        return .apply
    }

    /// Whether the last message of `topic` taken in was a retraction.
    public func isRetracted(_ topic: Topic) -> Bool { retracted.contains(topic) }

    /// The sequence number `topic` stands at (0 when never seen).
    public func seq(of topic: Topic) -> UInt64 { seqs[topic] ?? 0 }
}
