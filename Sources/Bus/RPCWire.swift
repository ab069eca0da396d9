import BusContract
import Foundation
import WireJSON

// The wire codecs of JSON-RPC's messages, member by member (see ``WireCodable``): a request's header is read,
// and a reply written, with no Codable container. Each keeps the members, order and errors of the type's
// `Codable` conformance, which RPCParsedOnceTests pin byte for byte.

extension RPCRequestHeader: WireDecodable {
    /// Reads what `init(from:)` reads, with the same errors.
    init(wire object: WireObjectReader) throws {
        jsonrpc = try object.decodeIfPresent(String.self, forKey: "jsonrpc")
        id = try object.decodeIfPresent(RPCID.self, forKey: "id")
        method = try object.decodeIfPresent(String.self, forKey: "method")
        timeoutMs = try object.decodeIfPresent(Int.self, forKey: "timeoutMs")
        traceparent = object.traceMember(forKey: "traceparent")
        tracestate = object.traceMember(forKey: "tracestate")
    }
}

extension RPCSuccess: WireEncodable {
    /// The members of the `Encodable` conformance, in its order.
    func encode(wire object: WireObjectWriter) throws {
        try object.encode(jsonrpc, forKey: "jsonrpc")
        try object.encode(id, forKey: "id")
        try object.encode(result, forKey: "result")
    }
}

extension RPCFailure: WireEncodable {
    /// The members of the `Encodable` conformance, in its order.
    func encode(wire object: WireObjectWriter) throws {
        try object.encode(jsonrpc, forKey: "jsonrpc")
        try object.encode(id, forKey: "id")
        try object.encode(error, forKey: "error")
    }
}

extension RPCError: WireCodable {
    /// The members of the `Codable` conformance, in its order; `data` (a dictionary, in its own order) as it
    /// always was written.
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(code, forKey: "code")
        try object.encode(message, forKey: "message")
        try object.encodeIfPresent(data, forKey: "data")
    }

    /// Reads what `init(from:)` reads, in its order, with the same errors.
    public init(wire object: WireObjectReader) throws {
        let code = try object.decode(Int.self, forKey: "code")
        let message = try object.decode(String.self, forKey: "message")
        self.init(code: code, message: message, data: try object.decodeIfPresent([String: String].self, forKey: "data"))
    }
}

extension WireObjectWriter {
    /// Writes `id` under `key` as itself: its integer, its string, or null.
    func encode(_ id: RPCID, forKey key: StaticString) throws {
        switch id {
        case .number(let number): try encode(number, forKey: key)
        case .string(let text): try encode(text, forKey: key)
        case .null: try encode(Int64?.none, forKey: key)
        }
    }
}
