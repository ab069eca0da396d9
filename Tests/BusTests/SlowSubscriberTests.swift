@testable import Bus
import Foundation
import Testing
import ZeroMQ
import BusContract

@Suite("Slow subscribers")
struct SlowSubscriberTests {
    /// A subscriber that stops reading falls the publisher's high-water mark behind and loses messages. The loss
    /// is visible at the publisher (``Publisher/droppedMessages`` and the heartbeat's `dropped`), and the
    /// subscriber, reading again, sees the gap and recovers from a snapshot.
    @Test func stalledSubscriberIsCountedAndRecoversFromASnapshot() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let publisher = try Publisher(context: context, service: "feed", endpoints: [address], highWaterMark: 10, logger: testLogger)
        let stalled = try Socket(context: context, type: .sub)
        try stalled.set(.receiveHighWaterMark, 10)
        try stalled.subscribe("quote.")
        try stalled.subscribe("heartbeat.")
        try stalled.connect(address)
        let topic = try Topic("quote.feed.BTC-USD")

        // Publish until the subscription is in place, then take everything waiting.
        var connected = false
        for _ in 0..<500 where !connected {
            try publisher.publish("probe", on: topic)
            try await Task.sleep(for: .milliseconds(10))
            connected = try stalled.receive() != nil
        }
        try #require(connected)
        while try stalled.receive() != nil {}
        var tracker = ReplicaTracker()
        let before = publisher.snapshot(prefix: "quote.")
        tracker.reset(instance: before.instance, entries: before.entries)
        #expect(publisher.droppedMessages == 0)

        // It stops reading while 4,000 messages of 16 kB (far more than the socket buffers hold) go out.
        let padding = String(repeating: "x", count: 16_384)
        for _ in 0..<4_000 { try publisher.publish(padding, on: topic) }
        let dropped = publisher.droppedMessages
        #expect(dropped > 0)

        // Reading again, it takes what waited for it (with holes where its copies were dropped) and a newer
        // message: its gap detection finds the hole, and the heartbeat says how many messages were lost.
        var gap = false
        var quiet = 0
        while quiet < 50 {
            guard let frames = try stalled.receive() else {
                quiet += 1
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            quiet = 0
            if case .gap = tracker.check(try BusMessage(frames: frames)) { gap = true }
        }
        try publisher.publish("fresh", on: topic)
        publisher.sendHeartbeat(on: try Topic(kind: "heartbeat", source: "feed"))
        var heartbeat: Heartbeat?
        for _ in 0..<200 where heartbeat == nil {
            guard let frames = try stalled.receive() else {
                try await Task.sleep(for: .milliseconds(10))
                continue
            }
            let message = try BusMessage(frames: frames)
            if message.topic.rawValue.hasPrefix("heartbeat.") {
                heartbeat = try Wire.decode(Envelope<Heartbeat>.self, from: message.body).data
            } else if case .gap = tracker.check(message) {
                gap = true
            }
        }
        #expect(gap)
        #expect(heartbeat?.dropped == dropped)

        // A snapshot puts it back on the stream: the next message applies.
        let snapshot = publisher.snapshot(prefix: "quote.")
        tracker.reset(instance: snapshot.instance, entries: snapshot.entries)
        let next = try #require(try publisher.publish("after", on: topic))
        var applied = false
        for _ in 0..<200 where !applied {
            if let frames = try stalled.receive() {
                let message = try BusMessage(frames: frames)
                if message.topic == topic {
                    #expect(message.header.seq == next)
                    applied = tracker.check(message) == .apply
                }
            } else {
                try await Task.sleep(for: .milliseconds(10))
            }
        }
        #expect(applied)
        stalled.close()
        await publisher.close()
    }
}
