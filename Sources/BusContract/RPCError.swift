/// A JSON-RPC 2.0 error object; also what a handler throws to answer with an error.
public struct RPCError: Error, Codable, Sendable, Equatable, CustomStringConvertible {
    /// The error code: JSON-RPC's reserved ones, or Tickwire's in -32000...-32099.
    public var code: Int
    /// A clear sentence saying what went wrong.
    public var message: String
    /// Details a program can read, e.g. `{"pair": "USD-XYZ"}`.
    public var data: [String: String]?

    /// An error with `code`, `message` and optional `data`.
    public init(code: Int, message: String, data: [String: String]? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    public var description: String { "JSON-RPC error \(code): \(message)" }

    /// -32700: the request is not JSON.
    public static func parseError(_ detail: String) -> RPCError { .init(code: Code.parseError, message: "parse error: \(detail)") }
    /// -32600: JSON, but not a JSON-RPC 2.0 request.
    public static func invalidRequest(_ detail: String) -> RPCError { .init(code: Code.invalidRequest, message: "invalid request: \(detail)") }
    /// -32601: no such method.
    public static func methodNotFound(_ method: String) -> RPCError {
        .init(code: Code.methodNotFound, message: "method not found: \(method)", data: ["method": method])
    }
    /// -32602: the params do not fit the method.
    public static func invalidParams(_ detail: String) -> RPCError { .init(code: Code.invalidParams, message: "invalid params: \(detail)") }
    /// -32603: the server failed.
    public static func internalError(_ detail: String) -> RPCError { .init(code: Code.internalError, message: "internal error: \(detail)") }
    /// -32000: a service this one depends on is unavailable.
    public static func unavailable(_ detail: String) -> RPCError { .init(code: Code.unavailable, message: detail) }
    /// -32001: the thing asked for does not exist.
    public static func notFound(_ detail: String) -> RPCError { .init(code: Code.notFound, message: detail) }
}

extension RPCError {
    /// The error a server answers with when a handler throws `error`: itself if it is one, its own form if
    /// it knows one (``RPCErrorConvertible``), -32000 for a cancelled handler (a retry may succeed), else an
    /// internal error that `describe`s it.
    public init(answering error: any Error, describe: (any Error) -> String = { String(describing: $0) }) {
        switch error {
        case let error as RPCError: self = error
        case let error as any RPCErrorConvertible: self = error.rpcError
        case is CancellationError:
            self = .unavailable("the request was cancelled before it finished (the service is stopping, or the request's deadline passed): retry it; a write with a requestId is safe to retry")
        default: self = .internalError(describe(error))
        }
    }

    /// Runs `body`, throwing what it throws as a server would answer it: what an in-memory stand-in for
    /// a service wraps its work in, so its callers see the service's errors.
    public static func answering<T>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch {
            throw RPCError(answering: error)
        }
    }
}

/// An error a handler may throw that knows its JSON-RPC form.
public protocol RPCErrorConvertible: Error {
    /// The JSON-RPC error to answer with.
    var rpcError: RPCError { get }
}

extension RPCError {
    /// Every error code a Tickwire service answers with: JSON-RPC's reserved ones and Tickwire's in -32000...-32099.
    public enum Code {
        /// The request is not JSON.
        public static let parseError = -32700
        /// JSON, but not a JSON-RPC 2.0 request.
        public static let invalidRequest = -32600
        /// No such method.
        public static let methodNotFound = -32601
        /// The params do not fit the method, or a value in them is invalid.
        public static let invalidParams = -32602
        /// The server failed.
        public static let internalError = -32603
        /// A service this one depends on is unavailable, or its data has not arrived yet.
        public static let unavailable = -32000
        /// The thing asked for does not exist.
        public static let notFound = -32001
        /// The call's deadline passed before an answer.
        public static let deadlineExceeded = -32002
        /// A currency nobody quotes.
        public static let unknownCurrency = -32010
        /// No chain of rates joins the two currencies.
        public static let noPath = -32011
        /// A rate that is zero, negative or otherwise unusable.
        public static let invalidRate = -32012
        /// A rate source the converter does not hold.
        public static let unknownSource = -32013
        /// The method changes state and the caller's key is not a writer's.
        public static let forbidden = -32030
    }

    /// -32030: `method` changes state, and `caller` (its ZAP User-Id) may only read.
    public static func forbidden(method: String, caller: String) -> RPCError {
        .init(code: Code.forbidden,
              message: "forbidden: \(method) changes state and answers only clients whose key is in the keys directory's writers/; this client is \(caller.isEmpty ? "unidentified" : caller)",
              data: ["method": method])
    }

    /// -32002: the call's deadline passed before an answer.
    public static func deadlineExceeded(_ detail: String) -> RPCError { .init(code: Code.deadlineExceeded, message: detail) }
}
