import Foundation
import Synchronization
import Testing
import ZeroMQ

/// A unique endpoint of each transport for one test.
func endpoint(_ transport: String) -> String {
    let name = "tickwire-test-\(UUID().uuidString.prefix(8))"
    switch transport {
    case "inproc": return "inproc://\(name)"
    case "ipc": return "ipc:///tmp/\(name)"
    default: return "tcp://127.0.0.1:*"
    }
}

/// The next message of `socket`, or `nil` after `timeout`.
func next(_ socket: OwnedSocket, within timeout: Duration = .seconds(5)) async -> [Data]? {
    await socket.incoming.first(within: timeout)
}

/// The next batch of `socket`: nil once its `incoming` finished, empty when nothing came within `timeout` (a
/// plain `wake()` then ends the wait, independent of `wake(at:)`).
func nextBatch(_ socket: OwnedSocket, within timeout: Duration) async -> [[Data]]? {
    let watchdog = Task {
        try await Task.sleep(for: timeout)
        socket.incoming.wake()
    }
    defer { watchdog.cancel() }
    return await socket.incoming.nextBatch()
}

func frames(_ parts: String...) -> [Data] { parts.map { Data($0.utf8) } }
func text(_ frames: [Data]?) -> [String] { (frames ?? []).map { String(decoding: $0, as: UTF8.self) } }

@Suite("ZeroMQ wrapper")
struct ZeroMQTests {
    let context: ZMQContext

    init() throws { context = try ZMQContext() }

