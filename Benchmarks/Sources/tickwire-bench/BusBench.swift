import Bus
import BusContract
import TickwireClients
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
        /// CPU time of the whole process (every thread: publisher, subscriber, socket owners, libzmq's
        /// I/O threads) per message over the run: what a message costs, whatever the scheduler did.
        var cpuMicrosecondsPerMessage: Double

        init(received: Int, bodyBytes: Int, from start: (ContinuousClock.Instant, Double), to end: (ContinuousClock.Instant, Double)) {
            self.received = received
            self.bodyBytes = bodyBytes
            messagesPerSecond = Double(received) / (end.0 - start.0).seconds
            cpuMicrosecondsPerMessage = (end.1 - start.1) * 1e6 / Double(max(received, 1))
        }
    }

    /// The moment and the process's CPU seconds so far (user and system, all threads).
    static func mark() -> (ContinuousClock.Instant, Double) {
        var usage = rusage()
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1e6 }
        return (ContinuousClock.now, seconds(usage.ru_utime) + seconds(usage.ru_stime))
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
        let start = Unsafe(mark())
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
            return (mark(), received, bytes, checksum)
        }
        try await onThread("bench-pub") {
            start.value = mark()
            for index in 0..<count {
                try publisher.publish(sampleQuotes[index & 63], on: topics[index & 7])
            }
        }
        let (end, received, bytes, _) = try await consumer.value
        await publisher.close()
        await sub.close()
        return Result(received: received, bodyBytes: bytes, from: start.value, to: end)
    }

    /// Publisher -> tcp -> the real `Subscriber` (its SUB socket's owner thread, sequence tracking, its event queue)
    /// -> a consumer task that takes each `.message` event and decodes it (`decode(Quote.self)`): the product's receive
    /// path. The subscriber first synchronises from the publisher's snapshot (taken in-process, not over RPC) after a
    /// heartbeat, as a service's does; the run starts once it has. Lossless: HWM 0, and a receive buffer and backlog
    /// above the run's messages, so a subscriber that falls behind holds them rather than conflating. The rate is
    /// messages / (first publish ... last decode); the run ends when every topic's last sequence number was decoded,
    /// and `received` says how many messages the consumer took (fewer than `count` only if it re-synchronised).
    /// `onLoop`: the Subscriber made with a `ServiceLoop` (its thread reads the socket and runs the subscriber's tasks)
    /// and the consumer task preferring that loop, so the whole receive path runs on the loop's one thread.
    static func subscribed(count: Int, onLoop: Bool = false) async throws -> Result {
        let pubContext = try ZMQContext(), subContext = try ZMQContext()
        let publisher = try Publisher(
            context: pubContext, service: "bench", endpoints: ["tcp://127.0.0.1:*"], highWaterMark: 0,
            heartbeatInterval: .milliseconds(100), logger: quietLogger())
        let endpoint = try await publisher.boundEndpoint()
        let heartbeats = Task { try await publisher.run() }
        let loop = onLoop ? try ServiceLoop(name: "bench-sub") : nil
        let subscriber = try Subscriber(
            context: subContext, name: "bench", endpoint: endpoint, prefixes: ["quote."],
            receiveBuffer: count + 10, backlog: count + 10, snapshot: { publisher.snapshot(prefix: $0) }, logger: quietLogger(),
            loop: loop)
        let following = Task { await subscriber.run() }
        let (synchronized, synchronizedNow) = AsyncStream<Void>.makeStream()
        let lastSeq = UInt64(count / topics.count)
        let start = Unsafe(mark())
        let consumer = Task(executorPreference: loop) {
            var received = 0, bytes = 0, checksum: UInt64 = 0
            var last: [Topic: UInt64] = [:]
            events: for await event in subscriber.events {
                switch event {
                case .snapshot(_, _, let messages):
                    synchronizedNow.yield()
                    for message in messages { last[message.topic] = max(last[message.topic] ?? 0, message.header.seq) }
                case .message(let message):
                    let envelope = try message.decode(Quote.self)
                    checksum &+= envelope.seq &+ UInt64(envelope.data.last.mantissa & 0xff)
                    bytes = message.body.count
                    received += 1
                    last[message.topic] = envelope.seq
                case .unavailable:
                    continue
                }
                if last.count == topics.count, last.values.allSatisfy({ $0 >= lastSeq }) { break events }
            }
            return (mark(), received, bytes, checksum)
        }
        for await _ in synchronized { break }
        try await onThread("bench-pub") {
            start.value = mark()
            for index in 0..<(Int(lastSeq) * topics.count) {
                try publisher.publish(sampleQuotes[index & 63], on: topics[index % topics.count])
            }
        }
        let (end, received, bytes, _) = try await consumer.value
        following.cancel()
        await following.value
        heartbeats.cancel()
        _ = try? await heartbeats.value
        await loop?.shutdown()
        return Result(received: received, bodyBytes: bytes, from: start.value, to: end)
    }

    /// A representative encoded message, for the raw runs' byte count.
    static func sampleFrames() throws -> [Data] {
        let envelope = Envelope(type: "quote", seq: 123_456, time: Date(), source: "bitso", data: sampleQuotes[0])
        return [Data(topics[0].rawValue.utf8), try Wire.encode(envelope)]
    }

    /// The same bytes through the Bus's sockets with no JSON: the transport alone (a PUB `LockedSocket`
    /// sending on the caller's thread -> a SUB `OwnedSocket` and its `incoming`).
    static func busSocketsRaw(count: Int) async throws -> Result {
        let frames = try sampleFrames()
        let pubContext = try ZMQContext(), subContext = try ZMQContext()
        let pub = try LockedSocket(context: pubContext, type: .pub) { socket in
            try socket.set(.sendHighWaterMark, 0)
            try socket.bind("tcp://127.0.0.1:*")
        }
        let endpoint = try pub.withSocket { try $0.lastEndpoint() }
        let sub = try OwnedSocket(context: subContext, type: .sub, name: "raw-sub", receiveBuffer: count + 10) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try socket.subscribe("quote.")
            try socket.connect(endpoint)
        }
        try await Task.sleep(for: .milliseconds(300))
        let start = Unsafe(mark())
        let consumer = Task {
            var received = 0
            for await message in sub.incoming {
                if message.count == 2 { received += 1 }
                if received == count { break }
            }
            return (mark(), received)
        }
        _ = try await onThread("raw-pub") {
            start.value = mark()
            for _ in 0..<count { pub.send(frames) }
        }
        let (end, received) = await consumer.value
        pub.close()
        await sub.close()
        return Result(received: received, bodyBytes: frames[1].count, from: start.value, to: end)
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
        let start = Unsafe(mark())
        async let consumer = onThread("zmq-sub") { () throws -> ((ContinuousClock.Instant, Double), Int) in
            var received = 0
            while received < count, let message = try subBox.value.receive(dontWait: false) {
                if message.count == 2 { received += 1 }
            }
            return (mark(), received)
        }
        _ = try await onThread("zmq-pub") {
            start.value = mark()
            for _ in 0..<count { try pubBox.value.send(frames, dontWait: false) }
        }
        let (end, received) = try await consumer
        pub.close()
        sub.close()
        return Result(received: received, bodyBytes: frames[1].count, from: start.value, to: end)
    }
}
