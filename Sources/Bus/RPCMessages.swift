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
    /// Tickwire's extension: the W3C trace context of the caller's span (see ``TraceContext``).
    let traceparent: String?
    let tracestate: String?

    init(id: RPCID, method: String, params: Params?, timeoutMs: Int?, trace: TraceContext?) {
        self.id = id
        self.method = method
        self.params = params
        self.timeoutMs = timeoutMs
        self.traceparent = trace?.traceparent
        self.tracestate = trace?.tracestate
    }
}

struct RPCRequestHeader: Decodable {
    let jsonrpc: String?
    let id: RPCID?
    let method: String?
    let timeoutMs: Int?
    let traceparent: String?
    let tracestate: String?

    private enum CodingKeys: String, CodingKey { case jsonrpc, id, method, timeoutMs, traceparent, tracestate }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        jsonrpc = try container.decodeIfPresent(String.self, forKey: .jsonrpc)
        id = try container.decodeIfPresent(RPCID.self, forKey: .id)
        method = try container.decodeIfPresent(String.self, forKey: .method)
        timeoutMs = try container.decodeIfPresent(Int.self, forKey: .timeoutMs)
        // A trace context that is not a string is ignored, as a bad one is: the handler starts a fresh trace.
        traceparent = container.traceMember(forKey: .traceparent)
        tracestate = container.traceMember(forKey: .tracestate)
    }

    /// The caller's trace context, nil without a `traceparent`.
    var trace: TraceContext? {
        TraceContext(members: traceparent, tracestate: tracestate)
    }
}

struct RPCSuccess<Result: Encodable>: Encodable {
    let jsonrpc = "2.0"
    let id: RPCID
    let result: Result
}

struct RPCFailure: Encodable {
    var jsonrpc = "2.0"
    let id: RPCID
    let error: RPCError
}
