@testable import Bus
import BusContract
import Foundation
import Testing
import ZeroMQ

/// Params whose members are all optional: a method taking them may be called without params.
struct FilterParams: Codable, Sendable, Equatable {
    var name: String?
}

/// Params with a nested array, so an error's path runs through an index.
struct OrderParams: Codable, Sendable, Equatable {
    struct Leg: Codable, Sendable, Equatable { var amount: String }
    var legs: [Leg]
}

/// The methods whose replies are recorded: the sample server's and more.
enum RecordedAPI {
    static let filter = RPCMethod<FilterParams, String>("filter")
    static let order = RPCMethod<OrderParams, Int>("order")
    static let set = RPCMethod<ConvertParams, String>("set", changesState: true)
    static let upstream = RPCMethod<NoParams, String>("upstream")
    static let count = RPCMethod<NoParams, Int>("count")
    static let countAsText = RPCMethod<NoParams, String>("count")
    static let nothing = RPCMethod<NoParams, String?>("nothing")
    static let now = RPCMethod<NoParams, Date>("now")
    static let refuse = RPCMethod<NoParams, String>("refuse")
    static let broken = RPCMethod<NoParams, String>("broken")
    /// Params and result with a direct wire codec.
    static let beat = RPCMethod<Heartbeat, Heartbeat>("beat")
}

