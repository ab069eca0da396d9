import Bus
import Foundation
import Testing
import ZeroMQ
import BusContract

/// Whether a default actor called from a handler runs on the server's loop (SE-0417: it follows the task's executor
/// preference).
actor LoopProbe {
    func isOn(_ loop: ServiceLoop) -> Bool { loop.isCurrent }
}

/// Methods that tell where they ran and what deadline they were given.
enum LoopAPI {
    static let onLoop = RPCMethod<NoParams, Bool>("on.loop")
    static let actorOnLoop = RPCMethod<NoParams, Bool>("actor.on.loop")
    static let deadline = RPCMethod<NoParams, Int>("deadline")
    static let slow = RPCMethod<NoParams, String>("slow")
    static let relay = RPCMethod<NoParams, String>("relay")
}

/// ``sampleMethods()`` and ``LoopAPI``'s, those telling whether they ran on `loop`.
func loopMethods(_ loop: ServiceLoop, relay: RPCClient? = nil) -> RPCMethods {
    var methods = sampleMethods()
    let probe = LoopProbe()
    methods.register(LoopAPI.onLoop) { loop.isCurrent }
    methods.register(LoopAPI.actorOnLoop) { await probe.isOn(loop) }
    // Milliseconds left until the request's deadline; -1 without one.
    methods.register(LoopAPI.deadline) { RPCDeadline.current.map { Int(($0 - .now) / .milliseconds(1)) } ?? -1 }
    methods.register(LoopAPI.slow) { () async throws -> String in
        try await Task.sleep(for: .seconds(60))
        return "late"
    }
    if let relay {
        // A handler calling another service through a client on the same loop, as the converter's `convert.series` does.
        methods.register(LoopAPI.relay) { () async throws -> String in
            let pong = try await relay.call(SampleAPI.ping)
            return loop.isCurrent ? "\(pong) on the loop" : "\(pong) off the loop"
        }
    }
    return methods
}

/// An ``RPCServer`` and ``RPCClient`` each on a ``ServiceLoop``: the same answers, errors, deadlines and Lazy Pirate
/// retries as on threads of their own, with the handlers and a caller that prefers the client's loop on the loops' threads.
@Suite("JSON-RPC on service loops")
struct RPCOnLoopTests {
    /// Answers, errors and concurrent calls between a server on one loop and a client on another; handlers (and a
    /// default actor they call) run on the server's loop, and a caller that prefers the client's loop is back on it.
    @Test func callsAreAnsweredOnTheLoops() async throws {
        let context = try ZMQContext()
        let serverLoop = try ServiceLoop(name: "server")
        let clientLoop = try ServiceLoop(name: "client")
        let server = try RPCServer(
            context: context, service: "test", endpoints: ["tcp://127.0.0.1:*"], methods: loopMethods(serverLoop), logger: testLogger, loop: serverLoop)
        let address = try server.boundEndpoint()
        let serving = Task { await server.run() }
        let client = try RPCClient(context: context, endpoint: address, timeout: .seconds(10), loop: clientLoop)

        let echoed = try await client.call(SampleAPI.echo, ConvertParams(amount: "2.345", currency: "SEK"))
        #expect(echoed == ConvertParams(amount: "2.345", currency: "SEK"))
        #expect(try await client.call(LoopAPI.onLoop), "the handler ran off the server's loop")
        #expect(try await client.call(LoopAPI.actorOnLoop), "the handler's actor ran off the server's loop")
        await #expect(throws: RPCError.notFound("no such thing")) { try await client.call(SampleAPI.fail) }
        let crash = await #expect(throws: RPCError.self) { try await client.call(SampleAPI.crash) }
        #expect(crash?.code == RPCError.Code.internalError)

        try await withTaskExecutorPreference(clientLoop) {
            #expect(clientLoop.isCurrent)
            for index in 0..<200 {
                let reply = try await client.call(SampleAPI.echo, ConvertParams(amount: "\(index)", currency: "EUR"))
                #expect(reply.amount == "\(index)")
                #expect(clientLoop.isCurrent, "a caller that prefers the client's loop was resumed off it")
            }
            await #expect(throws: RPCError.notFound("no such thing")) { try await client.call(SampleAPI.fail) }
            #expect(clientLoop.isCurrent)
        }

        try await expectConcurrentCallsAnswered(client)
        serving.cancel()
        await serving.value
        await client.close()
        await clientLoop.shutdown()
        await serverLoop.shutdown()
    }

