@testable import Bus
import Foundation
import Testing
import ZeroMQ

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
    /// A retracted topic leaves the snapshot; its sequence goes on, so the topic can come back.
    @Test func retractDropsTheRetainedValue() async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "feed", endpoints: [ipcEndpoint()], logger: testLogger)
        let topic = try Topic("quote.test.DOT-USD")
        #expect(try publisher.retract(topic) == nil, "nothing held, nothing sent")
        #expect(try publisher.publish(Price(symbol: "DOT", price: "8.29"), on: topic, onlyIfChanged: true) == 1)
        #expect(try publisher.publish(Price(symbol: "BTC", price: "1"), on: Topic("quote.test.BTC-USD")) == 1)
        #expect(try publisher.retract(topic) == 2)
        #expect(publisher.snapshot(prefix: "quote.").entries.map(\.topic.rawValue) == ["quote.test.BTC-USD"])
        #expect(try publisher.retract(topic) == nil, "a second retraction sends nothing")
        // The same value again is published (nothing is kept to compare with), numbered after the retraction.
        #expect(try publisher.publish(Price(symbol: "DOT", price: "8.29"), on: topic, onlyIfChanged: true) == 3)
        #expect(publisher.snapshot(prefix: "quote.test.DOT").entries.map(\.seq) == [3])
        await publisher.close()
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
        (tasks + lateTasks).forEach { $0.cancel() }
        service.stop()
    }
}
