import Bus
import Foundation
import Market
import Logging
import Money
import ZeroMQ

/// Benchmark 1: one publisher, one subscriber, tcp loopback, `quote.*` envelopes.
enum BusBench {
    static let topics: [Topic] = ["BTC-MXN", "ETH-MXN", "XRP-MXN", "LTC-MXN", "BTC-USD", "ETH-USD", "SOL-USD", "ADA-USD"]
        .map { try! Topic(kind: "quote", source: "bitso", key: $0) }

    struct Result {
        var messagesPerSecond: Double
        var received: Int
        var bodyBytes: Int
    }

    /// Publisher (Bus `Publisher.publish`: Wire.encode, seq, retain) -> tcp -> SUB `OwnedSocket`
    /// -> `BusMessage(frames:)` + `decode(Quote.self)`. Lossless (HWM 0 both sides); the
    /// rate is messages / (first publish ... last decode).
    static func encoded(count: Int) async throws -> Result {
        let pubContext = try ZMQContext(), subContext = try ZMQContext()
        let publisher = try Publisher(
            context: pubContext, service: "bench", endpoints: ["tcp://127.0.0.1:*"], highWaterMark: 0,
            heartbeatInterval: .seconds(3600), logger: quietLogger())
        let endpoint = try await publisher.boundEndpoint()
        let sub = try OwnedSocket(context: subContext, type: .sub, name: "bench-sub", receiveBuffer: count + 10) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try socket.subscribe("quote.")
            try socket.connect(endpoint)
        }
        try await Task.sleep(for: .milliseconds(300))  // slow joiner
        let start = Unsafe(ContinuousClock.now)
        let consumer = Task {
            var received = 0, checksum: UInt64 = 0, bytes = 0
            for await frames in sub.incoming {
                let message = try BusMessage(frames: frames)
                let envelope = try message.decode(Quote.self)
                checksum &+= envelope.seq &+ UInt64(envelope.data.last.mantissa & 0xff)
                bytes = message.body.count
                received += 1
                if received == count { break }
            }
            return (ContinuousClock.now, received, bytes, checksum)
        }
        try await onThread("bench-pub") {
            start.value = ContinuousClock.now
            for index in 0..<count {
                try publisher.publish(sampleQuotes[index & 63], on: topics[index & 7])
            }
        }
        let (end, received, bytes, _) = try await consumer.value
        await publisher.close()
        await sub.close()
        return Result(messagesPerSecond: Double(received) / (end - start.value).seconds, received: received, bodyBytes: bytes)
    }

    /// A representative encoded message, for the raw runs' byte count.
    static func sampleFrames() throws -> [Data] {
        let envelope = Envelope(type: "quote", seq: 123_456, time: Date(), source: "bitso", data: sampleQuotes[0])
        return [Data(topics[0].rawValue.utf8), try Wire.encode(envelope)]
    }

    /// The same bytes through `OwnedSocket` (post / incoming) with no JSON: the Bus transport alone.
    static func ownedSocketRaw(count: Int) async throws -> Result {
        let frames = try sampleFrames()
        let pubContext = try ZMQContext(), subContext = try ZMQContext()
        let pub = try OwnedSocket(context: pubContext, type: .pub, name: "raw-pub") { socket in
            try socket.set(.sendHighWaterMark, 0)
            try socket.bind("tcp://127.0.0.1:*")
        }
        let endpoint = try await pub.perform { try $0.lastEndpoint() }
        let sub = try OwnedSocket(context: subContext, type: .sub, name: "raw-sub", receiveBuffer: count + 10) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try socket.subscribe("quote.")
            try socket.connect(endpoint)
        }
        try await Task.sleep(for: .milliseconds(300))
        let start = Unsafe(ContinuousClock.now)
        let consumer = Task {
            var received = 0
            for await message in sub.incoming {
                if message.count == 2 { received += 1 }
                if received == count { break }
            }
            return (ContinuousClock.now, received)
        }
        _ = try await onThread("raw-pub") {
            start.value = ContinuousClock.now
            for _ in 0..<count { pub.post(frames) }
        }
        let (end, received) = await consumer.value
        await pub.close()
        await sub.close()
        return Result(messagesPerSecond: Double(received) / (end - start.value).seconds, received: received, bodyBytes: frames[1].count)
    }

    /// The same bytes through the ZeroMQ wrapper's `Socket` with blocking send/receive on two threads: the limit.
    static func zmqRaw(count: Int) async throws -> Result {
        let frames = try sampleFrames()
        let pubContext = try ZMQContext(), subContext = try ZMQContext()
        let pub = try Socket(context: pubContext, type: .pub)
        try pub.set(.sendHighWaterMark, 0)
        try pub.bind("tcp://127.0.0.1:*")
        let endpoint = try pub.lastEndpoint()
        let sub = try Socket(context: subContext, type: .sub)
        try sub.set(.receiveHighWaterMark, 0)
        try sub.subscribe("quote.")
        try sub.connect(endpoint)
        try await Task.sleep(for: .milliseconds(300))
        let pubBox = Unsafe(pub), subBox = Unsafe(sub)
        let start = Unsafe(ContinuousClock.now)
        async let consumer = onThread("zmq-sub") { () throws -> (ContinuousClock.Instant, Int) in
            var received = 0
            while received < count, let message = try subBox.value.receive(dontWait: false) {
                if message.count == 2 { received += 1 }
            }
            return (ContinuousClock.now, received)
        }
        _ = try await onThread("zmq-pub") {
            start.value = ContinuousClock.now
            for _ in 0..<count { try pubBox.value.send(frames, dontWait: false) }
        }
        let (end, received) = try await consumer
        pub.close()
        sub.close()
        return Result(messagesPerSecond: Double(received) / (end - start.value).seconds, received: received, bodyBytes: frames[1].count)
    }
}
