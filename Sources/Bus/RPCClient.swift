import Foundation
import Logging
import Tracing
import WireJSON
import ZeroMQ
import BusContract

/// A JSON-RPC client over REQ with the Lazy Pirate pattern: each attempt waits at most
/// `timeout`; an unanswered attempt closes the socket, opens a fresh one and tries
/// again, up to `retries` more times, then fails with ``RPCClientError/unreachable``.
///
/// Calls are answered one at a time, in order; a dead peer is a clear error within
/// `timeout × (retries + 1)`, and once the peer is back the same client works again.
public actor RPCClient: RPCCaller {
    /// Where the server is.
    public let endpoint: String
    /// How long one attempt waits for its reply.
    public let timeout: Duration
    /// How many times an unanswered request is sent again.
    public let retries: Int

    private let socket: OwnedSocket
    private let logger: Logger
    private var nextID: Int64 = 0
    private var busy = false
    private var waiters: [CheckedContinuation<Void, Never>] = []

    /// A client of the server at `endpoint`, with `security` (CURVE client, message size limit).
    ///
    /// With `loop` (the calling service's loop), its thread reads the socket and hands each reply to the waiting call
    /// from there: a caller whose task prefers that loop (``RPCServer`` and ``Subscriber`` tasks on it, or
    /// `withTaskExecutorPreference(loop)`) is resumed on it with no thread wake-up; another caller hops back to its own
    /// executor. Nil: a thread of the socket's own.
    public init(
        context: ZMQContext, endpoint: String, timeout: Duration = .seconds(2), retries: Int = 2,
        security: SocketSecurity = SocketSecurity(), logger: Logger = Logger(label: "tickwire.rpc-client"), loop: ServiceLoop? = nil
    ) throws {
        self.endpoint = endpoint
        self.timeout = timeout
        self.retries = max(0, retries)
        self.logger = logger
        socket = try OwnedSocket(context: context, type: .req, name: "rpc-client", loop: loop) { socket in
            try socket.set(.reqRelaxed, true)
            try socket.set(.reqCorrelate, true)
            try security.apply(to: socket)
            try socket.connect(endpoint)
        }
    }

    /// Calls `method` with `params` and decodes its result.
    ///
    /// The call gives up at `deadline`, and, while serving a request, before that request's own deadline
    /// (``RPCDeadline``); each attempt waits at most ``timeout``. The server is told how long this attempt
    /// waits, so the calls it makes in turn give up first.
    ///
    /// - Throws: ``RPCError`` when the server answers with an error;
    ///   ``RPCClientError`` when it does not answer in time or answers garbage;
    ///   `CancellationError` when the calling task is cancelled, at once while it waits for a reply.
    public func call<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ params: Params, deadline: ContinuousClock.Instant?
    ) async throws -> Result {
        try await call(method.name, params: params, as: Result.self, deadline: deadline)
    }

    /// Calls a method by its name: for tools and protocol tests that speak to a server without its
    /// contract. Services call through an ``RPCMethod``.
    ///
    /// The call is a client span named after the method, whose trace context the request carries
    /// (`traceparent`, `tracestate`), so the server's span is its child; an error ends it as failed.
    public func call<Params: Encodable & Sendable, Result: Decodable & Sendable>(
        _ method: String, params: Params, as resultType: Result.Type = Result.self, deadline: ContinuousClock.Instant? = nil
    ) async throws -> Result {
        try await withSpan(method, ofKind: .client) { span in
            span.attributes["rpc.system"] = "jsonrpc"
            span.attributes["rpc.method"] = method
            span.attributes["server.address"] = endpoint
            return try await send(method, params: params, as: resultType, deadline: deadline, trace: TraceContext.current)
        }
    }

    /// The attempts of ``call(_:params:as:deadline:)``, each request carrying `trace`.
    private func send<Params: Encodable & Sendable, Result: Decodable & Sendable>(
        _ method: String, params: Params, as resultType: Result.Type, deadline: ContinuousClock.Instant?, trace: TraceContext?
    ) async throws -> Result {
        let due = RPCDeadline.due(deadline)
        await acquire()
        defer { release() }
        nextID += 1
        let id = nextID
        let started = ContinuousClock.now
        for attempt in 0...retries {
            try Task.checkCancellation()
            let now = ContinuousClock.now
            if let due, now >= due { throw RPCClientError.deadlineExceeded(endpoint: endpoint, method: method, after: now - started) }
            let end = min(now + timeout, due ?? now + timeout)
            let timeoutMs = RPCDeadline.milliseconds(end - now)
            let request = try RPCRequest(id: .number(id), method: method, params: params, timeoutMs: timeoutMs, trace: trace).wireBytes()
            if let outcome = await exchange(request, until: end, reading: {
                try? Self.read($0, answering: id, endpoint: endpoint, method: method, as: resultType)
            }) {
                return try outcome.get()
            }
            // Cancelled while waiting: the request stays unanswered, and REQ_CORRELATE drops a late reply.
            try Task.checkCancellation()
            logger.debug("no reply", metadata: ["endpoint": "\(endpoint)", "method": "\(method)", "attempt": "\(attempt + 1)"])
            try socket.reset()
        }
        if let due, ContinuousClock.now >= due {
            throw RPCClientError.deadlineExceeded(endpoint: endpoint, method: method, after: ContinuousClock.now - started)
        }
        throw RPCClientError.unreachable(endpoint: endpoint, method: method, attempts: retries + 1, timeout: timeout)
    }

    /// Calls a method that takes no params by its name (see ``call(_:params:as:deadline:)``).
    public func call<Result: Decodable & Sendable>(_ method: String, as resultType: Result.Type = Result.self) async throws -> Result {
        try await call(method, params: NoParams(), as: resultType)
    }

    /// Closes the socket; later calls fail.
    public func close() async {
        await socket.close()
    }

    /// What the reply `body` says, read in its one parse (or, for a direct result in the server's form, by
    /// ``readDirect(_:answering:as:)`` with no parse): see ``outcome(of:endpoint:method:as:)``; nil when it answers
    /// another call than `id`.
    ///
    /// - Throws: the parse's `DecodingError` when `body` is not a JSON object or its `id` is not an id.
    static func read<Value: Decodable>(
        _ body: Data, answering id: Int64, endpoint: String, method: String, as: Value.Type
    ) throws -> Swift.Result<Value, any Error>? {
        if let result = readDirect(body, answering: id, as: Value.self) { return .success(result) }
        return try Wire.parse(body) { reply -> Swift.Result<Value, any Error>? in
            guard try reply.decodeIfPresent(RPCID.self, forKey: "id") == .number(id) else { return nil }
            return outcome(of: reply, endpoint: endpoint, method: method, as: Value.self)
        }.read
    }

    /// What a reply to the call says, read from its parsed object: its result, or the error it carries (the server's
    /// ``RPCError``, or ``RPCClientError/malformedResponse(endpoint:method:reason:)`` for an error or result that
    /// does not decode).
    static func outcome<Value: Decodable>(
        of reply: WireObjectReader, endpoint: String, method: String, as: Value.Type
    ) -> Swift.Result<Value, any Error> {
        do {
            if let error = try reply.decodeIfPresent(RPCError.self, forKey: "error") { return .failure(error) }
            return .success(try reply.decode(Value.self, forKey: "result"))
        } catch {
            return .failure(RPCClientError.malformedResponse(endpoint: endpoint, method: method, reason: describe(error)))
        }
    }

    /// Sends `request` and waits for the reply that `reading` accepts, read, or `nil` at `deadline` (or once the
    /// socket is closed or the task cancelled). The call's own task reads the socket's ``OwnedSocket/incoming``,
    /// so a reply wakes it directly, and the socket's thread keeps the deadline, so a call starts no timer task
    /// (each cost a thread wake-up: bench/PROFILE.md). Replies `reading` refuses (to other ids, an earlier attempt
    /// answered late, or not JSON objects) are skipped.
    private func exchange<Read>(
        _ request: Data, until deadline: ContinuousClock.Instant, reading: (Data) -> Read?
    ) async -> Read? {
        let incoming = socket.incoming
        incoming.wake(at: deadline)
        defer { incoming.wake(at: nil) }
        socket.post([request])
        while let replies = await incoming.nextBatch() {
            for frames in replies {
                if let body = frames.last, let read = reading(body) { return read }
            }
            if ContinuousClock.now >= deadline { return nil }
        }
        return nil
    }

    private func acquire() async {
        if !busy {
            busy = true
            return
        }
        await withCheckedContinuation { waiters.append($0) }
    }

    private func release() {
        if waiters.isEmpty {
            busy = false
        } else {
            waiters.removeFirst().resume()
        }
    }
}

