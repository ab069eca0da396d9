import Foundation
import BusContract

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

struct RPCRequest<Params: Encodable>: Encodable {
    let jsonrpc = "2.0"
    let id: RPCID
    let method: String
    let params: Params?
    /// Tickwire's extension: how many milliseconds the caller still waits (see ``RPCDeadline``).
    let timeoutMs: Int?
}

struct RPCRequestHeader: Decodable {
    let jsonrpc: String?
    let id: RPCID?
    let method: String?
    let timeoutMs: Int?
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
