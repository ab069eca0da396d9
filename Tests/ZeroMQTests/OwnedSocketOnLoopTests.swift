import Foundation
import Synchronization
import Testing
import ZeroMQ

/// A fresh ipc:// endpoint under the temporary directory.
private func ipcEndpoint(_ name: String) -> String {
    "ipc://\(FileManager.default.temporaryDirectory.path)/tickwire-\(name)-\(UUID().uuidString.prefix(8))"
}

/// Sends a first message from `pub` until `sub` has one (the subscription reaches the PUB in the background), then
/// drains what else came.
private func join(_ sub: OwnedSocket, from pub: Socket) async throws {
    var joined = false
    while !joined {
        try pub.send([Data("join".utf8)])
        joined = await next(sub, within: .milliseconds(50)) != nil
    }
    while await next(sub, within: .milliseconds(100)) != nil {}
}

@Suite("Sockets read by a service's loop")
struct OwnedSocketOnLoopTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// A PULL, a REP, a REQ and a SUB read by one loop: each stream arrives whole and in order, its readers (tasks
    /// that prefer the loop) are resumed on the loop's thread, and the loop sleeps once traffic stops.
    @Test func severalSocketsShareOneLoop() async throws {
        let loop = try ServiceLoop(name: "shared")
        let pullAddress = endpoint("inproc"), repAddress = endpoint("inproc"), pubAddress = ipcEndpoint("loop-sub")
        let pull = try OwnedSocket(context: context, type: .pull, name: "pull", loop: loop) { try $0.bind(pullAddress) }
        let rep = try OwnedSocket(context: context, type: .rep, name: "rep", loop: loop) { try $0.bind(repAddress) }
        let req = try OwnedSocket(context: context, type: .req, name: "req", loop: loop) { try $0.connect(repAddress) }
        let sub = try OwnedSocket(context: context, type: .sub, name: "sub", loop: loop) { socket in
            try socket.subscribe("")
            try socket.bind(pubAddress)
        }
        let push = try Socket(context: context, type: .push)
        try push.set(.sendHighWaterMark, 0)
        try push.connect(pullAddress)
        let pub = try Socket(context: context, type: .pub)
        try pub.set(.sendHighWaterMark, 0)
        try pub.connect(pubAddress)
        try await join(sub, from: pub)

        let count = 2_000
        let pulled = Task(executorPreference: loop) { () -> (values: [Int], onLoop: Bool) in
            var values: [Int] = [], onLoop = true
            for await message in pull.incoming {
                onLoop = onLoop && loop.isCurrent
                values.append(Int(text(message).first ?? "") ?? -1)
                if values.count == count { break }
            }
            return (values, onLoop)
        }
        let subscribed = Task(executorPreference: loop) { () -> (values: [Int], onLoop: Bool) in
            var values: [Int] = [], onLoop = true
            for await message in sub.incoming {
                onLoop = onLoop && loop.isCurrent
                values.append(Int(text(message).first ?? "") ?? -1)
                if values.count == count { break }
            }
            return (values, onLoop)
        }
        let answering = Task(executorPreference: loop) {
            for await request in rep.incoming { rep.post(frames("re:" + (text(request).first ?? ""))) }
        }
        let calling = Task(executorPreference: loop) { () -> [String] in
            var replies: [String] = []
            var iterator = req.incoming.makeAsyncIterator()
            for index in 0..<200 {
                guard try req.send(frames(String(index))), let reply = await iterator.next() else { break }
                replies.append(contentsOf: text(reply))
            }
            return replies
        }
        for index in 0..<count {
            #expect(try push.send(frames(String(index))))
            #expect(try pub.send(frames(String(index))))
        }
        let (pullValues, pullOnLoop) = await pulled.value
        let (subValues, subOnLoop) = await subscribed.value
        #expect(pullValues == Array(0..<count))
        #expect(subValues == Array(0..<count))
        #expect(pullOnLoop && subOnLoop, "readers resumed off the loop")
        #expect(try await calling.value == (0..<200).map { "re:\($0)" })

        let tid = await onLoop(loop) { currentThreadID() }
        try await Task.sleep(for: .milliseconds(100))
        let before = try cpuTicks(ofThread: tid)
        try await Task.sleep(for: .seconds(1))
        #expect(try cpuTicks(ofThread: tid) - before <= 2, "an idle loop with four sockets spins")
        push.close()
        pub.close()
        await rep.close()
        await answering.value
        for socket in [pull, req, sub] { await socket.close() }
        await loop.shutdown()
    }

    /// Sends from other threads may take an attached socket's `ZMQ_FD` signal; none may leave a message unnoticed by
    /// the loop. Eight DEALERs on one loop, each sending from its own task on the global pool, ping a ROUTER on the same
    /// loop whose reader (preferring the loop) answers: a lost wake-up would stall a DEALER.
    @Test func sendsFromManyTasksLoseNoWakeUpOnALoop() async throws {
        let loop = try ServiceLoop(name: "many")
        let router = try OwnedSocket(context: context, type: .router, name: "router", loop: loop) { try $0.bind("tcp://127.0.0.1:*") }
        let address = try router.perform { try $0.lastEndpoint() }
        let echo = Task(executorPreference: loop) {
            for await frames in router.incoming { router.post(frames) }
        }
        #expect(try await pingFromEightDealers(context: context, address: address, loop: loop) == [Int](repeating: 500, count: 8))
        #expect(router.droppedSends == 0)
        await router.close()
        await echo.value
        await loop.shutdown()
    }

    /// 5,000 messages to a SUB on a loop that holds 100 and whose reader (preferring the loop) is slow: every one
    /// arrives, in order, none dropped.
    @Test func holdWhenFullOnALoopLosesNothing() async throws {
        let loop = try ServiceLoop(name: "held")
        let address = ipcEndpoint("loop-hold")
        let sub = try OwnedSocket(context: context, type: .sub, name: "held", receiveBuffer: 100, holdWhenFull: true, loop: loop) { socket in
            try socket.set(.receiveHighWaterMark, 100)
            try socket.subscribe("")
            try socket.bind(address)
        }
        let pub = try Socket(context: context, type: .pub)
        try pub.set(.sendHighWaterMark, 0)
        try pub.connect(address)
        try await join(sub, from: pub)
        for index in 0..<5_000 { #expect(try pub.send([Data("m".utf8), Data(String(index).utf8)])) }
        let reader = Task(executorPreference: loop) { () -> [Int] in
            var received: [Int] = []
            for await message in sub.incoming where message.count == 2 {
                received.append(Int(String(decoding: message[1], as: UTF8.self)) ?? -1)
                if received.count % 250 == 0 { try? await Task.sleep(for: .milliseconds(5)) }
                if received.count == 5_000 { break }
            }
            return received
        }
        let watchdog = Task {
            try await Task.sleep(for: .seconds(30))
            await sub.close()
        }
        #expect(await reader.value == Array(0..<5_000))
        watchdog.cancel()
        #expect(sub.droppedReceives == 0)
        pub.close()
        await sub.close()
        await loop.shutdown()
    }

    /// A socket made with a handler and a loop hands its batches to the handler on the loop's thread, all in order.
    @Test func handlerRunsOnTheLoop() async throws {
        let loop = try ServiceLoop(name: "handled")
        let address = endpoint("inproc")
        let seen = Mutex<(values: [Int], offLoop: Int, threads: Set<String>)>(([], 0, []))
        let pull = try OwnedSocket(context: context, type: .pull, name: "handled", handler: { batch in
            let current = loop.isCurrent
            let thread = currentThreadName()
            seen.withLock { seen in
                if !current { seen.offLoop += 1 }
                seen.threads.insert(thread)
                seen.values += batch.map { Int(text($0).first ?? "") ?? -1 }
            }
        }, loop: loop) { try $0.bind(address) }
        let push = try Socket(context: context, type: .push)
        try push.set(.sendHighWaterMark, 0)
        try push.connect(address)
        for index in 0..<3_000 { #expect(try push.send(frames(String(index)))) }
        let deadline = ContinuousClock.now + .seconds(30)
        while seen.withLock({ $0.values.count }) < 3_000, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        let (values, offLoop, threads) = seen.withLock { ($0.values, $0.offLoop, $0.threads) }
        #expect(values == Array(0..<3_000))
        #expect(offLoop == 0)
        #expect(threads == ["loop-handled"])
        push.close()
        await pull.close()
        var iterator = pull.incoming.makeAsyncIterator()
        #expect(await iterator.next() == nil, "incoming yields nothing and ends with the socket")
        await loop.shutdown()
    }

    /// Closing one socket of a loop ends its `incoming` and leaves the loop's other socket receiving.
    @Test func closingOneSocketLeavesTheOthers() async throws {
        let loop = try ServiceLoop(name: "close-one")
        let firstAddress = endpoint("inproc"), secondAddress = endpoint("inproc")
        let first = try OwnedSocket(context: context, type: .pull, name: "first", loop: loop) { try $0.bind(firstAddress) }
        let second = try OwnedSocket(context: context, type: .pull, name: "second", loop: loop) { try $0.bind(secondAddress) }
        let push = try Socket(context: context, type: .push)
        try push.connect(secondAddress)
        await first.close()
        var iterator = first.incoming.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        #expect(throws: ZMQError.self) { try first.send(frames("closed")) }
        #expect(try push.send(frames("still here")))
        #expect(text(await next(second)) == ["still here"])
        push.close()
        await second.close()
        await loop.shutdown()
    }

    /// A REQ on a loop reset after a request that is never answered (Lazy Pirate) asks again on its fresh socket, which
    /// the loop reads from then on.
    @Test func resetOnALoop() async throws {
        let loop = try ServiceLoop(name: "reset")
        let address = endpoint("inproc")
        let rep = try OwnedSocket(context: context, type: .rep, name: "rep", loop: loop) { try $0.bind(address) }
        let req = try OwnedSocket(context: context, type: .req, name: "req", loop: loop) { try $0.connect(address) }
        #expect(try req.send(frames("lost")))
        #expect(text(await next(rep)) == ["lost"])
        try req.reset()
        // The REP owes the lost request its answer: it goes to the closed socket's peer, which is gone.
        try rep.send(frames("to the old socket"))
        for round in 0..<3 {
            #expect(try req.send(frames("ask \(round)")))
            #expect(text(await next(rep)) == ["ask \(round)"])
            try rep.send(frames("answer \(round)"))
            #expect(text(await next(req)) == ["answer \(round)"])
        }
        await req.close()
        await rep.close()
        await loop.shutdown()
    }

    /// A reader's deadline (`wake(at:)`) ends its wait on time when a loop keeps it; an earlier deadline set while the
    /// loop sleeps towards a later one still comes on time. The times are taken on the loop, where the reader is woken:
    /// the test's own task, resumed on the cooperative pool that the other tests share, may come back seconds later on
    /// a loaded machine, which says nothing about the loop.
    @Test func readerDeadlineFiresOnALoop() async throws {
        let loop = try ServiceLoop(name: "deadline")
        let pull = try OwnedSocket(context: context, type: .pull, name: "pull", loop: loop) { try $0.bind(endpoint("inproc")) }
        let clock = ContinuousClock()
        let deadline = clock.now + .milliseconds(150)
        pull.incoming.wake(at: deadline)
        let woken = Task(executorPreference: loop) { (await pull.incoming.nextBatch(), loop.isCurrent, clock.now) }
        let (batch, onLoop, wokenAt) = await woken.value
        #expect(batch?.isEmpty == true)
        #expect(onLoop)
        #expect(wokenAt >= deadline, "woken before its deadline")
        #expect(wokenAt - deadline < .seconds(5), "woken \(wokenAt - deadline) late")

        pull.incoming.wake(at: clock.now + .seconds(60))
        let second = Task(executorPreference: loop) { (await pull.incoming.nextBatch(), clock.now) }
        try await Task.sleep(for: .milliseconds(50))
        let earlier = clock.now + .milliseconds(100)
        pull.incoming.wake(at: earlier)
        // Only a lost wake-up lets the 60 s deadline stand: this ends the wait after 20 s instead.
        let watchdog = Task {
            try await Task.sleep(for: .seconds(20))
            pull.incoming.wake()
        }
        let (secondBatch, secondAt) = await second.value
        watchdog.cancel()
        #expect(secondBatch?.isEmpty == true)
        #expect(secondAt >= earlier)
        #expect(secondAt - earlier < .seconds(15), "the earlier deadline did not wake the sleeping loop")
        await pull.close()
        await loop.shutdown()
    }

    /// Shutting the loop down closes the sockets still attached: their `incoming` ends and sends fail. A socket made
    /// for a loop that was shut down is refused.
    @Test func shutdownClosesAttachedSockets() async throws {
        let loop = try ServiceLoop(name: "stop")
        let pull = try OwnedSocket(context: context, type: .pull, name: "pull", loop: loop) { try $0.bind(endpoint("inproc")) }
        let reader = Task { await pull.incoming.nextBatch() }
        try await Task.sleep(for: .milliseconds(50))
        await loop.shutdown()
        #expect(await reader.value == nil)
        #expect(throws: ZMQError.self) { try pull.send(frames("closed")) }
        await pull.close()
        #expect(throws: ZMQError.self) {
            try OwnedSocket(context: context, type: .pull, name: "late", loop: loop) { try $0.bind(endpoint("inproc")) }
        }
    }

    /// Shutting the context down ends the `incoming` of a socket on a loop, and the loop goes on.
    @Test(arguments: [SocketType.req, .sub, .pull])
    func contextShutdownFinishesIncomingOnALoop(type: SocketType) async throws {
        let loop = try ServiceLoop(name: "context")
        let context = try ZMQContext()
        let socket = try OwnedSocket(context: context, type: type, name: "shutdown", loop: loop) { try $0.connect("tcp://127.0.0.1:1") }
        try await Task.sleep(for: .milliseconds(100))
        context.shutdown()
        #expect(await nextBatch(socket, within: .seconds(10)) == nil, "incoming did not finish after the context shut down")
        await socket.close()
        #expect(await onLoop(loop) { loop.isCurrent })
        await loop.shutdown()
    }
}