/// Failures of a call that are not the server's own answer.
public enum RPCClientError: Error, Equatable, Sendable, CustomStringConvertible, RPCErrorConvertible {
    /// No reply after every attempt: the service is down or unreachable.
    case unreachable(endpoint: String, method: String, attempts: Int, timeout: Duration)
    /// A reply that is not a JSON-RPC response of the expected shape.
    case malformedResponse(endpoint: String, method: String, reason: String)
    /// The call's deadline (or that of the request it was made for) passed first.
    case deadlineExceeded(endpoint: String, method: String, after: Duration)

    public var description: String {
        switch self {
        case .unreachable(let endpoint, let method, let attempts, let timeout):
            "no reply from \(endpoint) to \(method) after \(attempts) attempts of \(timeout) each: is the service running?"
        case .malformedResponse(let endpoint, let method, let reason):
            "malformed reply from \(endpoint) to \(method): \(reason)"
        case .deadlineExceeded(let endpoint, let method, let after):
            "no reply from \(endpoint) to \(method) before the deadline (\(after.formatted(.units(allowed: [.seconds, .milliseconds]))))"
        }
    }

    /// A handler whose upstream failed this way answers "unavailable" (-32000) or "deadline exceeded"
    /// (-32002), not "internal error".
    public var rpcError: RPCError {
        if case .deadlineExceeded = self { return .deadlineExceeded(description) }
        return .unavailable(description)
    }
}
