import Bus
import BusContract
import TickwireClients
import Foundation
import Market
import Logging
import Money
import ZeroMQ
import Subprocess
import TickwireContract
#if canImport(System)
import System
#else
import SystemPackage
#endif
#if canImport(Glibc)
import Glibc
#endif

@_silgen_name("prctl")
private func setTimerSlack(_ option: Int32, _ a2: UInt, _ a3: UInt, _ a4: UInt, _ a5: UInt) -> Int32

/// Benchmark 2: publish-to-decode latency at a steady rate, and RPC round trips.
enum LatencyBench {
    struct Percentiles {
        var samples: Int
        var p50: Double, p99: Double, p999: Double, max: Double  // microseconds
        init(_ micros: [Double]) {
            let sorted = micros.sorted()
            samples = sorted.count
            p50 = percentile(sorted, 50)
            p99 = percentile(sorted, 99)
            p999 = percentile(sorted, 99.9)
            max = sorted.last ?? .nan
        }
    }

    static func monotonicNanos() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
    }

    /// Sleeps until an absolute CLOCK_MONOTONIC deadline (timer slack set to 1 µs by the caller).
    static func sleep(untilNanos deadline: UInt64) {
        var ts = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nil) == EINTR {}
    }

    /// Bus `Publisher.publish` paced at `rate` messages/s on one topic; the subscriber decodes
    /// each envelope and takes now - (time taken just before `publish`). Warm-up second dropped.
    static func publishToDecode(rate: Int, seconds: Int) async throws -> Percentiles {
        let warmup = rate  // one second
        let count = rate * seconds + warmup
        let pubContext = try ZMQContext(), subContext = try ZMQContext()
        let publisher = try Publisher(
            context: pubContext, service: "bench", endpoints: ["tcp://127.0.0.1:*"], highWaterMark: 0,
            heartbeatInterval: .seconds(3600), logger: quietLogger())
        let endpoint = try await publisher.boundEndpoint()
        let sub = try OwnedSocket(context: subContext, type: .sub, name: "lat-sub", receiveBuffer: count + 10) { socket in
            try socket.set(.receiveHighWaterMark, 0)
            try socket.subscribe("quote.")
            try socket.connect(endpoint)
        }
        try await Task.sleep(for: .milliseconds(300))
        let sent = Unsafe(UnsafeMutablePointer<UInt64>.allocate(capacity: count + 1))
        defer { sent.value.deallocate() }
        let topic = BusBench.topics[0]
        let consumer = Task {
            var latencies: [Double] = []
            latencies.reserveCapacity(count)
            for await frames in sub.incoming {
                let envelope = try BusMessage(frames: frames).decode(Quote.self)
                let now = monotonicNanos()
                latencies.append(Double(now &- sent.value[Int(envelope.seq)]) / 1000)
                if envelope.seq == UInt64(count) { break }
            }
            return latencies
        }
        _ = try await onThread("lat-pub") {
            _ = setTimerSlack(29, 1, 0, 0, 0)  // PR_SET_TIMERSLACK: 1 ns
            let interval = UInt64(1_000_000_000 / rate)
            var deadline = monotonicNanos() + interval
            for index in 0..<count {
                sleep(untilNanos: deadline)
                deadline += interval
                sent.value[index + 1] = monotonicNanos()
                try publisher.publish(sampleQuotes[index & 63], on: topic)
            }
        }
        let latencies = try await consumer.value
        await publisher.close()
        await sub.close()
        return Percentiles(Array(latencies.dropFirst(warmup)))
    }

    /// Where the RPC round trip's two sides run (benchmark 2's two layouts, measured in the same rounds).
    enum RPCLayout: String, Sendable {
        /// Each side on a `ServiceLoop`, as services talk to each other: the server made with `loop:` (standing for the
        /// converter's loop), the client made with a second loop (standing for the calling service's) and the calls
        /// made from a task that prefers that loop. The judged row.
        case loops
        /// No loops: each socket read by a thread of its own, the server's requests and the caller on the global pool.
        case threads

        /// How benchmark 2's rows name the layout.
        var label: String {
            switch self {
            case .loops:
                "on service loops (server and caller each on a ServiceLoop, the caller's task preferring its loop: the product's service-to-service call, judged)"
            case .threads:
                "today's layout (no loops: each socket read by a thread of its own, the server's requests and the caller on the global pool; informative)"
            }
        }
    }

    /// The product's `convert` (`ConverterAPI.convert`, its `ConvertRequest` and `ConvertResult` coded directly), the
    /// rate derived per call along the shortest path as the Python peer derives it.
    static func convertMethods() throws -> RPCMethods {
        let graph = try ConversionBench.graph()
        var methods = RPCMethods()
        methods.register(ConverterAPI.convert) { request in
            let rate = try graph.rate(from: request.from, to: request.to)
            return ConvertResult(
                amount: try rate.convert(request.amount, scale: 2), currency: request.to, rate: rate.decimal(scale: 18),
                rateExact: true, path: rate.path, source: request.source ?? "ecb")
        }
        return methods
    }

    /// `convert` through Bus's RPCServer (ROUTER) and RPCClient (REQ, Lazy Pirate), sequential calls through the
    /// contract's `ConverterAPI.convert` as a service calls the converter, laid out as `layout`.
    static func rpcRoundTrip(calls: Int, layout: RPCLayout) async throws -> (Percentiles, String, stalls: Int) {
        let methods = try convertMethods()
        let serverLoop = layout == .loops ? try ServiceLoop(name: "bench-server") : nil
        let clientLoop = layout == .loops ? try ServiceLoop(name: "bench-client") : nil
        let context = try ZMQContext()
        let server = try RPCServer(
            context: context, service: "bench", endpoints: ["tcp://127.0.0.1:*"], methods: methods,
            logger: quietLogger(), loop: serverLoop)
        let endpoint = try server.boundEndpoint()
        let serving = Task { await server.run() }
        let clientContext = try ZMQContext()
        // The services' defaults: 2 s per attempt, 2 retries (Lazy Pirate). A call slower than 1 s is a stall.
        let client = try RPCClient(context: clientContext, endpoint: endpoint, logger: quietLogger(), loop: clientLoop)
        // Nil (no loop) leaves the calls on the global pool.
        let (micros, last) = try await withTaskExecutorPreference(clientLoop) { try await sequentialCalls(calls, to: client) }
        await client.close()
        serving.cancel()  // run() closes the socket when cancelled
        _ = await serving.value
        await clientLoop?.shutdown()
        await serverLoop?.shutdown()
        return (Percentiles(micros), last, micros.filter { $0 > 1_000_000 }.count)
    }

    /// `calls` sequential `convert` calls after 500 warm-up calls: each call's time in microseconds, and the last answer.
    private static func sequentialCalls(_ calls: Int, to client: RPCClient) async throws -> ([Double], String) {
        let clock = ContinuousClock()
        var micros: [Double] = []
        micros.reserveCapacity(calls)
        var last = ""
        let warmup = 500
        for index in 0..<(calls + warmup) {
            let request = ConvertRequest(
                amount: try ExactDecimal(mantissa: 129_899 + Int128(index % 1000), scale: 2),
                from: ["USD", "AUD", "SEK", "GBP"][index & 3], to: "EUR")
            let start = clock.now
            let result: ConvertResult
            do {
                result = try await client.call(ConverterAPI.convert, request)
            } catch {
                FileHandle.standardError.write(Data("RPC call \(index) failed: \(error)\n".utf8))
                throw error
            }
            let elapsed = clock.now - start
            if index >= warmup { micros.append(elapsed.microseconds) }
            last = "\(result.amount) \(result.currency)"
        }
        return (micros, last)
    }

    /// A `convert` request and its reply as the wire carries them, for the floor's prebuilt bytes.
    static let floorRequest = Data(#"{"jsonrpc":"2.0","id":1,"method":"convert","params":{"amount":"1298.99","from":"USD","to":"EUR"}}"#.utf8)
    static let floorReply = Data(#"{"jsonrpc":"2.0","id":1,"result":{"amount":"1188.23","currency":"EUR"}}"#.utf8)
    static let floorStop = Data("stop".utf8)

    /// The floor of an RPC round trip: raw libzmq REQ <-> REP in Swift, laid out as the Python peer is: the server a
    /// process of its own (`tickwire-bench rpc-floor-server ENDPOINT`), the client sequential blocking calls on a
    /// thread of this process. The same request and reply bytes, prebuilt, no JSON; 500 warm-up calls. The client's
    /// REQ binds and the server's REP connects (the Python peer's server binds), so the endpoint needs no hand-over.
    static func rpcFloor(calls: Int) async throws -> Percentiles {
        let context = try ZMQContext()
        let req = try Socket(context: context, type: .req)
        try req.bind("tcp://127.0.0.1:*")
        let endpoint = try req.lastEndpoint()
        let box = Unsafe(req)
        async let server = Subprocess.run(
            .path(FilePath(Callgrind.executable)), arguments: ["rpc-floor-server", endpoint], output: .discarded, error: .discarded)
        let micros = try await onThread("rpc-floor") { () throws -> [Double] in
            let warmup = 500
            var micros: [Double] = []
            micros.reserveCapacity(calls)
            for index in 0..<(calls + warmup) {
                let start = monotonicNanos()
                _ = try box.value.send([floorRequest], dontWait: false)
                guard let reply = try box.value.receive(dontWait: false), reply.count == 1 else { throw BenchError("the floor's server sent no reply") }
                let elapsed = monotonicNanos() &- start
                if index >= warmup { micros.append(Double(elapsed) / 1000) }
            }
            _ = try box.value.send([floorStop], dontWait: false)
            _ = try box.value.receive(dontWait: false)
            return micros
        }
        let status = try await server.terminationStatus
        req.close()
        guard status.isSuccess else { throw BenchError("rpc-floor-server ended with \(status)") }
        return Percentiles(micros)
    }

    /// The floor's server (in a process of its own): a REP that answers each request with the prebuilt reply until "stop".
    static func rpcFloorServer(endpoint: String) throws {
        let context = try ZMQContext()
        let rep = try Socket(context: context, type: .rep)
        try rep.connect(endpoint)
        while let request = try rep.receive(dontWait: false) {
            if request.first == floorStop {
                _ = try rep.send([floorStop], dontWait: false)
                break
            }
            _ = try rep.send([floorReply], dontWait: false)
        }
        rep.close()
    }
}
