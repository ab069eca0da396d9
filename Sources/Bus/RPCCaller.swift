import Foundation
import BusContract

/// Something that calls JSON-RPC methods: an ``RPCClient`` over ZeroMQ, or ``LocalRPC`` straight into
/// a server's ``RPCMethods`` with no socket (what in-process tests use).
public protocol RPCCaller: Sendable {
    /// Calls `method` with `params`; gives up at `deadline` if one is given.
    func call<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ params: Params, deadline: ContinuousClock.Instant?
    ) async throws -> Result
}

extension RPCCaller {
    /// Calls `method` with `params`, within the deadline of the request being served, if any.
    public func call<Params, Result>(_ method: RPCMethod<Params, Result>, _ params: Params) async throws -> Result {
        try await call(method, params, deadline: nil)
    }

    /// Calls `method`, which takes no params.
    public func call<Result>(_ method: RPCMethod<NoParams, Result>) async throws -> Result {
        try await call(method, NoParams(), deadline: nil)
    }
}

/// Calls a server's ``RPCMethods`` in process: the request and the reply are encoded and decoded exactly
/// as over a socket (with the task's trace context), so a client built on it runs the same code as over
/// ZeroMQ, with no socket.
public struct LocalRPC: RPCCaller {
    /// The methods answered.
    public let methods: RPCMethods
    /// The name errors give as the endpoint.
    public let name: String

    /// A caller of `methods`.
    public init(_ methods: RPCMethods, name: String = "inprocess") {
        self.methods = methods
        self.name = name
    }

    public func call<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ params: Params, deadline: ContinuousClock.Instant?
    ) async throws -> Result {
        let timeoutMs = RPCDeadline.due(deadline).map { RPCDeadline.milliseconds($0 - ContinuousClock.now) }
        let request = try RPCRequest(
            id: .number(1), method: method.name, params: params, timeoutMs: timeoutMs, trace: TraceContext.current).wireBytes()
        let reply = await methods.handle(request)
        if let result = RPCClient.readDirect(reply, answering: 1, as: Result.self) { return result }
        // The one reply answers this call, whatever its id (a request the server refuses is answered with a null id).
        return try Wire.parse(reply) { RPCClient.outcome(of: $0, endpoint: name, method: method.name, as: Result.self) }.read.get()
    }
}
