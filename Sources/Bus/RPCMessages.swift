import Foundation

/// A JSON-RPC 2.0 request or response id: a string, an integer, or null.
public enum RPCID: Codable, Hashable, Sendable {
    case string(String)
    case number(Int64)
    case null

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let number = try? container.decode(Int64.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .string(let text): try container.encode(text)
        case .number(let number): try container.encode(number)
        case .null: try container.encodeNil()
        }
    }
}

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
    public static func parseError(_ detail: String) -> RPCError { .init(code: -32700, message: "parse error: \(detail)") }
    /// -32600: JSON, but not a JSON-RPC 2.0 request.
    public static func invalidRequest(_ detail: String) -> RPCError { .init(code: -32600, message: "invalid request: \(detail)") }
    /// -32601: no such method.
    public static func methodNotFound(_ method: String) -> RPCError {
        .init(code: -32601, message: "method not found: \(method)", data: ["method": method])
    }
    /// -32602: the params do not fit the method.
    public static func invalidParams(_ detail: String) -> RPCError { .init(code: -32602, message: "invalid params: \(detail)") }
    /// -32603: the server failed.
    public static func internalError(_ detail: String) -> RPCError { .init(code: -32603, message: "internal error: \(detail)") }
    /// -32000: a service this one depends on is unavailable.
    public static func unavailable(_ detail: String) -> RPCError { .init(code: -32000, message: detail) }
    /// -32001: the thing asked for does not exist.
    public static func notFound(_ detail: String) -> RPCError { .init(code: -32001, message: detail) }
}

/// An error a handler may throw that knows its JSON-RPC form.
public protocol RPCErrorConvertible: Error {
    /// The JSON-RPC error to answer with.
    var rpcError: RPCError { get }
}

/// The parameters of a method that takes none.
public struct NoParams: Codable, Sendable, Equatable {
    /// No parameters.
    public init() {}
}

struct RPCRequest<Params: Encodable>: Encodable {
    let jsonrpc = "2.0"
    let id: RPCID
    let method: String
    let params: Params?
}

struct RPCRequestHeader: Decodable {
    let jsonrpc: String?
    let id: RPCID?
    let method: String?
}

struct RPCParams<Params: Decodable>: Decodable {
    let params: Params
}

struct RPCSuccess<Result: Encodable>: Encodable {
    let jsonrpc = "2.0"
    let id: RPCID
    let result: Result
}

struct RPCFailure: Codable {
    var jsonrpc = "2.0"
    let id: RPCID
    let error: RPCError
}

struct RPCResponseHeader: Decodable {
    let id: RPCID?
    let error: RPCError?
}

struct RPCResult<Result: Decodable>: Decodable {
    let result: Result
}
