import Foundation
import Synchronization
import Testing
import ZeroMQ

@Suite("A receiving socket that holds when its reader is behind")
struct HoldWhenFullTests {
    /// 5,000 messages sent to a SUB whose reader has room for 100 and has not started: with `holdWhenFull` every one
    /// arrives, in order (libzmq's queues and the connection held them, the PUB's send high-water mark being
    /// unlimited); without, all but about the first 100 the receiving thread read are dropped and counted.
    @Test(arguments: [true, false])
    func slowReaderLosesNothingWhenHolding(_ hold: Bool) async throws {
        let context = try ZMQContext()
        let endpoint = "ipc://\(FileManager.default.temporaryDirectory.path)/tickwire-hold-\(UUID().uuidString.prefix(8))"
        let sub = try OwnedSocket(context: context, type: .sub, name: "held", receiveBuffer: 100, holdWhenFull: hold) { socket in
            try socket.set(.receiveHighWaterMark, 100)
            try socket.subscribe("")
            try socket.bind(endpoint)
        }
        let pub = try Socket(context: context, type: .pub)
        try pub.set(.sendHighWaterMark, 0)
        try pub.connect(endpoint)
        // The subscription reaches the PUB in the background: a first message until one arrives.
        var joined = false
        while !joined {
            try pub.send([Data("join".utf8)])
            joined = await next(sub, within: .milliseconds(50)) != nil
        }
        while await next(sub, within: .milliseconds(100)) != nil {}
        for index in 0..<5_000 { #expect(try pub.send([Data("m".utf8), Data(String(index).utf8)])) }
        try await Task.sleep(for: .milliseconds(500))  // the receiving thread reads all it may before the reader starts
        // Holding, until all 5,000 arrived or a generous deadline on a loaded machine; else until none comes.
        var received: [Int] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while !hold || received.count < 5_000, ContinuousClock.now < deadline {
            guard let message = await next(sub, within: .milliseconds(hold ? 100 : 500)) else {
                if hold { continue } else { break }
            }
            // A late "join" is no numbered message.
            if message.count == 2 { received.append(Int(String(decoding: message[1], as: UTF8.self)) ?? -1) }
        }
        if hold {
            #expect(received == Array(0..<5_000))
            #expect(sub.droppedReceives == 0)
        } else {
            #expect(received.count < 5_000)
            #expect(sub.droppedReceives > 0)
        }
        pub.close()
        await sub.close()
    }
}

@Suite("A receiving socket that hands its batches to a handler on its own thread")
struct ReceivingHandlerTests {
    /// 5,000 messages to a SUB whose handler is slow (1 ms a batch) and whose socket holds 100: every one reaches
    /// the handler, in order, on the socket's thread (not a cooperative one), and `incoming` yields none.
    @Test func slowHandlerGetsEveryMessageInOrder() async throws {
        let context = try ZMQContext()
        let endpoint = "ipc://\(FileManager.default.temporaryDirectory.path)/tickwire-handler-\(UUID().uuidString.prefix(8))"
        let seen = Mutex<(values: [Int], threads: Set<String>)>(([], []))
        let sub = try OwnedSocket(context: context, type: .sub, name: "handled", handler: { batch in
            let thread = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?"
            seen.withLock { seen in
                seen.threads.insert(thread.trimmingCharacters(in: .whitespacesAndNewlines))
                seen.values += batch.map { Int(String(decoding: $0.last ?? Data(), as: UTF8.self)) ?? -1 }
            }
            Thread.sleep(forTimeInterval: 0.001)
        }) { socket in
            try socket.set(.receiveHighWaterMark, 100)
            try socket.subscribe("m")
            try socket.bind(endpoint)
        }
        let pub = try Socket(context: context, type: .pub)
        try pub.set(.sendHighWaterMark, 0)
        try pub.connect(endpoint)
        // The subscription reaches the PUB in the background: a first message until one arrives.
        while seen.withLock({ $0.values.isEmpty }) {
            try pub.send([Data("m".utf8), Data("-2".utf8)])
            try await Task.sleep(for: .milliseconds(20))
        }
        for index in 0..<5_000 { #expect(try pub.send([Data("m".utf8), Data(String(index).utf8)])) }
        // Until all 5,000 arrived, or a generous deadline on a loaded machine (a late joining -2 is left out).
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.withLock({ $0.values.count { $0 >= 0 } }) < 5_000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(20))
        }
        let (values, threads) = seen.withLock { ($0.values, $0.threads) }
        #expect(values.filter { $0 >= 0 } == Array(0..<5_000))
        #expect(values.drop { $0 < 0 }.allSatisfy { $0 >= 0 }, "no joining message after the numbered ones")
        #expect(threads == ["zmq-handled"])
        #expect(sub.droppedReceives == 0)
        pub.close()
        await sub.close()
        var iterator = sub.incoming.makeAsyncIterator()
        #expect(await iterator.next() == nil, "incoming yields nothing and ends with the socket")
    }
}
