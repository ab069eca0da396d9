import BusContract
import Foundation
import Tracing
import WireJSON

/// A service's JSON-RPC methods: typed handlers behind one `handle(_:)` that takes
/// request bytes and always returns response bytes.
///
/// Malformed input never escapes as a crash: not JSON is -32700, not a request
/// -32600, an unknown method -32601, params that do not decode -32602 with the
/// field named, and a handler's own error its `RPCError` (or -32603).
public struct RPCMethods: Sendable {
    /// A method's handler, behind the two ways a request's params are read.
    struct Handler: Sendable {
        /// Reads the params from the request's parsed object (inside its one parse, so nothing is copied) and
        /// returns the call: the handler with those params, or the reply refusing them.
        let read: @Sendable (_ request: WireObjectReader, _ id: RPCID) -> Call
        /// Reads the params from their own text (nil when absent or null) in a request read without the tape
        /// (``RPCRequestHeader/readWire(_:)``) and returns the call; nil when they do not decode there, so the tape
        /// reads the request and answers with the error.
        let readDirect: @Sendable (_ params: UnsafeRawBufferPointer?, _ id: RPCID) -> Call?
    }

    /// A request's work once its params are read.
    typealias Call = @Sendable () async -> Reply

    /// A response and what the server logs and counts about it.
    struct Reply: Sendable {
        var body: Data
        var method = "invalid"
        /// The error it answers with, nil for a result.
        var error: RPCError?
        var failed: Bool { error != nil }
    }

    private var handlers: [String: Handler] = [:]
    /// The methods registered as changing state (``RPCMethod/changesState``).
    private var stateChanging: Set<String> = []

    /// No methods yet.
    public init() {}

    /// The registered method names, sorted.
    public var names: [String] { handlers.keys.sorted() }

    /// Registers the handler of `method`.
    public mutating func register<Params, Result>(
        _ method: RPCMethod<Params, Result>, _ handler: @escaping @Sendable (Params) async throws -> Result
    ) {
        register(method.name, params: Params.self, handler)
        if method.changesState { stateChanging.insert(method.name) }
    }

    /// Registers the handler of `method`, which takes no params (any or none are accepted).
    public mutating func register<Result>(
        _ method: RPCMethod<NoParams, Result>, _ handler: @escaping @Sendable () async throws -> Result
    ) {
        let write = Self.successWriter(Result.self)
        let call: @Sendable (RPCID) -> Call = { id in { await RPCMethods.respond(id, write) { try await handler() } } }
        handlers[method.name] = Handler(read: { _, id in call(id) }, readDirect: { _, id in call(id) })
        if method.changesState { stateChanging.insert(method.name) }
    }

    /// Whether `method` was registered as changing state.
    public func changesState(_ method: String) -> Bool { stateChanging.contains(method) }

