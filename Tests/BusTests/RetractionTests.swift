@testable import Bus
import Foundation
import Testing
import ZeroMQ
import BusContract

/// Follows a subscriber's events, keeping each topic's value and the retractions seen.
private actor Retractions {
    var values: [String: String] = [:]
    var retracted: [BusMessage] = []
    var snapshots = 0

    func apply(_ event: SubscriberEvent) throws {
        switch event {
        case .snapshot(_, _, let messages):
            snapshots += 1
            values = [:]
            for message in messages { values[message.topic.rawValue] = try message.decode(Price.self).data.price }
        case .message(let message) where message.isRetraction:
            retracted.append(message)
            values[message.topic.rawValue] = nil
        case .message(let message):
            values[message.topic.rawValue] = try message.decode(Price.self).data.price
        case .unavailable:
            break
        }
    }

    func wait(until condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(10)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }

    func wait(for expected: [String: String]) async -> Bool { await wait { values == expected } }
}

@Suite("Retraction: the Clone pattern's delete")
struct RetractionTests {
    /// A retracted topic leaves the snapshot's entries for its `retracted` topics, with its seq; its sequence goes on,
    /// so the topic can come back.
    @Test func retractDropsTheRetainedValue() async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "feed", endpoints: [ipcEndpoint()], logger: testLogger)
        let topic = try Topic("quote.test.DOT-USD")
        #expect(try publisher.retract(topic) == nil, "nothing held, nothing sent")
        #expect(try publisher.publish(Price(symbol: "DOT", price: "8.29"), on: topic, onlyIfChanged: true) == 1)
        #expect(try publisher.publish(Price(symbol: "BTC", price: "1"), on: Topic("quote.test.BTC-USD")) == 1)
        #expect(try publisher.retract(topic) == 2)
        #expect(publisher.snapshot(prefix: "quote.").entries.map(\.topic.rawValue) == ["quote.test.BTC-USD"])
        #expect(publisher.snapshot(prefix: "quote.").retracted == [topic: 2])
        #expect(publisher.snapshot(prefix: "quote.test.BTC").retracted == [:], "only topics under the prefix")
        #expect(try publisher.retract(topic) == nil, "a second retraction sends nothing")
        // The same value again is published (nothing is kept to compare with), numbered after the retraction.
        #expect(try publisher.publish(Price(symbol: "DOT", price: "8.29"), on: topic, onlyIfChanged: true) == 3)
        #expect(publisher.snapshot(prefix: "quote.test.DOT").entries.map(\.seq) == [3])
        #expect(publisher.snapshot(prefix: "quote.").retracted == [:], "back: a value again")
        await publisher.close()
    }

    /// Only the last `maxRetracted` retractions are kept: names that come and go do not grow the publisher; a topic
    /// forgotten starts again at 1, one published again since its retraction is kept.
    @Test func oldRetractionsAreForgotten() async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "feed", endpoints: [ipcEndpoint()], maxRetracted: 2, logger: testLogger)
        let topics = try (0..<1_000).map { try Topic("quote.test.C\($0)-USD") }
        for topic in topics {
            try publisher.publish(Price(symbol: "C", price: "1"), on: topic)
            try publisher.retract(topic)
        }
        #expect(publisher.snapshot(prefix: "quote.").retracted == [topics[998]: 2, topics[999]: 2])
        #expect(try publisher.publish(Price(symbol: "C", price: "2"), on: topics[0]) == 1, "forgotten: numbered afresh")
        #expect(try publisher.publish(Price(symbol: "C", price: "2"), on: topics[999]) == 3, "kept: numbered on")
        try publisher.retract(topics[0])
        try publisher.retract(topics[999])
        try publisher.publish(Price(symbol: "C", price: "3"), on: topics[999])
        #expect(publisher.snapshot(prefix: "quote.").retracted == [topics[0]: 2])
        let newer = try Topic("quote.test.NEW-USD")
        try publisher.publish(Price(symbol: "NEW", price: "1"), on: newer)
        try publisher.retract(newer)
        #expect(publisher.snapshot(prefix: "quote.").retracted == [newer: 2], "the oldest retraction went first")
        await publisher.close()
    }

    /// A tracker that saw a topic's retraction takes the topic back at 1 (its publisher forgot it) as a gap to
    /// re-synchronise on, not as stale; a topic not retracted at 1 is stale as before.
    @Test func trackerTakesAForgottenTopicsReturnAsAGap() throws {
        let dot = try Topic("quote.test.DOT-USD")
        func message(_ seq: UInt64, type: String = "quote") throws -> BusMessage {
            try BusMessage(topic: dot.rawValue, body: Data(#"{"type":"\#(type)","seq":\#(seq),"time":"2026-11-26T06:30:12.481Z","source":"s","data":{}}"#.utf8))
        }
        var tracker = ReplicaTracker()
        tracker.reset(instance: "a", entries: [.init(topic: dot, seq: 4, body: "{}")])
        #expect(tracker.check(try message(1)) == .stale)
        #expect(tracker.check(try message(5, type: BusMessage.deletedType)) == .apply)
        #expect(tracker.check(try message(1)) == .gap(expected: 6, received: 1))
        #expect(tracker.check(try message(6)) == .apply)
        #expect(tracker.check(try message(1)) == .stale, "back with a value: no longer retracted")
        tracker.reset(instance: "a", entries: [], retracted: [dot: 9])
        #expect(tracker.check(try message(1)) == .gap(expected: 10, received: 1), "retracted in the snapshot")
    }

    /// A subscriber that follows the stream gets the `deleted` envelope (null data, the next seq) and forgets the
    /// topic; one that joins later gets a snapshot without it; both take the topic's return without a gap.
    @Test func subscribersForgetARetractedTopic() async throws {
        let context = try ZMQContext()
        let service = try await PublishingService(context: context)
        let dot = try Topic("quote.test.DOT-USD")
        try service.publisher.publish(Price(symbol: "DOT", price: "8.29"), on: dot)
        try service.publisher.publish(Price(symbol: "BTC", price: "42632"), on: Topic("quote.test.BTC-USD"))

        let early = Retractions()
        let subscriber = try service.subscriber(context: context, prefixes: ["quote."])
        let tasks = [Task { await subscriber.run() }, Task { for await event in subscriber.events { try? await early.apply(event) } }]
        #expect(await early.wait(for: ["quote.test.DOT-USD": "8.29", "quote.test.BTC-USD": "42632"]))

        #expect(try service.publisher.retract(dot) == 2)
        #expect(await early.wait(for: ["quote.test.BTC-USD": "42632"]))
        let retraction = try #require(await early.retracted.first)
        #expect(retraction.topic == dot)
        #expect(retraction.header.type == "deleted" && retraction.header.seq == 2 && retraction.header.source == "test")
        let body = try #require(try JSONSerialization.jsonObject(with: retraction.body) as? [String: Any])
        #expect(Set(body.keys) == ["version", "type", "seq", "time", "source", "data"])
        #expect(body["data"] is NSNull)

        let late = Retractions()
        let lateSubscriber = try service.subscriber(context: context, prefixes: ["quote."])
        let lateTasks = [Task { await lateSubscriber.run() }, Task { for await event in lateSubscriber.events { try? await late.apply(event) } }]
        #expect(await late.wait(for: ["quote.test.BTC-USD": "42632"]))
        #expect(await late.snapshots == 1)

        try service.publisher.publish(Price(symbol: "DOT", price: "8.30"), on: dot)
        #expect(await early.wait(for: ["quote.test.DOT-USD": "8.30", "quote.test.BTC-USD": "42632"]))
        #expect(await late.wait(for: ["quote.test.DOT-USD": "8.30", "quote.test.BTC-USD": "42632"]))
        #expect(await early.snapshots == 1, "the return follows the retraction's seq: no gap, no re-synchronisation")
        #expect(await late.snapshots == 1, "the late snapshot carried the retracted topic's seq: its return is no gap")
        (tasks + lateTasks).forEach { $0.cancel() }
        service.stop()
    }

    /// A subscriber that saw a topic's retraction takes the topic's return after its publisher forgot it (numbered
    /// afresh from 1) by re-synchronising: it loses nothing.
    @Test func subscriberTakesAForgottenTopicsReturn() async throws {
        let context = try ZMQContext()
        let service = try await PublishingService(context: context, maxRetracted: 1)
        let dot = try Topic("quote.test.DOT-USD"), btc = try Topic("quote.test.BTC-USD")
        try service.publisher.publish(Price(symbol: "DOT", price: "8.29"), on: dot)
        let early = Retractions()
        let subscriber = try service.subscriber(context: context, prefixes: ["quote."])
        let tasks = [Task { await subscriber.run() }, Task { for await event in subscriber.events { try? await early.apply(event) } }]
        #expect(await early.wait(for: ["quote.test.DOT-USD": "8.29"]))
        try service.publisher.retract(dot)
        try service.publisher.publish(Price(symbol: "BTC", price: "42632"), on: btc)
        try service.publisher.retract(btc)
        #expect(await early.wait(for: [:]))
        #expect(service.publisher.snapshot(prefix: "quote.").retracted == [btc: 2], "DOT's retraction forgotten")
        #expect(try service.publisher.publish(Price(symbol: "DOT", price: "8.30"), on: dot) == 1)
        #expect(await early.wait(for: ["quote.test.DOT-USD": "8.30"]), "the return at seq 1 is taken, not dropped as stale")
        #expect(await early.snapshots == 2, "by re-synchronising")
        tasks.forEach { $0.cancel() }
        service.stop()
    }

    /// A tracker reset to a snapshot's retracted topics takes a topic's return as its next message, and holds no value
    /// of it until then.
    @Test func trackerSeedsRetractedTopics() throws {
        let dot = try Topic("quote.test.DOT-USD")
        func message(_ seq: UInt64) throws -> BusMessage {
            try BusMessage(topic: dot.rawValue, body: Data(#"{"type":"quote","seq":\#(seq),"time":"2026-11-26T06:30:12.481Z","source":"s","data":{}}"#.utf8))
        }
        var tracker = ReplicaTracker()
        tracker.reset(instance: "a", entries: [], retracted: [dot: 7])
        #expect(tracker.seq(of: dot) == 7)
        #expect(tracker.check(try message(7)) == .stale, "the retraction itself, already covered")
        #expect(tracker.check(try message(8)) == .apply)
        tracker.reset(instance: "a", entries: [.init(topic: dot, seq: 9, body: "{}")], retracted: [dot: 8])
        #expect(tracker.seq(of: dot) == 9, "of an entry and a retraction of one topic, the newer counts")
        tracker.reset(instance: "a", entries: [])
        #expect(tracker.check(try message(9)) == .gap(expected: 1, received: 9), "without the retracted seqs, as before")
    }

    /// `retracted` is an additive member: written as an object keyed by topic (sorted) only when there is one, read
    /// as empty when missing or null, ignored by a reader that knows only the older members, and a key that is not a
    /// topic is refused. The same with the wire coders and Foundation's.
    @Test func retractedIsAnAdditiveMember() throws {
        let snapshot = Snapshot(
            publisher: "converter", instance: "i-1", entries: [],
            retracted: [try Topic("price.DOT.USD"): 12, try Topic("price.DOT.EUR"): 11])
        let written = #"{"publisher":"converter","instance":"i-1","entries":[],"retracted":{"price.DOT.EUR":11,"price.DOT.USD":12}}"#
        #expect(String(decoding: try Wire.encode(snapshot), as: UTF8.self) == written)
        #expect(String(decoding: try Wire.encode(Snapshot(publisher: "converter", instance: "i-1", entries: [])), as: UTF8.self)
            == #"{"publisher":"converter","instance":"i-1","entries":[]}"#)

        /// What a reader written before `retracted` decodes.
        struct OlderSnapshot: Decodable, Equatable {
            var publisher: String
            var instance: String
            var entries: [Snapshot.Entry]
        }
        let older = #"{"publisher":"converter","instance":"i-1","entries":[]}"#
        let bad = #"{"publisher":"converter","instance":"i-1","entries":[],"retracted":{"price..USD":3}}"#
        let decoders: [(String, (Data) throws -> Snapshot)] = [
            ("wire", { try Wire.decode(Snapshot.self, from: $0) }), ("Foundation", { try JSONDecoder().decode(Snapshot.self, from: $0) }),
        ]
        for (name, decode) in decoders {
            #expect(try decode(Data(written.utf8)) == snapshot, "\(name)")
            #expect(try decode(Data(older.utf8)).retracted == [:], "\(name): an older publisher's snapshot")
            #expect(try decode(Data(#"{"publisher":"p","instance":"i","entries":[],"retracted":null}"#.utf8)).retracted == [:], "\(name)")
            #expect(throws: DecodingError.self, "\(name)") { try decode(Data(bad.utf8)) }
        }
        #expect(try Wire.decode(OlderSnapshot.self, from: Data(written.utf8)) == OlderSnapshot(publisher: "converter", instance: "i-1", entries: []))
        #expect(try JSONDecoder().decode(OlderSnapshot.self, from: Data(written.utf8)).instance == "i-1")
    }
}
