@testable import Bus
import Foundation
import Synchronization
import Testing
import ZeroMQ
import BusContract

/// A stream message of `topic` at `seq` whose payload names its price.
private func message(_ topic: String, _ seq: UInt64, price: String = "1") throws -> BusMessage {
    try BusMessage(topic: topic, body: body(seq, price: price))
}

private func body(_ seq: UInt64, price: String) -> Data {
    Data(#"{"type":"quote","seq":\#(seq),"time":"2026-11-23T10:15:30.123Z","source":"raw","data":{"symbol":"BTC","price":"\#(price)"}}"#.utf8)
}

/// What an event is, in a form tests compare.
private func describe(_ event: SubscriberEvent?) -> String {
    switch event {
    case .message(let message)?: "\(message.topic)#\(message.header.seq)"
    case .snapshot(_, _, let messages)?: "snapshot(\(messages.count))"
    case .unavailable(let reason)?: "unavailable(\(reason))"
    case nil: "end"
    }
}

@Suite("Conflation: a reader behind gets the newest value of each topic")
struct ConflationTests {
    @Test func distinctTopicsPassInOrder() async throws {
        let queue = EventQueue(backlog: 0)
        for topic in ["quote.a.X", "quote.a.Y", "quote.a.Z"] { #expect(queue.push(.message(try message(topic, 1))) == 0) }
        queue.finish()
        var seen: [String] = []
        while let event = await queue.next() { seen.append(describe(event)) }
        #expect(seen == ["quote.a.X#1", "quote.a.Y#1", "quote.a.Z#1"])
    }

    /// A newer message takes the waiting one's place; once taken, the next one queues again.
    @Test func waitingMessageIsReplacedInPlace() async throws {
        let queue = EventQueue(backlog: 0)
        queue.push(.message(try message("quote.a.X", 1)))
        queue.push(.message(try message("quote.a.Y", 1)))
        #expect(queue.push(.message(try message("quote.a.X", 2))) == 1)
        #expect(describe(await queue.next()) == "quote.a.X#2")
        queue.push(.message(try message("quote.a.X", 3)))
        #expect(queue.push(.message(try message("quote.a.Y", 2))) == 1)
        #expect(describe(await queue.next()) == "quote.a.Y#2")
        #expect(describe(await queue.next()) == "quote.a.X#3")
    }

    /// A snapshot replaces whatever waits; consecutive reasons collapse; messages after another
    /// event queue behind it.
    @Test func snapshotsAndReasons() async throws {
        let queue = EventQueue(backlog: 0)
        queue.push(.message(try message("quote.a.X", 1)))
        queue.push(.message(try message("quote.a.Y", 1)))
        #expect(queue.push(.snapshot(publisher: "p", instance: "i", messages: [])) == 2)
        queue.push(.message(try message("quote.a.X", 2)))
        queue.push(.unavailable(reason: "one"))
        queue.push(.unavailable(reason: "two"))
        #expect(queue.push(.message(try message("quote.a.X", 3))) == 0)
        queue.finish()
        var seen: [String] = []
        while let event = await queue.next() { seen.append(describe(event)) }
        #expect(seen == ["snapshot(0)", "quote.a.X#2", "unavailable(two)", "quote.a.X#3"])
    }

    /// A reader already waiting gets the event at once, and a finished queue gives its rest, then nil.
    @Test func waitingReaderAndFinish() async throws {
        let queue = EventQueue(backlog: 0)
        let reader = Task { describe(await queue.next()) }
        try await Task.sleep(for: .milliseconds(50))
        queue.push(.message(try message("quote.a.X", 1)))
        #expect(await reader.value == "quote.a.X#1")
        queue.push(.message(try message("quote.a.X", 2)))
        queue.finish()
        queue.push(.message(try message("quote.a.X", 3)))
        #expect(describe(await queue.next()) == "quote.a.X#2")
        #expect(await queue.next() == nil)
    }

    /// A reader that keeps up gets every message: below the backlog nothing conflates, above it a newer
    /// message replaces the newest waiting one of its topic.
    @Test func conflatesOnlyBeyondTheBacklog() async throws {
        let queue = EventQueue(backlog: 2)
        #expect(queue.push(.message(try message("quote.a.X", 1))) == 0)
        #expect(queue.push(.message(try message("quote.a.X", 2))) == 0)
        #expect(queue.push(.message(try message("quote.a.Y", 1))) == 0)
        #expect(queue.push(.message(try message("quote.a.X", 3))) == 1)
        #expect(describe(await queue.next()) == "quote.a.X#1")
        #expect(describe(await queue.next()) == "quote.a.X#3")
        #expect(queue.push(.message(try message("quote.a.Y", 2))) == 0)
        queue.finish()
        var seen: [String] = []
        while let event = await queue.next() { seen.append(describe(event)) }
        #expect(seen == ["quote.a.Y#1", "quote.a.Y#2"])
    }

    /// Random pushes and takes against a plain model of the rules: the same events, in the same order.
    @Test(arguments: [0, 1, 4])
    func matchesModel(backlog: Int) async throws {
        var random = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let queue = EventQueue(backlog: backlog)
            var model: [SubscriberEvent] = []
            var seq: UInt64 = 0
            for _ in 0..<400 {
                switch Int.random(in: 0..<20, using: &random) {
                case 0:
                    model = [.snapshot(publisher: "p", instance: "i", messages: [])]
                    queue.push(model[0])
                case 1:
                    let event = SubscriberEvent.unavailable(reason: "r\(seq)")
                    seq += 1
                    if case .unavailable = model.last { model[model.count - 1] = event } else { model.append(event) }
                    queue.push(event)
                case 2..<8 where !model.isEmpty:
                    let expected = describe(model.removeFirst())
                    #expect(describe(await queue.next()) == expected)
                default:
                    seq += 1
                    let event = SubscriberEvent.message(try message("quote.a.\(Int.random(in: 0..<6, using: &random))", seq))
                    let barrier = model.lastIndex { if case .message = $0 { false } else { true } } ?? -1
                    let topic = "\(describe(event).split(separator: "#")[0])#"
                    if model.count > backlog, let same = model.indices.last(where: { $0 > barrier && describe(model[$0]).hasPrefix(topic) }) {
                        model[same] = event
                    } else {
                        model.append(event)
                    }
                    queue.push(event)
                }
            }
            queue.finish()
            var rest: [String] = []
            while let event = await queue.next() { rest.append(describe(event)) }
            #expect(rest == model.map { describe($0) })
        }
    }

    @Test func runsPerTopicOfABatch() {
        func frames(_ topic: String) -> [Data] { [Data(topic.utf8), Data("{}".utf8)] }
        #expect(Subscriber.runsPerTopic([]).isEmpty)
        let distinct = Subscriber.runsPerTopic(["a", "b", "c"].map(frames))
        #expect(distinct.map(\.first) == [0, 1, 2] && distinct.map(\.newest) == [0, 1, 2] && distinct.map(\.older) == [0, 0, 0])
        let batch = Subscriber.runsPerTopic(["a", "b", "a", "c", "a", "b"].map(frames))
        #expect(batch.map(\.first) == [3, 0, 1])
        #expect(batch.map(\.newest) == [3, 4, 5])
        #expect(batch.map(\.older) == [0, 2, 1])
    }

    /// The tracker takes a message that supersedes older unread ones only if it is that many further on.
    @Test func trackerWithSupersededMessages() throws {
        var tracker = ReplicaTracker()
        tracker.reset(instance: "a", entries: [.init(topic: try Topic("quote.x.A"), seq: 5, body: "{}")])
        #expect(tracker.check(try message("quote.x.A", 8), superseding: 2) == .apply)
        #expect(tracker.check(try message("quote.x.A", 12), superseding: 2) == .gap(expected: 11, received: 12))
        #expect(tracker.check(try message("quote.x.A", 10), superseding: 3) == .gap(expected: 12, received: 10))
        #expect(tracker.check(try message("quote.x.A", 7), superseding: 3) == .stale)
        #expect(tracker.seq(of: try Topic("quote.x.A")) == 8)
    }
}

@Suite("Conflation through a real subscriber")
struct SubscriberConflationTests {
    /// How often the snapshot was asked for, and whether it is held back for now.
    private final class Calls: Sendable {
        let count = Atomic<Int>(0)
        let holding = Atomic<Bool>(false)

        var snapshots: Int { count.load(ordering: .relaxed) }
    }

    /// A raw publisher, a subscriber whose snapshot says each topic stands at `start`, and a slow reader.
    private struct Rig {
        static let btc = "quote.raw.BTC-USD"
        let raw: OwnedSocket
        let subscriber: Subscriber
        let calls = Calls()
        let tasks: [Task<Void, Never>]
        let reader: Task<(events: Int, values: [String: String]), Never>

        init(topics: [String] = [btc], start: UInt64, receiveBuffer: Int = 20_000, backlog: Int = 0) async throws {
            let context = try ZMQContext()
            let address = ipcEndpoint()
            raw = try OwnedSocket(context: context, type: .pub, name: "raw") { socket in
                try socket.set(.sendHighWaterMark, 0)
                try socket.bind(address)
            }
            let calls = calls
            subscriber = try Subscriber(
                // The raw publisher sends heartbeats only until the first snapshot: only what a test
                // sends may make it re-synchronise.
                context: context, name: "test", endpoint: address, prefixes: ["quote."], heartbeatTimeout: .seconds(3_600),
                receiveBuffer: receiveBuffer, backlog: backlog,
                snapshot: { _ in
                    calls.count.add(1, ordering: .relaxed)
                    while calls.holding.load(ordering: .relaxed) { try await Task.sleep(for: .milliseconds(5)) }
                    return Snapshot(publisher: "raw", instance: "one", entries: try topics.map {
                        Snapshot.Entry(topic: try Topic($0), seq: start, body: String(decoding: body(start, price: "\(start)"), as: UTF8.self))
                    })
                }, logger: testLogger)
            let subscriber = subscriber
            tasks = [Task { await subscriber.run() }]
            reader = Task {
                var events = 0
                var values: [String: String] = [:]
                for await event in subscriber.events {
                    events += 1
                    if case .message(let message) = event { values[message.topic.rawValue] = try? message.decode(Price.self).data.price }
                    if case .snapshot(_, _, let messages) = event {
                        for message in messages { values[message.topic.rawValue] = try? message.decode(Price.self).data.price }
                    }
                    try? await Task.sleep(for: .milliseconds(2))
                }
                return (events, values)
            }
            #expect(await heartbeating(raw) { calls.snapshots == 1 })
            try await Task.sleep(for: .milliseconds(200))
        }

        func send(_ seq: UInt64, on topic: String = btc) {
            raw.post([Data(topic.utf8), body(seq, price: "\(seq)")])
        }

        /// Sends `burst` while the subscriber waits for a snapshot (asked for by a gap on `btc`), so
        /// that it reads the burst in one go once the snapshot, at `start` again, is in.
        func sendWhileSynchronizing(_ burst: () -> Void) async throws {
            calls.holding.store(true, ordering: .relaxed)
            let asked = calls.snapshots
            send(10_000)
            #expect(await wait { calls.snapshots == asked + 1 })
            burst()
            try await Task.sleep(for: .seconds(1))  // long enough for a loaded machine to deliver the burst
            calls.holding.store(false, ordering: .relaxed)
        }

        /// Stops everything and returns what the reader saw.
        func finish(after delay: Duration = .seconds(1)) async throws -> (events: Int, values: [String: String]) {
            try await Task.sleep(for: delay)
            tasks.forEach { $0.cancel() }
            #expect(raw.droppedSends == 0)
            await raw.close()
            return await reader.value
        }
    }

    /// 3,000 updates on 10 topics to a reader that takes 2 ms an event: it ends with every topic's last
    /// value, without a re-synchronisation, having read far fewer events than were sent.
    @Test func slowReaderGetsTheNewestValues() async throws {
        let topics = (0..<10).map { "quote.raw.C\($0)-USD" }
        let rig = try await Rig(topics: topics, start: 0)
        for seq in 1...300 { for topic in topics { rig.send(UInt64(seq), on: topic) } }
        let seen = try await rig.finish(after: .seconds(2))
        #expect(seen.values == Dictionary(uniqueKeysWithValues: topics.map { ($0, "300") }))
        #expect(rig.calls.snapshots == 1)
        #expect(seen.events < 1_500)
    }

    /// A reader that keeps up with its backlog gets every message of a burst read in one go, in order:
    /// nothing is superseded where the subscriber is not behind.
    @Test func keepingUpReaderGetsEveryMessage() async throws {
        let rig = try await Rig(start: 10, backlog: 64)
        try await rig.sendWhileSynchronizing { for seq in 11...40 { rig.send(UInt64(seq)) } }
        let seen = try await rig.finish()
        #expect(seen.values[Rig.btc] == "40")
        #expect(rig.calls.snapshots == 2)
        #expect(seen.events == 2 + 30)
    }

    /// A burst read in one go after the snapshot ends at its newest value, without a re-synchronisation:
    /// a complete run (11...40 after 10) stands for itself by its newest; one that starts with messages the
    /// snapshot holds (90...140 after 100) is taken one by one.
    @Test(arguments: [(UInt64(10), UInt64(11)...40), (100, 90...140)])
    func burstEndsAtItsNewest(start: UInt64, burst: ClosedRange<UInt64>) async throws {
        let rig = try await Rig(start: start)
        try await rig.sendWhileSynchronizing { for seq in burst { rig.send(seq) } }
        let seen = try await rig.finish()
        #expect(seen.values[Rig.btc] == "\(burst.upperBound)")
        #expect(rig.calls.snapshots == 2)
    }

    /// A run whose newest is already held is dropped whole; the next message applies.
    @Test func staleRunIsDropped() async throws {
        let rig = try await Rig(start: 10)
        try await rig.sendWhileSynchronizing { for seq in 5...10 { rig.send(UInt64(seq)) } }
        try await Task.sleep(for: .milliseconds(300))
        rig.send(11)
        let seen = try await rig.finish()
        #expect(seen.values[Rig.btc] == "11")
        #expect(rig.calls.snapshots == 2)
    }

    /// A stale message cannot stand in for a missing one: 10 (held), then 12 without 11, is a gap.
    @Test func staleAndMissingInOneRunIsAGap() async throws {
        let rig = try await Rig(start: 10)
        try await rig.sendWhileSynchronizing {
            rig.send(10)
            rig.send(12)
        }
        #expect(await wait { rig.calls.snapshots == 3 })
        _ = try await rig.finish(after: .zero)
    }

    /// A message missing from a burst is a gap even when newer ones of its topic follow: a new snapshot.
    /// (The rig's snapshot stands at `start` again, so a burst the socket splits in two batches shows a
    /// second gap after it: at least one re-synchronisation, not exactly one.)
    @Test func gapInsideABurstResynchronises() async throws {
        let rig = try await Rig(start: 0)
        for seq in 1...60 where seq != 30 { rig.send(UInt64(seq)) }
        #expect(await wait { rig.calls.snapshots >= 2 })
        _ = try await rig.finish(after: .zero)
    }

    /// More than the buffer holds while the subscriber is busy: the overflow is dropped, and the
    /// subscriber re-synchronises at once instead of waiting for a gap to show.
    @Test func droppedMessagesResynchronise() async throws {
        let rig = try await Rig(start: 10, receiveBuffer: 5)
        try await rig.sendWhileSynchronizing { for seq in 11...60 { rig.send(UInt64(seq)) } }
        // At least one: what the socket kept after the drops may follow the snapshot (at 10 again) as a gap.
        #expect(await wait { rig.calls.snapshots >= 3 })
        _ = try await rig.finish(after: .zero)
    }
}
