import Bus
import BusContract
import Foundation
import Logging
import Synchronization
import ZeroMQ

/// A ``Subscriber`` taking in arbitrary stream frames: each input is a first byte (when odd, every other
/// snapshot fails), then batches (split at 0x1D) of messages (split at 0x1E) of frames (split at 0x1F),
/// the usual two being a topic and an envelope. Its snapshots hold `quote.` and `price.` topics at known
/// sequence numbers. It must never crash, and never pass on a message that does not follow what it
/// holds: per topic, the sequence numbers it reports after a snapshot only grow, from the snapshot's.
public final class SubscriberFuzz: Sendable {
    private let subscriber: Subscriber
    /// Whether every other snapshot fails, and how many were asked for in this input.
    private let snapshots: SnapshotMode

    /// One subscriber for every input (each starts it from a fresh replica); its socket is never read.
    public init() throws {
        var logger = Logger(label: "fuzz")
        logger.logLevel = .critical
        let snapshots = SnapshotMode()
        self.snapshots = snapshots
        subscriber = try Subscriber(
            context: try ZMQContext(), name: "fuzz", endpoint: "inproc://fuzz-subscriber-\(UUID())", prefixes: ["quote.", "price."],
            snapshot: { _ in
                let fails = snapshots.state.withLock { state in
                    defer { state.calls += 1 }
                    return state.failing && state.calls % 2 == 1
                }
                if fails { throw FuzzSnapshotError() }
                return Self.snapshot
            }, logger: logger)
    }

    /// The snapshot every synchronisation starts from.
    public static let snapshot = Snapshot(publisher: "fuzz", instance: "run-1", entries: [
        .init(topic: Topic(constant: "quote.bitso.btc_mxn"), seq: 5, body: envelope(type: "quote", seq: 5)),
        .init(topic: Topic(constant: "price.BTC.USD"), seq: 1, body: envelope(type: "price", seq: 1)),
        .init(topic: Topic(constant: "quote.bitso.eth_mxn"), seq: 2, body: "not json"),
    ])

    private static func envelope(type: String, seq: UInt64) -> String {
        #"{"type":"\#(type)","seq":\#(seq),"time":"2026-11-25T03:00:00.000Z","source":"fuzz","data":{}}"#
    }

    /// The problems with how the subscriber took in `input`: empty when none.
    public func check(_ input: Data) async -> [String] {
        snapshots.state.withLock { $0 = (failing: (input.first ?? 0) & 1 == 1, calls: 0) }
        return Self.problems(await subscriber.takeIn(Self.batches(input.dropFirst())))
    }

    /// The input's batches of messages of frames.
    static func batches(_ input: Data.SubSequence) -> [[[Data]]] {
        input.split(separator: 0x1D, omittingEmptySubsequences: false).map { batch in
            batch.split(separator: 0x1E, omittingEmptySubsequences: false).map { message in
                message.split(separator: 0x1F, omittingEmptySubsequences: false).map { Data($0) }
            }
        }
    }

    /// Messages reported out of order or behind the snapshot.
    public static func problems(_ events: [SubscriberEvent]) -> [String] {
        var held: [Topic: UInt64]?
        var problems: [String] = []
        for event in events {
            switch event {
            case .snapshot(_, _, let messages):
                held = Dictionary(messages.map { ($0.topic, $0.header.seq) }, uniquingKeysWith: max)
                for entry in snapshot.entries where held?[entry.topic] == nil { held?[entry.topic] = entry.seq }
            case .message(let message):
                guard var seqs = held else {
                    problems.append("a message before any snapshot: \(message.topic) \(message.header.seq)")
                    continue
                }
                if message.header.seq <= seqs[message.topic, default: 0] {
                    problems.append("\(message.topic) \(message.header.seq) passed on after \(seqs[message.topic, default: 0])")
                }
                seqs[message.topic] = message.header.seq
                held = seqs
            case .unavailable:
                break
            }
        }
        return problems
    }
}

private struct FuzzSnapshotError: Error {}

/// Whether every other snapshot fails, and how many were asked for in the current input.
private final class SnapshotMode: Sendable {
    let state = Mutex((failing: false, calls: 0))
}