    /// A PULL socket bound at a fresh inproc address and a PUSH socket connected to it, neither with a high-water mark.
    func losslessPushPull(receiveBuffer: Int = 100_000) throws -> (pull: OwnedSocket, push: OwnedSocket) {
        let address = endpoint("inproc")
        let pull = try OwnedSocket(context: context, type: .pull, name: "pull", receiveBuffer: receiveBuffer) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try socket.bind(address)
        }
        let push = try OwnedSocket(context: context, type: .push, name: "push") { socket in
            try socket.set(.sendHighWaterMark, 0)
            try socket.connect(address)
        }
        return (pull, push)
    }

    /// A SUB receives only the topics under its prefix, on every transport.
    @Test(arguments: ["inproc", "ipc", "tcp"])
    func publishSubscribeFiltersByPrefix(transport: String) async throws {
        let requested = endpoint(transport)
        let publisher = try OwnedSocket(context: context, type: .pub, name: "pub") { try $0.bind(requested) }
        let bound = try publisher.perform { try $0.lastEndpoint() }
        let subscriber = try OwnedSocket(context: context, type: .sub, name: "sub") { socket in
            try socket.subscribe("quote.")
            try socket.connect(bound)
        }
        // A SUB joins asynchronously: publish until the first message arrives.
        let sender = Task {
            while !Task.isCancelled {
                publisher.post(frames("rate.ecb.EUR-USD", "no"))
                publisher.post(frames("quote.bitso.BTC-MXN", "yes"))
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        var received: [[String]] = []
        for _ in 0..<5 {
            received.append(text(await next(subscriber)))
        }
        sender.cancel()
        #expect(received.allSatisfy { $0 == ["quote.bitso.BTC-MXN", "yes"] })
        await subscriber.close()
        await publisher.close()
    }

    /// Messages read in batches keep their order, and an iterator made later continues where the last one stopped.
    @Test func incomingKeepsOrderAcrossBatchesAndIterators() async throws {
        let (pull, push) = try losslessPushPull()
        let count = 20_000
        for index in 0..<count { push.post([Data(String(index).utf8)]) }
        var received: [Int] = []
        var iterator = pull.incoming.makeAsyncIterator()
        while received.count < 10, let message = await iterator.next() { received.append(Int(text(message)[0])!) }
        while received.count < 20, let message = await next(pull) { received.append(Int(text(message)[0])!) }
        let reader = Task {
            var rest: [Int] = []
            while rest.count < count - 20, let batch = await pull.incoming.nextBatch() {
                rest += batch.map { Int(text($0)[0])! }
            }
            return rest
        }
        let timeout = Task {
            try await Task.sleep(for: .seconds(20))
            reader.cancel()
        }
        received += await reader.value
        timeout.cancel()
        #expect(received == Array(0..<count))
        #expect(push.droppedSends == 0)
        #expect(pull.droppedReceives == 0)
        await push.close()
        await pull.close()
    }

    /// Messages of any shape (empty frames, one frame, several, frames larger than a batch's first buffer)
    /// come out of `incoming` exactly as sent, in order, whether read one at a time or in batches, across
    /// the owner thread's batches.
    @Test func incomingKeepsEveryFrameOfEveryMessage() async throws {
        let (pull, push) = try losslessPushPull()
        func frames(_ index: Int) -> [Data] {
            switch index % 4 {
            case 0: [Data(), Data("\(index)".utf8)]
            case 1: [Data("\(index)".utf8)]
            case 2: [Data("a".utf8), Data(), Data("\(index)".utf8), Data()]
            default: [Data(repeating: UInt8(index % 251), count: 9_000), Data("\(index)".utf8)]
            }
        }
        let count = 4_000
        for index in 0..<count { push.post(frames(index)) }
        var received: [[Data]] = []
        var iterator = pull.incoming.makeAsyncIterator()
        let deadline = ContinuousClock.now + .seconds(20)
        while received.count < count, ContinuousClock.now < deadline {
            if received.count % 3 == 0, let batch = await pull.incoming.nextBatch() {
                received += batch
            } else if let message = await iterator.next() {
                received.append(message)
            }
        }
        #expect(received.count == count)
        #expect(received == (0..<count).map(frames))
        #expect(pull.droppedReceives == 0)
        await push.close()
        await pull.close()
    }

    /// A reader that falls `receiveBuffer` behind loses the newest messages, counted, never the oldest.
    @Test func incomingDropsTheNewestPastItsLimit() async throws {
        let (pull, push) = try losslessPushPull(receiveBuffer: 100)
        for index in 0..<1000 { push.post([Data(String(index).utf8)]) }
        let deadline = ContinuousClock.now + .seconds(10)
        while pull.droppedReceives < 900, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(pull.droppedReceives == 900)
        let held = await pull.incoming.nextBatch() ?? []
        #expect(held.map { Int(text($0)[0])! } == Array(0..<100))
        await push.close()
        await pull.close()
    }

    /// A reader waiting for a message gets nil when its task is cancelled, and the socket reads on.
    @Test func cancelledReaderGetsNil() async throws {
        let address = endpoint("inproc")
        let pull = try OwnedSocket(context: context, type: .pull, name: "pull") { try $0.bind(address) }
        let waiting = Task {
            var iterator = pull.incoming.makeAsyncIterator()
            return await iterator.next()
        }
        try await Task.sleep(for: .milliseconds(50))
        waiting.cancel()
        #expect(await waiting.value == nil)
        let push = try OwnedSocket(context: context, type: .push, name: "push") { try $0.connect(address) }
        push.post(frames("after"))
        #expect(text(await next(pull)) == ["after"])
        await push.close()
        await pull.close()
    }

    /// `first(within:)` loses no message that its reader took as the time ran out: 2,000 messages sent at about the
    /// pace of its 300-microsecond timeout, read with it until all came, arrive every one, in order.
    @Test func firstWithinLosesNoMessageAtItsTimeout() async throws {
        let (pull, push) = try losslessPushPull()
        let count = 2_000
        let sender = Thread {
            for index in 0..<count {
                push.post([Data(String(index).utf8)])
                usleep(UInt32(100 + index % 5 * 100))
            }
        }
        sender.start()
        var received: [Int] = []
        let deadline = ContinuousClock.now + .seconds(30)
        while received.count < count, ContinuousClock.now < deadline {
            if let message = await pull.incoming.first(within: .microseconds(300)) { received.append(Int(text(message)[0]) ?? -1) }
        }
        #expect(received == Array(0..<count))
        await push.close()
        await pull.close()
    }

    /// `wake()` makes a waiting `nextBatch()` return empty; the message iterator never sees a wake-up,
    /// and a batch that is waiting comes whole.
    @Test func wakeReturnsAnEmptyBatch() async throws {
        let address = endpoint("inproc")
        let pull = try OwnedSocket(context: context, type: .pull, name: "pull") { try $0.bind(address) }
        let waiting = Task { await pull.incoming.nextBatch() }
        try await Task.sleep(for: .milliseconds(50))
        pull.incoming.wake()
        #expect(await waiting.value?.isEmpty == true)
        let push = try OwnedSocket(context: context, type: .push, name: "push") { try $0.connect(address) }
        pull.incoming.wake()
        push.post(frames("after"))
        #expect(text(await next(pull)) == ["after"])
        await push.close()
        await pull.close()
    }

    /// `wake(at:)` makes a waiting `nextBatch()` return empty at its deadline and not before; a later call
    /// replaces the deadline (an earlier one wakes the socket's sleeping thread sooner), and nil cancels it.
    @Test func wakeAtADeadline() async throws {
        let pull = try OwnedSocket(context: context, type: .pull, name: "pull") { try $0.bind(endpoint("inproc")) }
        let clock = ContinuousClock()
        var deadline = clock.now + .milliseconds(150)
        pull.incoming.wake(at: deadline)
        #expect(await pull.incoming.nextBatch()?.isEmpty == true)
        #expect(clock.now >= deadline, "woken before its deadline")

        // The thread sleeps towards a deadline a minute away; an earlier one set meanwhile still comes on time.
        pull.incoming.wake(at: clock.now + .seconds(60))
        try await Task.sleep(for: .milliseconds(50))
        deadline = clock.now + .milliseconds(100)
        pull.incoming.wake(at: deadline)
        #expect(await nextBatch(pull, within: .seconds(20))?.isEmpty == true)
        #expect(clock.now >= deadline)
        #expect(clock.now - deadline < .seconds(15), "the earlier deadline did not wake the sleeping thread")

        // Cancelled: nothing comes, so a plain wake() is what ends the wait.
        pull.incoming.wake(at: clock.now + .milliseconds(100))
        pull.incoming.wake(at: nil)
        let start = clock.now
        #expect(await nextBatch(pull, within: .milliseconds(400))?.isEmpty == true)
        #expect(clock.now - start >= .milliseconds(400), "woken at the cancelled deadline")
        await pull.close()
    }

    /// Sends on the caller's thread may take the socket's `ZMQ_FD` signal; none of them may leave a message
    /// unnoticed. Eight DEALERs, each from its own task, ping a ROUTER that answers from its reader: every
    /// round trip waits on a wake-up, so one lost would stall its DEALER. The race is narrow, so this is a
    /// stress test of the whole path rather than a reproduction of it.
    @Test func sendingAndReceivingFromManyTasksLosesNoWakeUp() async throws {
        let router = try OwnedSocket(context: context, type: .router, name: "router") { try $0.bind("tcp://127.0.0.1:*") }
        let address = try router.perform { try $0.lastEndpoint() }
        let echo = Task {
            for await frames in router.incoming { router.post(frames) }
        }
        #expect(try await pingFromEightDealers(context: context, address: address) == [Int](repeating: 500, count: 8))
        #expect(router.droppedSends == 0)
        echo.cancel()
        await router.close()
    }

    /// The receiving thread sleeps while nothing happens, whatever the socket: a REQ that has not sent (libzmq
    /// refuses its receives), a SUB with nothing published, a PUSH that never receives.
    @Test(arguments: [SocketType.req, .sub, .push])
    func idleSocketThreadSleeps(type: SocketType) async throws {
        let name = "idle-\(UUID().uuidString.prefix(6))"
        let socket = try OwnedSocket(context: context, type: type, name: name) { try $0.connect("tcp://127.0.0.1:1") }
        try await Task.sleep(for: .milliseconds(100))
        let thread = try #require(await threadID(named: "zmq-\(name)"))
        let before = try cpuTicks(ofThread: thread)
        try await Task.sleep(for: .milliseconds(600))
        // A thread that polled in a loop would use most of the 600 ms (60 ticks).
        #expect(try cpuTicks(ofThread: thread) - before <= 5)
        await socket.close()
    }

    /// Shutting the context down ends a receiving socket's `incoming`, also for a REQ that waits for no reply
    /// (libzmq refuses its receives without looking at the socket's commands).
    @Test(arguments: [SocketType.req, .sub, .pull])
    func contextShutdownFinishesIncoming(type: SocketType) async throws {
        let context = try ZMQContext()
        let socket = try OwnedSocket(context: context, type: type, name: "shutdown") { try $0.connect("tcp://127.0.0.1:1") }
        try await Task.sleep(for: .milliseconds(100))
        context.shutdown()
        #expect(await nextBatch(socket, within: .seconds(10)) == nil, "incoming did not finish after the context shut down")
        await socket.close()
    }

    /// A socket that no one can reach any more closes itself and its thread ends, even if `close()` was never
    /// called; while its `incoming` is still held, it stays open and receives.
    @Test func unreachableSocketCloses() async throws {
        let name = "drop-\(UUID().uuidString.prefix(6))"
        let address = endpoint("inproc")
        var incoming: OwnedSocket.Incoming? = try OwnedSocket(context: context, type: .pull, name: name) {
            try $0.bind(address)
        }.incoming
        let push = try Socket(context: context, type: .push)
        try push.connect(address)
        #expect(try push.send(frames("still open")))
        var iterator = incoming?.makeAsyncIterator()
        incoming = nil
        #expect(text(await iterator?.next()) == ["still open"])
        let thread = try #require(await threadID(named: "zmq-\(name)"))
        iterator = nil
        #expect(await threadEnds(thread, within: .seconds(10)), "the receiving thread of a dropped socket still runs")
        push.close()
    }

    /// Messages of any size arrive whole: no fixed receive buffer truncates them.
    @Test func largeMultipartMessagesArriveIntact() async throws {
        let address = endpoint("inproc")
        let server = try OwnedSocket(context: context, type: .rep, name: "rep") { try $0.bind(address) }
        let client = try OwnedSocket(context: context, type: .req, name: "req") { try $0.connect(address) }
        let big = Data((0..<(8 * 1024 * 1024)).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let request = [Data("head".utf8), big, Data()]
        #expect(try client.send(request))
        let got = try #require(await next(server))
        #expect(got == request)
        try server.send([big])
        #expect(await next(client) == [big])
        await client.close()
        await server.close()
    }

    /// libzmq failures become Swift errors that carry zmq_strerror's text.
    @Test func errorsCarryLibzmqText() throws {
        let socket = try Socket(context: context, type: .pub)
        let error = #expect(throws: ZMQError.self) { try socket.bind("bogus://nowhere") }
        #expect(error?.operation == "zmq_bind(bogus://nowhere)")
        #expect(error?.message.isEmpty == false)
        #expect(error?.description.contains("Protocol not supported") == true)
        socket.close()
        let closed = #expect(throws: ZMQError.self) { try socket.bind("inproc://x") }
        #expect(closed?.message == "socket is closed")
    }

    /// Options read back what was set.
    @Test func optionsRoundTrip() throws {
        let socket = try Socket(context: context, type: .req)
        try socket.set(.sendHighWaterMark, 123)
        try socket.set(.receiveTimeout, 250)
        try socket.set(.reqRelaxed, true)
        try socket.set(.reqCorrelate, true)
        #expect(try socket.get(.sendHighWaterMark) == 123)
        #expect(try socket.get(.receiveTimeout) == 250)
        #expect(try socket.get(.linger) == 0)
    }

    /// A non-blocking receive on an empty socket is `nil`, not an error or a hang.
    @Test func emptyReceiveIsNil() throws {
        let socket = try Socket(context: context, type: .pull)
        try socket.bind(endpoint("inproc"))
        #expect(try socket.receive() == nil)
    }

    /// CURVE-encrypted request and reply with generated keys.
    @Test func curveEncryptedRoundTrip() async throws {
        let server = try CurveKeyPair.generate()
        let client = try CurveKeyPair.generate()
        #expect(server.publicKey.utf8.count == 40)
        let rep = try OwnedSocket(context: context, type: .rep, name: "curve-rep") { socket in
            try socket.set(.curveServer, true)
            try socket.set(.curveSecretKey, Data(server.secretKey.utf8))
            try socket.bind("tcp://127.0.0.1:*")
        }
        let address = try rep.perform { try $0.lastEndpoint() }
        let req = try OwnedSocket(context: context, type: .req, name: "curve-req") { socket in
            try socket.set(.curveServerKey, Data(server.publicKey.utf8))
            try socket.set(.curvePublicKey, Data(client.publicKey.utf8))
            try socket.set(.curveSecretKey, Data(client.secretKey.utf8))
            try socket.connect(address)
        }
        try req.send(frames("secret"))
        #expect(text(await next(rep)) == ["secret"])
        try rep.send(frames("reply"))
        #expect(text(await next(req)) == ["reply"])
        await req.close()
        await rep.close()
    }

    /// Closing with messages still queued to an absent peer returns at once (linger 0).
    @Test func closeDoesNotHang() async throws {
        let context = try ZMQContext()
        let push = try OwnedSocket(context: context, type: .push, name: "push") { try $0.connect("tcp://127.0.0.1:1") }
        for _ in 0..<100 { push.post(frames("unsent")) }
        let start = ContinuousClock.now
        await push.close()
        await push.close()
        // Linger 0 makes this instant; the bound only catches a hang, since the suite's CPU-bound tests share the
        // cooperative pool and can hold back the close's continuation for seconds.
        #expect(ContinuousClock.now - start < .seconds(20), "closing must not wait for the unsent messages")
        #expect(throws: ZMQError.self) { try push.send(frames("late")) }
    }

    /// Calls racing a close are all answered: a second close returns and a late call fails, rather than
    /// waiting forever.
    @Test func callsRacingACloseAreAnswered() async throws {
        let context = try ZMQContext()
        let answered = Tally()
        for _ in 0..<50 {
            let socket = try OwnedSocket(context: context, type: .pub, name: "pub") { try $0.bind("inproc://close-\(UUID())") }
            try socket.perform { _ in }  // the receiving thread is running and idle
            // Unstructured, so a call that is never answered fails the count below instead of hanging the run.
            Task { await socket.close(); answered.add() }
            Task { await socket.close(); answered.add() }
            Task { _ = try? socket.perform { _ in }; answered.add() }
            Task { _ = try? socket.send([Data("late".utf8)]); answered.add() }
        }
        // Generous: the suite's CPU-bound tests can hold the cooperative pool for many seconds on 2 cores.
        let deadline = ContinuousClock.now + .seconds(60)
        while answered.value < 200, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(answered.value == 200)
    }

    /// A `LockedSocket` sent on by many tasks at once delivers every multipart message whole: the lock
    /// keeps one task's frames from interleaving with another's.
    @Test func lockedSocketSendsFromManyTasks() async throws {
        let address = endpoint("inproc")
        let pull = try OwnedSocket(context: context, type: .pull, name: "pull", receiveBuffer: 10_000) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try socket.bind(address)
        }
        let push = try LockedSocket(context: context, type: .push) { socket in
            try socket.set(.sendHighWaterMark, 0)
            try socket.connect(address)
        }
        let senders = 8, each = 500
        await withTaskGroup(of: Void.self) { group in
            for sender in 0..<senders {
                group.addTask {
                    for index in 0..<each { push.send(frames("sender-\(sender)", "\(index)", "end-\(sender)")) }
                }
            }
        }
        var next = [Int](repeating: 0, count: senders)
        var iterator = pull.incoming.makeAsyncIterator()
        for _ in 0..<(senders * each) {
            let message = text(await iterator.next())
            let sender = Int(message.first?.dropFirst("sender-".count) ?? "") ?? -1
            try #require((0..<senders).contains(sender) && message.count == 3, "\(message)")
            #expect(message == ["sender-\(sender)", "\(next[sender])", "end-\(sender)"])
            next[sender] += 1
        }
        #expect(next == [Int](repeating: each, count: senders))
        #expect(push.droppedSends == 0)
        push.close()
        await pull.close()
    }

    /// A closed `LockedSocket` refuses and counts sends, and answers calls with `ENOTSOCK`; closing twice is harmless.
    @Test func lockedSocketAfterClose() throws {
        let pub = try LockedSocket(context: context, type: .pub) { try $0.bind(endpoint("inproc")) }
        #expect(try pub.withSocket { try $0.lastEndpoint() }.hasPrefix("inproc://"))
        #expect(pub.send(frames("quote.x", "sent")))
        pub.close()
        pub.close()
        #expect(!pub.send(frames("quote.x", "late")))
        #expect(pub.droppedSends == 1)
        #expect(throws: ZMQError.self) { try pub.withSocket { try $0.lastEndpoint() } }
    }
}

/// The id of this process's thread whose name (as `/proc` shows it, at most 15 bytes) is `name`, waiting up to
/// `timeout` for it: a thread names itself once it runs, which on a loaded machine can take a while.
func threadID(named name: String, within timeout: Duration = .seconds(10)) async -> String? {
    let comm = String(name.utf8.prefix(15))!
    return await firstAnswer(within: timeout) {
        let tasks = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task")) ?? []
        return tasks.first { id in
            (try? String(contentsOfFile: "/proc/self/task/\(id)/comm", encoding: .utf8))?.trimmingCharacters(in: .newlines) == comm
        }
    }
}

/// Whether this process's thread `id` has ended within `timeout`.
func threadEnds(_ id: String, within timeout: Duration) async -> Bool {
    await firstAnswer(within: timeout) { FileManager.default.fileExists(atPath: "/proc/self/task/\(id)") ? nil : true } ?? false
}

/// The first answer of `probe`, asked every 20 ms until `timeout` has passed; nil if it never answered.
func firstAnswer<T>(within timeout: Duration, _ probe: () -> T?) async -> T? {
    let deadline = ContinuousClock.now + timeout
    while true {
        if let answer = probe() { return answer }
        guard ContinuousClock.now < deadline else { return nil }
        try? await Task.sleep(for: .milliseconds(20))
    }
}

/// The CPU time a thread of this process has used, in clock ticks (user + system, from `/proc`).
func cpuTicks(ofThread id: String) throws -> Int {
    let stat = try String(contentsOfFile: "/proc/self/task/\(id)/stat", encoding: .utf8)
    // The fields after the parenthesised name: state is the 3rd field, utime the 14th and stime the 15th.
    let fields = stat[stat.index(after: stat.lastIndex(of: ")")!)...].split(separator: " ")
    return Int(fields[11])! + Int(fields[12])!
}

/// A count several tasks add to.
private final class Tally: Sendable {
    private let count = Mutex(0)
    func add() { count.withLock { $0 += 1 } }
    var value: Int { count.withLock { $0 } }
}

/// Eight DEALERs (read by `loop` when given), each sending from its own task, ping the ROUTER at `address` 500 times
/// each and check every reply; returns how many round trips each completed.
func pingFromEightDealers(context: ZMQContext, address: String, loop: ServiceLoop? = nil) async throws -> [Int] {
    try await withThrowingTaskGroup(of: Int.self) { group in
        for dealer in 0..<8 {
            group.addTask {
                let socket = try OwnedSocket(context: context, type: .dealer, name: "dealer-\(dealer)", loop: loop) { try $0.connect(address) }
                var done = 0
                for round in 0..<500 {
                    #expect(try socket.send(frames("\(dealer)", "\(round)")))
                    guard let reply = await next(socket) else { break }
                    #expect(text(reply) == ["\(dealer)", "\(round)"])
                    done += 1
                }
                await socket.close()
                return done
            }
        }
        return try await group.reduce(into: []) { $0.append($1) }
    }
}
