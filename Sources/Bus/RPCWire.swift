import BusContract
import Foundation
import WireJSON

// The wire codecs of JSON-RPC's messages, member by member (see ``WireCodable``): a request's header is read,
// and a reply written, with no Codable container. Each keeps the members, order and errors of the type's
// `Codable` conformance, which RPCParsedOnceTests pin byte for byte. Then the direct path (``DirectWireCodable``):
// requests and replies in the form this package writes them, read and written without the tape.

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

// MARK: The direct path: a request in the form RPCClient writes it, read without the tape

extension RPCRequestHeader {
    /// The header of a request in the form ``RPCClient`` writes it, read without the tape, and the range of its params'
    /// value in `bytes` (nil when absent or null): `{"jsonrpc":"2.0","id":` an integer `,"method":` a plain ASCII
    /// string, then, each if present and in this order, `,"params":` a value ``WireCursor/skipValue(depth:)`` steps over,
    /// `,"timeoutMs":` an integer, `,"traceparent":` and `,"tracestate":` plain strings, and `}` at the end, with no
    /// whitespace. Nil for any other text, which the tape then reads (the same header, or the error): what this
    /// accepts is valid JSON within the wire's limits, read to the header the tape reads from it.
    static func readWire(_ bytes: UnsafeRawBufferPointer) -> (header: RPCRequestHeader, params: Range<Int>?)? {
        // Each string is shorter than the text, so within the tape's string limit when the text is.
        guard bytes.count <= Wire.decoder.limits.maxStringLength else { return nil }
        var cursor = WireCursor(bytes)
        guard cursor.expect(#"{"jsonrpc":"2.0","id":"#), let id = cursor.int64(), cursor.expect(#","method":"#), let method = cursor.string()
        else { return nil }
        var params: Range<Int>?
        if cursor.peek(#","params":"#) {
            let start = cursor.offset
            guard cursor.skipValue() else { return nil }
            // A value that starts with `n` is `null`: read as absent, as the tape reads it.
            if bytes[start] != UInt8(ascii: "n") { params = start..<cursor.offset }
        }
        var timeoutMs: Int?
        guard cursor.integer(#","timeoutMs":"#, &timeoutMs) else { return nil }
        var traceparent: String?
        guard cursor.string(#","traceparent":"#, &traceparent) else { return nil }
        var tracestate: String?
        guard cursor.string(#","tracestate":"#, &tracestate) else { return nil }
        guard cursor.expect("}"), cursor.isAtEnd else { return nil }
        let header = RPCRequestHeader(
            jsonrpc: "2.0", id: .number(id), method: method, timeoutMs: timeoutMs, traceparent: traceparent, tracestate: tracestate)
        return (header, params)
    }

    /// A header of these members.
    init(jsonrpc: String?, id: RPCID?, method: String?, timeoutMs: Int?, traceparent: String?, tracestate: String?) {
        self.jsonrpc = jsonrpc
        self.id = id
        self.method = method
        self.timeoutMs = timeoutMs
        self.traceparent = traceparent
        self.tracestate = tracestate
    }
}

extension RPCSuccess: DirectWireEncodable where Result: DirectWireEncodable {
    /// Writes the bytes `encode(wire:)` writes, the result through its direct codec.
    func writeWire(to out: inout WireBuffer) {
        out.append(#"{"jsonrpc":"2.0","id":"#)
        id.writeWire(to: &out)
        out.append(#","result":"#)
        result.writeWire(to: &out)
        out.append("}")
    }
}

extension RPCID {
    /// Writes the id as ``WireObjectWriter/encode(_:forKey:)`` does: its integer, its string, or null.
    func writeWire(to out: inout WireBuffer) {
        switch self {
        case .number(let number): out.appendInt(number)
        case .string(let text): out.appendString(text)
        case .null: out.append("null")
        }
    }
}

extension RPCMethods {
    /// How a method's params are read from their own text on the direct path: through their direct codec when they
    /// have one (which falls back to the tape over that text), else the tape over that text; nil when they do not
    /// decode, so the tape reads the whole request and gives the error with its path. Chosen once, at registration.
    static func paramsReader<Params: Decodable & Sendable>(_ type: Params.Type) -> @Sendable (UnsafeRawBufferPointer) -> Params? {
        if let direct = Params.self as? any (DirectWireDecodable & Sendable).Type {
            func reader<D: DirectWireDecodable & Sendable>(_ type: D.Type) -> @Sendable (UnsafeRawBufferPointer) -> Params? {
                { bytes in (try? Wire.decoder.decodeDirect(D.self, from: bytes)).map { unsafeBitCast($0, to: Params.self) } }
            }
            return reader(direct)
        }
        return { bytes in try? Wire.decoder.decode(Params.self, from: bytes) }
    }

    /// How a method's result is written in its reply: with no Codable container when it has a direct codec (the
    /// whole reply written in one ``WireBuffer``), else through the encoder. Chosen once, at registration.
    static func successWriter<Result: Encodable & Sendable>(_ type: Result.Type) -> @Sendable (RPCID, Result) throws -> Data {
        if let direct = Result.self as? any (DirectWireEncodable & Sendable).Type {
            func writer<D: DirectWireEncodable & Sendable>(_ type: D.Type) -> @Sendable (RPCID, Result) throws -> Data {
                { id, result in try Wire.encode(RPCSuccess(id: id, result: unsafeBitCast(result, to: D.self))) }
            }
            return writer(direct)
        }
        return { id, result in try Wire.encode(RPCSuccess(id: id, result: result)) }
    }
}

// MARK: The client's side

extension RPCRequest: WireEncodable {
    /// The members of the `Encodable` conformance, in its order, optionals left out when nil.
    func encode(wire object: WireObjectWriter) throws {
        try object.encode(jsonrpc, forKey: "jsonrpc")
        try object.encode(id, forKey: "id")
        try object.encode(method, forKey: "method")
        try object.encodeIfPresent(params, forKey: "params")
        try object.encodeIfPresent(timeoutMs, forKey: "timeoutMs")
        try object.encodeIfPresent(traceparent, forKey: "traceparent")
        try object.encodeIfPresent(tracestate, forKey: "tracestate")
    }
}

extension RPCRequest: DirectWireEncodable where Params: DirectWireEncodable {
    /// Writes the bytes `encode(wire:)` writes, the params through their direct codec.
    func writeWire(to out: inout WireBuffer) {
        out.append(#"{"jsonrpc":"2.0","id":"#)
        id.writeWire(to: &out)
        out.append(#","method":"#)
        out.appendString(method)
        if let params {
            out.append(#","params":"#)
            params.writeWire(to: &out)
        }
        if let timeoutMs {
            out.append(#","timeoutMs":"#)
            out.appendInt(Int64(timeoutMs))
        }
        if let traceparent {
            out.append(#","traceparent":"#)
            out.appendString(traceparent)
        }
        if let tracestate {
            out.append(#","tracestate":"#)
            out.appendString(tracestate)
        }
        out.append("}")
    }
}

extension RPCRequest {
    /// The request's bytes: written whole into one ``WireBuffer`` when its params have a direct codec, else through
    /// the encoder; the same bytes either way.
    func wireBytes() throws -> Data {
        if let direct = Params.self as? any DirectWireEncodable.Type {
            // `D` is `Params`, so the request is already one of `RPCRequest<D>`.
            func write<D: DirectWireEncodable>(_ type: D.Type) throws -> Data { try Wire.encode(unsafeBitCast(self, to: RPCRequest<D>.self)) }
            return try write(direct)
        }
        return try Wire.encode(self)
    }
}

extension RPCClient {
    /// The result of `body` if it is the reply to call `id` in the form ``RPCMethods`` writes a result
    /// (`{"jsonrpc":"2.0","id":` the id `,"result":` the result `}`) and `Value` has a direct codec that reads it;
    /// nil for anything else, which the tape then reads (the same result, the error it carries, or another call's reply).
    static func readDirect<Value>(_ body: Data, answering id: Int64, as type: Value.Type) -> Value? {
        guard let direct = Value.self as? any DirectWireDecodable.Type, body.count <= Wire.decoder.limits.maxStringLength else { return nil }
        func read<D: DirectWireDecodable>(_ type: D.Type) -> Value? {
            body.withUnsafeBytes { bytes in
                var cursor = WireCursor(bytes)
                guard cursor.expect(#"{"jsonrpc":"2.0","id":"#), cursor.int64() == id, cursor.expect(#","result":"#),
                      let result = D.readWire(&cursor), cursor.expect("}"), cursor.isAtEnd
                else { return nil }
                // `D` is `Value`.
                return unsafeBitCast(result, to: Value.self)
            }
        }
        return read(direct)
    }
}