    private mutating func register<Params: Decodable & Sendable, Result: Encodable & Sendable>(
        _ method: String, params: Params.Type,
        _ handler: @escaping @Sendable (Params) async throws -> Result
    ) {
        // Absent or null params are read as `{}`, decoded here once, so a method whose params are all optional may be
        // called without them (JSON-RPC 2.0 lets `params` be left out); params that `{}` does not satisfy are "missing".
        let emptyParams = try? Wire.decode(Params.self, from: Data("{}".utf8))
        let readParams = Self.paramsReader(Params.self)
        let write = Self.successWriter(Result.self)
        let call: @Sendable (Params, RPCID) -> Call = { params, id in { await RPCMethods.respond(id, write) { try await handler(params) } } }
        handlers[method] = Handler(
            read: { request, id in
                let params: Params
                do {
                    guard let given = try request.decodeIfPresent(Params.self, forKey: "params") ?? emptyParams else {
                        let failure = RPCMethods.failure(id, .invalidParams(#"missing "params""#))
                        return { failure }
                    }
                    params = given
                } catch {
                    let failure = RPCMethods.failure(id, .invalidParams(describe(error)))
                    return { failure }
                }
                return call(params, id)
            },
            readDirect: { text, id in
                let params = if let text { readParams(text) } else { emptyParams }
                return params.map { call($0, id) }
            })
    }

    /// Answers one request from `caller` (default: one that may do anything): bytes in, bytes out.
    public func handle(_ request: Data, from caller: RPCCallerIdentity = .trusted) async -> Data {
        await reply(to: request, from: caller).body
    }

    /// Answers one request from `caller`: a method that changes state answers -32030 (forbidden) unless
    /// `caller.mayChangeState`.
    ///
    /// A request for a known method is answered in a server span named after it, the child of the caller's
    /// span when the request carries its trace context (one the tracer cannot read starts a fresh trace);
    /// an error answer is recorded on the span.
    func reply(to request: Data, from caller: RPCCallerIdentity = .trusted) async -> Reply {
        let prepared: Prepared
        switch prepareDirect(request).map(Reading.call) ?? prepareParsed(request) {
        case .refused(let reply): return reply
        case .call(let call): prepared = call
        }
        let (header, method, id) = (prepared.header, prepared.method, prepared.id)
        let deadline = header.timeoutMs.map { ContinuousClock.now + .milliseconds(max(0, $0)) }
        return await withSpan(method, context: header.trace?.serviceContext ?? .topLevel, ofKind: .server) { span in
            span.attributes["rpc.system"] = "jsonrpc"
            span.attributes["rpc.method"] = method
            var reply = if !caller.mayChangeState, stateChanging.contains(method) {
                Self.failure(id, .forbidden(method: method, caller: caller.userID))
            } else {
                await RPCDeadline.$current.withValue(deadline) { await prepared.call() }
            }
            reply.method = method
            if let error = reply.error {
                span.attributes["rpc.jsonrpc.error_code"] = error.code
                span.attributes["rpc.jsonrpc.error_message"] = error.message
                span.recordError(error)
                span.setStatus(SpanStatus(code: .error, message: error.message))
            }
            return reply
        }
    }

    /// What the one parse of a request made of it.
    private enum Reading {
        /// Not a request of a known method: the reply says why.
        case refused(Reply)
        /// A call of a known method, its params read.
        case call(Prepared)
    }

    /// A request of a known method, read.
    private struct Prepared {
        let header: RPCRequestHeader
        let method: String
        let id: RPCID
        let call: Call
    }

    /// Any request, read in its one parse by the tape: not JSON is a parse error; JSON that is not an object, or a
    /// header member of the wrong type (an `id` that is not one included), an invalid request.
    private func prepareParsed(_ request: Data) -> Reading {
        do {
            return try Wire.parse(request, readingObject: { try prepare($0) }).read
        } catch DecodingError.typeMismatch {
            return .refused(Self.failure(.null, .invalidRequest("expected a JSON object (batches are not supported)")))
        } catch {
            return .refused(Self.failure(.null, .parseError(describe(error))))
        }
    }

    /// Reads a request's header and, for a known method, its params, within the request's one parse; a header
    /// member of the wrong type throws, as the header's decoding does.
    private func prepare(_ request: WireObjectReader) throws -> Reading {
        let header = try RPCRequestHeader(wire: request)
        let id = header.id ?? .null
        guard header.jsonrpc == "2.0" else { return .refused(Self.failure(id, .invalidRequest("\"jsonrpc\" must be \"2.0\""))) }
        guard let method = header.method else { return .refused(Self.failure(id, .invalidRequest("missing \"method\""))) }
        guard let handler = handlers[method] else { return .refused(Self.failure(id, .methodNotFound(method))) }
        return .call(Prepared(header: header, method: method, id: id, call: handler.read(request, id)))
    }

    /// A request in the form ``RPCClient`` writes it, of a known method whose params decode, read without the tape;
    /// nil for any other, which ``prepare(_:)`` reads.
    private func prepareDirect(_ request: Data) -> Prepared? {
        request.withUnsafeBytes { bytes in
            guard let (header, params) = RPCRequestHeader.readWire(bytes), let method = header.method, let id = header.id,
                  let handler = handlers[method], let call = handler.readDirect(params.map { UnsafeRawBufferPointer(rebasing: bytes[$0]) }, id)
            else { return nil }
            return Prepared(header: header, method: method, id: id, call: call)
        }
    }

    /// The reply of a handler: its result written by `write`, or its error.
    private static func respond<Result>(
        _ id: RPCID, _ write: (RPCID, Result) throws -> Data, _ body: () async throws -> Result
    ) async -> Reply {
        do {
            let result = try await body()
            return Reply(body: try write(id, result))
        } catch {
            return failure(id, RPCError(answering: error, describe: describe))
        }
    }

    static func failure(_ id: RPCID, _ error: RPCError) -> Reply {
        // Encoding a struct of strings and integers cannot fail; the fallback keeps the promise of an answer.
        let body = (try? Wire.encode(RPCFailure(id: id, error: error)))
            ?? Data(#"{"jsonrpc":"2.0","id":null,"error":{"code":-32603,"message":"internal error"}}"#.utf8)
        return Reply(body: body, error: error)
    }
}

/// Who sent a request, as far as write rights go.
public struct RPCCallerIdentity: Sendable, Hashable {
    /// The ZAP User-Id of the caller's connection ("" without one).
    public var userID: String
    /// Whether it may call methods that change state.
    public var mayChangeState: Bool

    /// A caller known as `userID`.
    public init(userID: String, mayChangeState: Bool) {
        self.userID = userID
        self.mayChangeState = mayChangeState
    }

    /// A caller of a server that does not check write rights (no keys): may do anything.
    public static let trusted = RPCCallerIdentity(userID: "", mayChangeState: true)
}