    /// A handler on the loop sees the caller's deadline; a call whose deadline passes before a slow handler answers
    /// fails with `deadlineExceeded` in about that time, and the server answers the next call.
    @Test func deadlinesHold() async throws {
        let context = try ZMQContext()
        let serverLoop = try ServiceLoop(name: "server")
        let clientLoop = try ServiceLoop(name: "client")
        let address = ipcEndpoint()
        let server = try RPCServer(context: context, service: "test", endpoints: [address], methods: loopMethods(serverLoop), logger: testLogger, loop: serverLoop)
        let serving = Task { await server.run() }
        let client = try RPCClient(context: context, endpoint: address, timeout: .seconds(40), retries: 0, loop: clientLoop)

        // Wide bounds: the suite's tests share 2 cores, and a request may wait seconds for the server's loop.
        let left = try await client.call(LoopAPI.deadline, NoParams(), deadline: .now + .seconds(30))
        #expect(left > 15_000 && left <= 30_000, "the handler saw \(left) ms left of 30 s")
        let attempt = try await client.call(LoopAPI.deadline)
        #expect(attempt > 30_000 && attempt <= 40_000, "without a deadline, the attempt's 40 s are the server's: \(attempt) ms left")

        await withTaskExecutorPreference(clientLoop) {
            let start = ContinuousClock.now
            let error = await #expect(throws: RPCClientError.self) {
                try await client.call(LoopAPI.slow, NoParams(), deadline: .now + .milliseconds(300))
            }
            guard case .deadlineExceeded? = error else { Issue.record("expected deadlineExceeded, got \(String(describing: error))"); return }
            // The handler takes 60 s and the attempt 40 s: only the deadline ends the call this soon.
            #expect(ContinuousClock.now - start < .seconds(20), "the deadline of 300 ms held the call for \(ContinuousClock.now - start)")
            #expect(clientLoop.isCurrent)
        }
        #expect(try await client.call(SampleAPI.ping) == "pong")
        serving.cancel()
        await serving.value
        await client.close()
        await clientLoop.shutdown()
        await serverLoop.shutdown()
    }

    /// A handler on a loop that calls another server through a client on the same loop is answered (the loop reads
    /// the client's reply while the handler waits), and is back on the loop after that call.
    @Test func aHandlerCallsOnThroughItsOwnLoop() async throws {
        let context = try ZMQContext()
        let loop = try ServiceLoop(name: "middle")
        let upstreamAddress = ipcEndpoint(), address = ipcEndpoint()
        let upstream = try RPCServer(context: context, service: "upstream", endpoints: [upstreamAddress], methods: sampleMethods(), logger: testLogger)
        let relay = try RPCClient(context: context, endpoint: upstreamAddress, timeout: .seconds(10), loop: loop)
        let server = try RPCServer(
            context: context, service: "middle", endpoints: [address], methods: loopMethods(loop, relay: relay), logger: testLogger, loop: loop)
        let serving = [Task { await upstream.run() }, Task { await server.run() }]
        let client = try RPCClient(context: context, endpoint: address, timeout: .seconds(10))
        for _ in 0..<50 {
            #expect(try await client.call(LoopAPI.relay) == "pong on the loop")
        }
        serving.forEach { $0.cancel() }
        for task in serving { await task.value }
        await client.close()
        await relay.close()
        await loop.shutdown()
    }

    /// A dead server is a clear error after the client's attempts (Lazy Pirate: each unanswered attempt resets the
    /// socket on the loop); once a server on a loop is up, the same client is answered.
    @Test func timeoutThenRecovery() async throws {
        let context = try ZMQContext()
        let clientLoop = try ServiceLoop(name: "client")
        let address = ipcEndpoint()
        let client = try RPCClient(context: context, endpoint: address, timeout: .milliseconds(200), retries: 1, loop: clientLoop)
        let start = ContinuousClock.now
        let error = await #expect(throws: RPCClientError.self) {
            try await withTaskExecutorPreference(clientLoop) { try await client.call(SampleAPI.ping) }
        }
        #expect(ContinuousClock.now - start < .seconds(20), "two attempts of 200 ms must not hang")
        #expect(error?.description.contains("no reply from \(address) to ping after 2 attempts") == true)

        let serverLoop = try ServiceLoop(name: "server")
        let server = try RPCServer(context: context, service: "test", endpoints: [address], methods: sampleMethods(), logger: testLogger, loop: serverLoop)
        let serving = Task { await server.run() }
        // A just-started server may miss one call's attempts on a loaded machine: the same client calls again.
        var answer: String?
        for _ in 0..<60 where answer == nil {
            answer = try? await withTaskExecutorPreference(clientLoop) { try await client.call(SampleAPI.ping) }
        }
        #expect(answer == "pong")
        serving.cancel()
        await serving.value
        await client.close()
        await clientLoop.shutdown()
        await serverLoop.shutdown()
    }

    /// A call on a loop whose task is cancelled while it waits ends then, not at its timeout.
    @Test func cancelledCallEndsAtOnce() async throws {
        let context = try ZMQContext()
        let clientLoop = try ServiceLoop(name: "client")
        let client = try RPCClient(context: context, endpoint: ipcEndpoint(), timeout: .seconds(30), retries: 0, loop: clientLoop)
        let call = Task(executorPreference: clientLoop) { try await client.call(SampleAPI.ping) }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(ContinuousClock.now - start < .seconds(20), "the call waited for its 30 s timeout")
        await client.close()
        await clientLoop.shutdown()
    }
}