/// An error a handler throws that is not an ``RPCError``: answered as an internal error that describes it.
struct BrokenLedger: Error, CustomStringConvertible {
    var description: String { #"the ledger at "/tmp/x" is broken"# }
}

func recordedMethods() -> RPCMethods {
    var methods = sampleMethods()
    methods.register(RecordedAPI.filter) { $0.name ?? "all" }
    methods.register(RecordedAPI.order) { $0.legs.count }
    methods.register(RecordedAPI.set) { "\($0.amount) \($0.currency)" }
    methods.register(RecordedAPI.upstream) { () async throws -> String in
        throw RPCClientError.malformedResponse(endpoint: "ipc:///tmp/up", method: "rates", reason: "missing \"result\"")
    }
    methods.register(RecordedAPI.count) { 5 }
    methods.register(RecordedAPI.nothing) { nil }
    methods.register(RecordedAPI.now) { Date(timeIntervalSince1970: 1_764_000_000.123) }
    methods.register(RecordedAPI.beat) { Heartbeat(service: $0.instance, instance: $0.service, topics: $0.topics + 1, dropped: $0.dropped, intervalMilliseconds: $0.intervalMilliseconds) }
    methods.register(RecordedAPI.broken) { () async throws -> String in throw BrokenLedger() }
    methods.register(RecordedAPI.refuse) { () async throws -> String in
        throw RPCError(code: RPCError.Code.invalidRate, message: "rate \"0\" of USD-XYZ\n", data: ["pair": "USD-XYZ"])
    }
    return methods
}

/// Stage 3 of issue 31 (RPC parsed once) keeps every reply byte for byte: these were recorded from the code
/// before it (two parses per request, Codable replies), so a change of error text or member order fails here.
@Suite("RPC replies, byte for byte")
struct RPCParsedOnceTests {
    /// Requests and the exact reply the server gives each.
    static let recorded: [(request: String, reply: String)] = [
        (#"{nope"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: expected a quoted key at byte 1"}}"#),
        (#""#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: unexpected end of text at byte 0"}}"#),
        (#"[1,2]"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"[]"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"42"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#""text""#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"null"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the top level should be Dictionary<String, Any>, found null"}}"#),
        (#"{}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}"#),
        (#"{"id":1,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}"#),
        (#"{"jsonrpc":"1.0","id":1,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}"#),
        (#"{"jsonrpc":2,"id":1,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"{"jsonrpc":null,"id":1,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: \"jsonrpc\" must be \"2.0\""}}"#),
        (#"{"jsonrpc":"2.0","id":1}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: missing \"method\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":null}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"invalid request: missing \"method\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":7}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"{"jsonrpc":"2.0","id":true,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"{"jsonrpc":"2.0","id":1.5,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"{"jsonrpc":"2.0","id":[1],"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"{"jsonrpc":"2.0","id":{},"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"{"jsonrpc":"2.0","id":9223372036854775808,"method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"{"jsonrpc":"2.0","id":-9223372036854775808,"method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":-9223372036854775808,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":3.0,"method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":3,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":1e2,"method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":100,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":"abc","method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":"abc","error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":"a\"b\u00e9","method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":"a\"bé","error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":null,"method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":""}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: ","data":{"method":""}}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"n\u00e9 \"q\"\n\t\u0001/"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: né \"q\"\n\t\u0001/","data":{"method":"né \"q\"\n\t\u0001/"}}}"#),
        (#"{"jsonrpc":"2.0","id":1,"id":2,"method":"nope"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"nope","method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping"} x"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: unexpected text after the JSON value at byte 41"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping""#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: unexpected end of text at byte 39"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"pi"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: unterminated string at byte 33"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping",}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":01,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: a number must not start with 0 at byte 22"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":tru}}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: unexpected character 't' at byte 54"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"p\#tng"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: unescaped control character in a string at byte 35"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","timeoutMs":"soon"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"invalid request: expected a JSON object (batches are not supported)"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","timeoutMs":1.5}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: timeoutMs: Number 1.5 is not representable in Swift as Int."}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"nope","timeoutMs":1.5}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: timeoutMs: Number 1.5 is not representable in Swift as Int."}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","timeoutMs":99999999999999999999}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: timeoutMs: Number 99999999999999999999 is not representable in Swift as Int."}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","timeoutMs":-5}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","timeoutMs":null}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","traceparent":5,"tracestate":[]}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","traceparent":"garbage","tracestate":"x"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1,2]}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","extra":{"deep":[1,{"x":null}]}}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":"a1","method":"echo","params":{"amount":"1.50","currency":"EUR"}}"#,
         #"{"jsonrpc":"2.0","id":"a1","result":{"amount":"1.50","currency":"EUR"}}"#),
        (#" { "jsonrpc" : "2.0" , "id" : 7 , "method" : "echo" , "params" : { "amount" : "1" , "currency" : "EUR" } } "#,
         #"{"jsonrpc":"2.0","id":7,"result":{"amount":"1","currency":"EUR"}}"#),
        (#"{"method":"echo","params":{"currency":"EUR","amount":"2"},"id":2,"jsonrpc":"2.0"}"#,
         #"{"jsonrpc":"2.0","id":2,"result":{"amount":"2","currency":"EUR"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"amount":"1\u0030","currency":"E\"R\\\/","more":1}}"#,
         #"{"jsonrpc":"2.0","id":1,"result":{"amount":"10","currency":"E\"R\\/"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"amount":"1"}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params.currency\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"amount":1,"currency":"EUR"}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params.amount should be String"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"amount":null,"currency":"EUR"}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params.amount should be String, found null"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params.amount\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":null}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#),
        (#"{"jsonrpc":"2.0","id":"x","method":"echo","params":null}"#,
         #"{"jsonrpc":"2.0","id":"x","error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#),
        (#"{"jsonrpc":"2.0","method":"echo"}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":[1]}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params should be Dictionary<String, Any>"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":"x"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params should be Dictionary<String, Any>"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":5}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params should be Dictionary<String, Any>"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"amount":"1","currency":"EUR"},"params":{"amount":"2"}}"#,
         #"{"jsonrpc":"2.0","id":1,"result":{"amount":"1","currency":"EUR"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"all"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":null}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"all"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":{}}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"all"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":{"name":"x"}}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"x"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":{"name":null}}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"all"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":{"name":5}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params.name should be String"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":[]}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params should be Dictionary<String, Any>"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":true}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params should be Dictionary<String, Any>"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"order","params":{"legs":[{"amount":"1"},{"amount":"2"}]}}"#,
         #"{"jsonrpc":"2.0","id":1,"result":2}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"order","params":{"legs":[{"amount":"1"},{"amount":2}]}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params.legs.1.amount should be String"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"order","params":{"legs":[{"amount":"1"},{}]}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params.legs.Index 1.amount\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"order","params":{"legs":{}}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: params.legs should be Array<Any>"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"order"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"order","params":{"legs":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: nested deeper than the depth limit of 64 at byte 120"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"set","params":{"amount":"1","currency":"EUR"}}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"1 EUR"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"set"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#),
        (#"{"jsonrpc":"2.0","id":3,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":3,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"fail"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32001,"message":"no such thing"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"broken"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32603,"message":"internal error: the ledger at \"/tmp/x\" is broken"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"upstream"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"malformed reply from ipc:///tmp/up to rates: missing \"result\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"refuse"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32012,"message":"rate \"0\" of USD-XYZ\n","data":{"pair":"USD-XYZ"}}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"count"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":5}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"nothing"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":null}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"now"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"2025-11-24T16:00:00.123Z"}"#),
        // Requests in the members' order RPCClient writes them, without whitespace, and near misses of that form.
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000}}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000},"timeoutMs":2000,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"k=v"}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc": "2.0", "id": 5, "method": "beat", "params": {"service": "s", "instance": "i", "topics": 3, "dropped": 0, "intervalMilliseconds": 1000}}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"instance":"i","service":"s","topics":3,"dropped":0,"intervalMilliseconds":1000}}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s\u00e9","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000}}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"sé","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000,"more":[1]}}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":"3","dropped":0,"intervalMilliseconds":1000}}"#,
         #"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid params: params.topics should be Int"}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"intervalMilliseconds":1000}}"#,
         #"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid params: missing \"params.dropped\""}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":99999999999999999999,"dropped":0,"intervalMilliseconds":1000}}"#,
         #"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid params: params.topics: Number 99999999999999999999 is not representable in Swift as Int."}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3.5,"dropped":0,"intervalMilliseconds":1000}}"#,
         #"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid params: params.topics: Number 3.5 is not representable in Swift as Int."}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":null}"#,
         #"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat"}"#,
         #"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{}}"#,
         #"{"jsonrpc":"2.0","id":5,"error":{"code":-32602,"message":"invalid params: missing \"params.service\""}}"#),
        (#"{"jsonrpc":"2.0","id":"b","method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000}}"#,
         #"{"jsonrpc":"2.0","id":"b","result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000}}x"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: unexpected text after the JSON value at byte 131"}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000},"timeoutMs":1.5}"#,
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: timeoutMs: Number 1.5 is not representable in Swift as Int."}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000},"traceparent":5}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000},"id":6}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000},"params":{}}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":5,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000},}"#,
         #"{"jsonrpc":"2.0","id":5,"result":{"service":"i","instance":"s","topics":4,"dropped":0,"intervalMilliseconds":1000}}"#),
        (#"{"jsonrpc":"2.0","id":-0,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":0,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":0,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":-7,"method":"ping","params":null}"#,
         #"{"jsonrpc":"2.0","id":-7,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":9223372036854775807,"method":"ping","params":{}}"#,
         #"{"jsonrpc":"2.0","id":9223372036854775807,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[1,{"a":"b"},true,false,null,-1.25]}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","params":[[[[[[[[[[1]]]]]]]]]]}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","id":2}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","tracestate":"x","traceparent":"y"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"ping","timeoutMs":100,"timeoutMs":"x"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":null}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"all"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"filter","params":{"name":"x"},"timeoutMs":0}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"x"}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"amount":"1.50","currency":"EUR"},"timeoutMs":3000}"#,
         #"{"jsonrpc":"2.0","id":1,"result":{"amount":"1.50","currency":"EUR"}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"echo","params":{"currency":"EUR"},"timeoutMs":3000}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params.amount\""}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"nope","params":{"amount":"1.50","currency":"EUR"},"timeoutMs":3000}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32601,"message":"method not found: nope","data":{"method":"nope"}}}"#),
        (#"{"jsonrpc":"2.0","id":1,"method":"set","params":{"amount":"1.50","currency":"EUR"},"timeoutMs":3000}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"1.50 EUR"}"#),
    ]

    /// Requests that are not UTF-8 (a byte 0xFF, a truncated sequence, a UTF-16 surrogate), and their exact replies.
    static let recordedBytes: [(request: [UInt8], reply: String)] = [
        (Array(#"{""#.utf8) + [0xFF] + Array(#"":1}"#.utf8),
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: invalid UTF-8 at byte 2"}}"#),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":""#.utf8) + [0xC3] + Array(#""}"#.utf8),
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: invalid UTF-8 at byte 34"}}"#),
        (Array(#"{"jsonrpc":"2.0","id":1,"method":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}"#.utf8),
         #"{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: not valid JSON: invalid UTF-8 at byte 34"}}"#),
    ]

    /// Requests from a caller that may only read, and the exact replies: a method that changes state is forbidden
    /// before its params are read.
    static let recordedForbidden: [(userID: String, request: String, reply: String)] = [
        ("", #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"amount":"1","currency":"EUR"}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32030,"message":"forbidden: set changes state and answers only clients whose key is in the keys directory's writers/; this client is unidentified","data":{"method":"set"}}}"#),
        ("", #"{"jsonrpc":"2.0","id":1,"method":"set"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32030,"message":"forbidden: set changes state and answers only clients whose key is in the keys directory's writers/; this client is unidentified","data":{"method":"set"}}}"#),
        ("", #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
        ("reader-1", #"{"jsonrpc":"2.0","id":1,"method":"set","params":{"amount":"1","currency":"EUR"}}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32030,"message":"forbidden: set changes state and answers only clients whose key is in the keys directory's writers/; this client is reader-1","data":{"method":"set"}}}"#),
        ("reader-1", #"{"jsonrpc":"2.0","id":1,"method":"set"}"#,
         #"{"jsonrpc":"2.0","id":1,"error":{"code":-32030,"message":"forbidden: set changes state and answers only clients whose key is in the keys directory's writers/; this client is reader-1","data":{"method":"set"}}}"#),
        ("reader-1", #"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
         #"{"jsonrpc":"2.0","id":1,"result":"pong"}"#),
    ]

    @Test func everyReplyIsTheRecordedOne() async {
        let methods = recordedMethods()
        for (request, reply) in Self.recorded {
            let answer = await methods.handle(Data(request.utf8))
            #expect(String(decoding: answer, as: UTF8.self) == reply, "request \(request)")
        }
        for (request, reply) in Self.recordedBytes {
            let answer = await methods.handle(Data(request))
            #expect(String(decoding: answer, as: UTF8.self) == reply, "request \(request)")
        }
        for (userID, request, reply) in Self.recordedForbidden {
            let answer = await methods.handle(Data(request.utf8), from: RPCCallerIdentity(userID: userID, mayChangeState: false))
            #expect(String(decoding: answer, as: UTF8.self) == reply, "request \(request) from \(userID)")
        }
    }

    /// A method whose params are all optional, called without params or with null ones, runs with `{}`'s; one
    /// whose params `{}` does not satisfy answers that they are missing.
    @Test func absentOrNullParams() async throws {
        let methods = recordedMethods()
        for params in ["", #","params":null"#] {
            let filter = await methods.handle(Data(#"{"jsonrpc":"2.0","id":1,"method":"filter"\#(params)}"#.utf8))
            #expect(String(decoding: filter, as: UTF8.self) == #"{"jsonrpc":"2.0","id":1,"result":"all"}"#)
            let echo = await methods.handle(Data(#"{"jsonrpc":"2.0","id":1,"method":"echo"\#(params)}"#.utf8))
            #expect(String(decoding: echo, as: UTF8.self)
                == #"{"jsonrpc":"2.0","id":1,"error":{"code":-32602,"message":"invalid params: missing \"params\""}}"#)
        }
    }

    /// In process, a caller gets the server's result, its error as the server sent it, and a result of another
    /// type than the method's as a malformed response naming it.
    @Test func localCallsReadTheirReply() async throws {
        let local = LocalRPC(recordedMethods())
        #expect(try await local.call(SampleAPI.echo, ConvertParams(amount: "1.50", currency: "EUR")) == ConvertParams(amount: "1.50", currency: "EUR"))
        #expect(try await local.call(RecordedAPI.filter, FilterParams()) == "all")
        let beat = Heartbeat(service: "s", instance: "i", topics: 3, dropped: 0, intervalMilliseconds: 1000)
        #expect(try await local.call(RecordedAPI.beat, beat) == Heartbeat(service: "i", instance: "s", topics: 4, dropped: 0, intervalMilliseconds: 1000))
        #expect(try await local.call(RecordedAPI.set, ConvertParams(amount: "1", currency: "EUR")) == "1 EUR")
        #expect(try await local.call(RecordedAPI.nothing) == nil)
        #expect(try await local.call(RecordedAPI.now) == Date(timeIntervalSince1970: 1_764_000_000.123))
        await #expect(throws: RPCError.notFound("no such thing")) { try await local.call(SampleAPI.fail) }
        await #expect(throws: RPCError(code: RPCError.Code.invalidRate, message: "rate \"0\" of USD-XYZ\n", data: ["pair": "USD-XYZ"])) {
            try await local.call(RecordedAPI.refuse)
        }
        await #expect(throws: RPCError.methodNotFound("absent")) { try await local.call(RPCMethod<NoParams, String>("absent")) }
        await #expect(throws: RPCError.unavailable(#"malformed reply from ipc:///tmp/up to rates: missing "result""#)) {
            try await local.call(RecordedAPI.upstream)
        }
        await #expect(throws: RPCClientError.malformedResponse(endpoint: "inprocess", method: "count", reason: "result should be String")) {
            try await local.call(RecordedAPI.countAsText)
        }
        // A request over the wire's limit is refused with a null id: still the answer to the call.
        let refused = await #expect(throws: RPCError.self) {
            try await local.call(SampleAPI.echo, ConvertParams(amount: String(repeating: "1", count: 1 << 20 + 1), currency: "EUR"))
        }
        #expect(refused?.code == RPCError.Code.parseError && refused?.message.contains("1048576") == true, "\(String(describing: refused))")
    }

    /// What a call makes of a reply.
    enum Outcome: Equatable {
        /// It is not the answer: the call finds none.
        case none
        case result(String)
        /// The server's error.
        case error(RPCError)
        /// A malformed response, for this reason.
        case malformed(String)
    }

    /// Over a socket, the client skips replies to other ids, or that are not JSON objects (its call then finds no
    /// answer), throws the server's error as sent, and takes an error or result that does not decode as a
    /// malformed response, the reason naming the member.
    @Test func clientReadsEachReplyOnce() async throws {
        let context = try ZMQContext()
        let address = ipcEndpoint()
        let server = try OwnedSocket(context: context, type: .router, name: "fake-server") { try $0.bind(address) }
        // Each reply, `ID` replaced by the request's id, and what the call makes of it.
        let replies: [(reply: String, outcome: Outcome)] = [
            (#"{"jsonrpc":"2.0","id":99,"result":"pong"}"#, .none),
            (#"{"jsonrpc":"2.0","id":"ID","result":"pong"}"#, .none),
            (#"{"jsonrpc":"2.0","id":true,"result":"pong"}"#, .none),
            (#"[{"jsonrpc":"2.0","id":ID,"result":"pong"}]"#, .none),
            (#"{"jsonrpc":"2.0","result":"pong"}"#, .none),
            (#"{"jsonrpc":"2.0","id":ID,"error":{"code":"x"}}"#, .malformed("error.code should be Int")),
            (#"{"jsonrpc":"2.0","id":ID,"error":{"code":-32001}}"#, .malformed(#"missing "error.message""#)),
            (#"{"jsonrpc":"2.0","id":ID,"error":{"code":-32001,"message":"gone","data":{"k":1}}}"#, .malformed("error.data.k should be String")),
            (#"{"jsonrpc":"2.0","id":ID,"error":[]}"#, .malformed("error should be Dictionary<String, Any>")),
            (#"{"jsonrpc":"2.0","id":ID}"#, .malformed(#"missing "result""#)),
            (#"{"jsonrpc":"2.0","id":ID,"result":5}"#, .malformed("result should be String")),
            (#"{"jsonrpc":"2.0","id":ID,"result":null}"#, .malformed("result should be String, found null")),
            (#"{"jsonrpc":"2.0","id":ID,"error":{"code":-32001,"message":"gone","data":{"k":"v"}},"result":"pong"}"#,
             .error(RPCError(code: -32001, message: "gone", data: ["k": "v"]))),
            (#"{"jsonrpc":"2.0","id":ID,"error":null,"result":"pong"}"#, .result("pong")),
            (#"{"id":ID.0,"result":"p\u00f6ng"}"#, .result("pöng")),
            (#"{"jsonrpc":"2.0","id":ID,"result":"pong"}"#, .result("pong")),
        ]
        let answering = Task {
            var iterator = server.incoming.makeAsyncIterator()
            for (reply, _) in replies {
                guard let request = await iterator.next(), let body = request.last,
                      let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any], let id = object["id"] as? Int
                else { return }
                server.post(request.dropLast() + [Data(reply.replacingOccurrences(of: "ID", with: "\(id)").utf8)])
            }
        }
        let client = try RPCClient(context: context, endpoint: address, timeout: .milliseconds(300), retries: 0)
        for (reply, expected) in replies {
            let outcome: Outcome
            do {
                outcome = .result(try await client.call(SampleAPI.ping))
            } catch let error as RPCError {
                outcome = .error(error)
            } catch RPCClientError.malformedResponse(let endpoint, let method, let reason) where endpoint == address && method == "ping" {
                outcome = .malformed(reason)
            } catch RPCClientError.unreachable {
                outcome = .none
            }
            #expect(outcome == expected, "reply \(reply)")
        }
        answering.cancel()
        await client.close()
        await server.close()
    }
}

/// The direct path: a request in the form RPCClient writes it is read without the tape, to the header the tape reads.
@Suite("RPC requests read directly")
struct RPCDirectRequestTests {
    /// Every recorded request the direct reader takes gives the tape's header and the text of its params; the
    /// requests in the client's form are among them.
    @Test func theDirectReaderAgreesWithTheTape() throws {
        var taken = 0
        for (request, _) in RPCParsedOnceTests.recorded {
            let bytes = Data(request.utf8)
            guard let (direct, params) = bytes.withUnsafeBytes({ RPCRequestHeader.readWire($0) }) else { continue }
            taken += 1
            let (_, tape) = try Wire.parse(bytes) { try RPCRequestHeader(wire: $0) }
            #expect(direct.jsonrpc == tape.jsonrpc && direct.id == tape.id && direct.method == tape.method, "\(request)")
            #expect(direct.timeoutMs == tape.timeoutMs && direct.traceparent == tape.traceparent && direct.tracestate == tape.tracestate, "\(request)")
            let whole = try #require(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
            if let params {
                // Both values written again with sorted keys: the same text when they are the same value.
                func text(_ value: Any?) throws -> Data? {
                    try value.map { try JSONSerialization.data(withJSONObject: $0, options: [.sortedKeys, .fragmentsAllowed]) }
                }
                #expect(try text(JSONSerialization.jsonObject(with: bytes[params], options: .fragmentsAllowed)) == text(whole["params"]), "\(request)")
            } else {
                #expect(whole["params"] == nil || whole["params"] is NSNull, "\(request)")
            }
        }
        #expect(taken == 61)
    }

    /// What RPCClient and LocalRPC send is in the direct reader's form, with and without params and trace context.
    @Test func theClientsRequestsAreReadDirectly() throws {
        let beat = Heartbeat(service: "s", instance: "i", topics: 3, dropped: 0, intervalMilliseconds: 1000)
        let trace = TraceContext(members: "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", tracestate: "k=v")
        let requests = [
            try Wire.encode(RPCRequest(id: .number(12), method: "beat", params: beat, timeoutMs: 2_000, trace: trace)),
            try Wire.encode(RPCRequest(id: .number(13), method: "ping", params: NoParams(), timeoutMs: nil, trace: nil)),
            try Wire.encode(RPCRequest<Heartbeat>(id: .number(14), method: "beat", params: nil, timeoutMs: 1, trace: nil)),
        ]
        #expect(String(decoding: requests[0], as: UTF8.self) == #"{"jsonrpc":"2.0","id":12,"method":"beat","params":{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000},"timeoutMs":2000,"traceparent":"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01","tracestate":"k=v"}"#)
        #expect(try RPCRequest(id: .number(12), method: "beat", params: beat, timeoutMs: 2_000, trace: trace).wireBytes() == requests[0])
        #expect(String(decoding: requests[1], as: UTF8.self) == #"{"jsonrpc":"2.0","id":13,"method":"ping","params":{}}"#)
        #expect(String(decoding: requests[2], as: UTF8.self) == #"{"jsonrpc":"2.0","id":14,"method":"beat","timeoutMs":1}"#)
        let read = requests.map { request in request.withUnsafeBytes { RPCRequestHeader.readWire($0) } }
        #expect(read[0]?.header.id == .number(12) && read[0]?.header.method == "beat" && read[0]?.header.timeoutMs == 2_000)
        #expect(read[0]?.header.traceparent == trace?.traceparent && read[0]?.header.tracestate == "k=v")
        #expect(read[0]?.params.map { String(decoding: requests[0][$0], as: UTF8.self) } == String(decoding: try Wire.encode(beat), as: UTF8.self))
        #expect(read[1]?.header.method == "ping" && read[1]?.params.map { String(decoding: requests[1][$0], as: UTF8.self) } == "{}")
        #expect(read[2]?.header.id == .number(14) && read[2] != nil && read[2]?.params == nil)
    }

    /// A client reads a direct result's reply to its own id without the tape, and leaves any other reply to the tape:
    /// the same outcome either way.
    @Test func theClientReadsDirectResultsDirectly() throws {
        let beat = Heartbeat(service: "s", instance: "i", topics: 3, dropped: 0, intervalMilliseconds: 1000)
        let text = #"{"service":"s","instance":"i","topics":3,"dropped":0,"intervalMilliseconds":1000}"#
        func read(_ reply: String, as type: (some Decodable).Type = Heartbeat.self) -> (direct: Bool, outcome: String) {
            let body = Data(reply.utf8)
            let direct = RPCClient.readDirect(body, answering: 4, as: type) != nil
            let outcome = switch try? RPCClient.read(body, answering: 4, endpoint: "e", method: "m", as: type) {
            case .success(let value)?: "\(value)"
            case .failure(let error)?: "\(error)"
            case nil: "skipped"
            }
            return (direct, outcome)
        }
        #expect(read(#"{"jsonrpc":"2.0","id":4,"result":\#(text)}"#) == (true, "\(beat)"))
        #expect(read(#"{"jsonrpc":"2.0","id":4,"result":\#(text) }"#) == (false, "\(beat)"))
        #expect(read(#"{"jsonrpc":"2.0","id":4,"result":\#(text),"error":null}"#) == (false, "\(beat)"))
        #expect(read(#"{"jsonrpc":"2.0","id":5,"result":\#(text)}"#) == (false, "skipped"))
        #expect(read(#"{"jsonrpc":"2.0","id":4,"error":{"code":-32001,"message":"gone"}}"#) == (false, "JSON-RPC error -32001: gone"))
        #expect(read(#"{"jsonrpc":"2.0","id":4,"result":{"service":"s"}}"#)
            == (false, #"malformed reply from e to m: missing "result.instance""#))
        #expect(read(#"{"jsonrpc":"2.0","id":4,"result":"pong"}"#, as: String.self) == (false, "pong"))
    }
}
