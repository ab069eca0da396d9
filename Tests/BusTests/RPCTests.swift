import Bus
import Foundation
import Testing
import ZeroMQ
import BusContract

struct ConvertParams: Codable, Sendable, Equatable {
    var amount: String
    var currency: String
}

/// The methods of the sample server, declared once.
enum SampleAPI {
    static let echo = RPCMethod<ConvertParams, ConvertParams>("echo")
    static let ping = RPCMethod<NoParams, String>("ping")
    static let fail = RPCMethod<NoParams, String>("fail")
    static let crash = RPCMethod<NoParams, String>("crash")
}

func sampleMethods() -> RPCMethods {
    var methods = RPCMethods()
    methods.register(SampleAPI.echo) { $0 }
    methods.register(SampleAPI.ping) { "pong" }
    methods.register(SampleAPI.fail) { () async throws -> String in throw RPCError.notFound("no such thing") }
    methods.register(SampleAPI.crash) { () async throws -> String in throw CocoaError(.fileNoSuchFile) }
    return methods
}

func response(_ methods: RPCMethods, _ request: String) async throws -> [String: Any] {
    let data = await methods.handle(Data(request.utf8))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

func errorCode(_ object: [String: Any]) -> Int? { (object["error"] as? [String: Any])?["code"] as? Int }
func errorMessage(_ object: [String: Any]) -> String { (object["error"] as? [String: Any])?["message"] as? String ?? "" }

/// Concurrent calls on one client are answered one by one, each with its own result.
func expectConcurrentCallsAnswered(_ client: RPCClient) async throws {
    let results = try await withThrowingTaskGroup(of: String.self) { group in
        for index in 0..<20 {
            group.addTask { try await client.call(SampleAPI.echo, ConvertParams(amount: "\(index)", currency: "EUR")).amount }
        }
        return try await group.reduce(into: Set<String>()) { $0.insert($1) }
    }
    #expect(results == Set((0..<20).map(String.init)))
}

@Suite("JSON-RPC 2.0")
struct RPCTests {
    /// Success carries the id and the typed result.
    @Test func success() async throws {
        let reply = try await response(sampleMethods(), #"{"jsonrpc":"2.0","id":"a1","method":"echo","params":{"amount":"1.50","currency":"EUR"}}"#)
        #expect(reply["id"] as? String == "a1")
        #expect((reply["result"] as? [String: String]) == ["amount": "1.50", "currency": "EUR"])
        let ping = try await response(sampleMethods(), #"{"jsonrpc":"2.0","id":3,"method":"ping"}"#)
        #expect(ping["result"] as? String == "pong")
        #expect(ping["id"] as? Int == 3)
    }

    /// Every malformed request gets its JSON-RPC error code, never a crash.
    @Test func malformedRequests() async throws {
        let methods = sampleMethods()
        #expect(errorCode(try await response(methods, "{nope")) == -32700)
        #expect(errorCode(try await response(methods, "")) == -32700)
        #expect(errorCode(try await response(methods, "[1,2]")) == -32600)
        #expect(errorCode(try await response(methods, "42")) == -32600)
        #expect(errorCode(try await response(methods, #"{"id":1,"method":"ping"}"#)) == -32600)
        #expect(errorCode(try await response(methods, #"{"jsonrpc":"2.0","id":1}"#)) == -32600)
        let unknown = try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"nope"}"#)
        #expect(errorCode(unknown) == -32601)
        #expect(errorMessage(unknown) == "method not found: nope")
        let missing = try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"amount":"1"}}"#)
        #expect(errorCode(missing) == -32602)
        #expect(errorMessage(missing).contains("params.currency"))
        let wrongType = try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"amount":1,"currency":"EUR"}}"#)
        #expect(errorCode(wrongType) == -32602)
        let none = try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"echo"}"#)
        #expect(errorCode(none) == -32602)
    }

    /// Params that are all optional may be left out or null (read as `{}`); required ones are still "missing".
    @Test func absentParamsReadAsAnEmptyObject() async throws {
        struct Filter: Codable, Sendable { var name: String? }
        var methods = RPCMethods()
        methods.register(RPCMethod<Filter, String>("filter")) { $0.name ?? "all" }
        methods.register(SampleAPI.echo) { $0 }
        for params in ["", #","params":null"#, #","params":{}"#] {
            let reply = try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"filter"\#(params)}"#)
            #expect(reply["result"] as? String == "all", "params \(params)")
        }
        let named = try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"filter","params":{"name":"x"}}"#)
        #expect(named["result"] as? String == "x")
        for params in ["", #","params":null"#] {
            let required = try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"echo"\#(params)}"#)
            #expect(errorCode(required) == -32602 && errorMessage(required) == #"invalid params: missing "params""#)
        }
    }

    /// A handler's own error goes out as is; anything else as -32603.
    @Test func handlerErrors() async throws {
        let methods = sampleMethods()
        let fail = try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"fail"}"#)
        #expect(errorCode(fail) == -32001)
        #expect(errorMessage(fail) == "no such thing")
        #expect(errorCode(try await response(methods, #"{"jsonrpc":"2.0","id":1,"method":"crash"}"#)) == -32603)
    }

    /// A client and server over real sockets, on tcp loopback with a picked port.
    @Test func roundTripOverTCP() async throws {
        let context = try ZMQContext()
        let server = try RPCServer(context: context, service: "test", endpoints: ["tcp://127.0.0.1:*"], methods: sampleMethods(), logger: testLogger)
        let address = try server.boundEndpoint()
        let serving = Task { await server.run() }
        let client = try RPCClient(context: context, endpoint: address, timeout: .seconds(10))
        let echoed = try await client.call(SampleAPI.echo, ConvertParams(amount: "2.345", currency: "SEK"))
        #expect(echoed == ConvertParams(amount: "2.345", currency: "SEK"))
        await #expect(throws: RPCError.notFound("no such thing")) { try await client.call(SampleAPI.fail) }
        try await expectConcurrentCallsAnswered(client)
        serving.cancel()
        await serving.value
        await client.close()
    }

    /// Thousands of back-to-back calls each get their reply at once, without falling back on a retry.
    @Test func backToBackCallsNeverLoseAReply() async throws {
        let context = try ZMQContext()
        let server = try RPCServer(context: context, service: "test", endpoints: ["tcp://127.0.0.1:*"], methods: sampleMethods(), logger: testLogger)
        let address = try server.boundEndpoint()
        let serving = Task { await server.run() }
        let client = try RPCClient(context: context, endpoint: address, timeout: .seconds(10), retries: 0)
        for index in 0..<5_000 {
            let echoed = try await client.call(SampleAPI.echo, ConvertParams(amount: "\(index)", currency: "EUR"))
            #expect(echoed.amount == "\(index)")
        }
        serving.cancel()
        await client.close()
    }

    /// A dead server is a clear error within the timeout; once it is up, the same client works.
    @Test func timeoutThenRecovery() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let client = try RPCClient(context: context, endpoint: address, timeout: .milliseconds(200), retries: 1)
        let start = ContinuousClock.now
        let error = await #expect(throws: RPCClientError.self) { try await client.call(SampleAPI.ping) }
        // Two attempts of 200 ms; the bound only catches a hang, since the suite's CPU-bound tests share the
        // cooperative pool and can hold back the client's timers for seconds (a clean CI run measured 5.15 s).
        #expect(ContinuousClock.now - start < .seconds(20), "two attempts of 200 ms must not hang")
        #expect(error?.description.contains("no reply from \(address) to ping after 2 attempts") == true)

        try await expectAnswersOnceServed(client, at: address, context: context)
    }

    /// A call whose task is cancelled while it waits ends then, not at its timeout; the client works on.
    @Test func cancelledCallEndsAtOnce() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let client = try RPCClient(context: context, endpoint: address, timeout: .seconds(30), retries: 0)
        let call = Task { try await client.call(SampleAPI.ping) }
        try await Task.sleep(for: .milliseconds(100))
        let start = ContinuousClock.now
        call.cancel()
        await #expect(throws: CancellationError.self) { try await call.value }
        #expect(ContinuousClock.now - start < .seconds(20), "the call waited for its 30 s timeout")

        try await expectAnswersOnceServed(client, at: address, context: context)
    }

    /// What the client makes of a server's replies: one to another id, or one that is not JSON, is not the
    /// answer (the call waits on and fails as unreachable); one to its id whose error is malformed is a
    /// malformed response; the right one is the result.
    @Test func clientReadsOnlyItsOwnWellFormedReply() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let server = try OwnedSocket(context: context, type: .router, name: "fake-server") { try $0.bind(address) }
        let replies = [
            #"{"jsonrpc":"2.0","id":99,"result":"pong"}"#, "{garbage",
            #"{"jsonrpc":"2.0","id":3,"error":{"code":"x"}}"#, #"{"jsonrpc":"2.0","id":4,"result":"pong"}"#,
        ]
        // Answers each request (routing id, correlation id, empty delimiter, body) with the next reply.
        let answering = Task {
            var iterator = server.incoming.makeAsyncIterator()
            for reply in replies {
                guard let request = await iterator.next() else { return }
                server.post(request.dropLast() + [Data(reply.utf8)])
            }
        }
        let client = try RPCClient(context: context, endpoint: address, timeout: .milliseconds(300), retries: 0)
        for _ in 0..<2 {
            let skipped = await #expect(throws: RPCClientError.self) { try await client.call(SampleAPI.ping) }
            guard case .unreachable? = skipped else { Issue.record("expected no answer, got \(String(describing: skipped))"); return }
        }
        let malformed = await #expect(throws: RPCClientError.self) { try await client.call(SampleAPI.ping) }
        guard case .malformedResponse? = malformed else { Issue.record("expected a malformed response, got \(String(describing: malformed))"); return }
        #expect(try await client.call(SampleAPI.ping) == "pong")
        answering.cancel()
        await client.close()
        await server.close()
    }

    /// Starts a server at `address`, checks that `client` (which could not reach one there before) gets its
    /// answer, then stops both.
    private func expectAnswersOnceServed(_ client: RPCClient, at address: String, context: ZMQContext) async throws {
        let server = try RPCServer(context: context, service: "test", endpoints: [address], methods: sampleMethods(), logger: testLogger)
        let serving = Task { await server.run() }
        // The client's short timeout is the test's point; on a loaded machine a just-started server may miss one call's
        // attempts, so the same client calls again (for up to about 30 s) until it is answered.
        var answer: String?
        for _ in 0..<60 where answer == nil {
            answer = try? await client.call(SampleAPI.ping)
        }
        #expect(answer == "pong")
        serving.cancel()
        await client.close()
    }

    /// Raw garbage from a DEALER: answered with an error or dropped; the server keeps serving.
    @Test func serverSurvivesMalformedFrames() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let server = try RPCServer(context: context, service: "test", endpoints: [address], methods: sampleMethods(), logger: testLogger)
        let serving = Task { await server.run() }
        let dealer = try OwnedSocket(context: context, type: .dealer, name: "dealer") { try $0.connect(address) }
        try dealer.send([Data("no delimiter".utf8)])
        try dealer.send([Data(), Data("{garbage".utf8)])
        let reply = try #require(await first(dealer.incoming))
        #expect(reply.count == 2)
        let object = try #require(try JSONSerialization.jsonObject(with: reply[1]) as? [String: Any])
        #expect(errorCode(object) == -32700)
        try dealer.send([Data(), Data("a".utf8), Data("b".utf8)])
        let twoFrames = try #require(await first(dealer.incoming))
        #expect(String(decoding: twoFrames[1], as: UTF8.self).contains("-32600"))
        let client = try RPCClient(context: context, endpoint: address)
        #expect(try await client.call(SampleAPI.ping) == "pong")
        serving.cancel()
        await dealer.close()
        await client.close()
    }
}

/// A handler cancelled before it finished (its service stopping) is answered -32000, which tells the caller to
/// retry, not -32603.
@Test func aCancelledHandlerIsUnavailable() {
    let answer = RPCError(answering: CancellationError())
    #expect(answer.code == RPCError.Code.unavailable)
    #expect(answer.message.contains("cancelled") && answer.message.contains("retry"), "\(answer.message)")
}
