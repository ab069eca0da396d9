import ContractSchema
import Foundation
import Testing

/// An envelope and a request with W3C trace context validate; a `traceparent` that is not version 00's shape does not.
@Test func traceContextMembersValidate() throws {
    let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    func envelope(_ members: String) throws -> JSONValue {
        try JSONValue(parsing: Data(#"{"version":1,"type":"quote","seq":1,"time":"2026-11-26T07:00:00.000Z","source":"bitso",\#(members)"data":{}}"#.utf8))
    }
    func request(_ members: String) throws -> JSONValue {
        try JSONValue(parsing: Data(#"{"jsonrpc":"2.0","id":1,"method":"health",\#(members)"timeoutMs":100}"#.utf8))
    }
    let envelopeSchema = ContractDocuments.envelope().json
    let requestSchema = try #require(definitions["JSONRPCRequest"])
    #expect(strict.errors(try envelope(""), against: envelopeSchema).isEmpty)
    #expect(strict.errors(try envelope(#""traceparent":"\#(traceparent)","tracestate":"a=1,b=2","#), against: envelopeSchema).isEmpty)
    #expect(strict.errors(try request(#""traceparent":"\#(traceparent)","tracestate":"a=1","#), against: requestSchema).isEmpty)
    for bad in ["00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7", "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01", "x"] {
        #expect(!strict.errors(try envelope(#""traceparent":"\#(bad)","#), against: envelopeSchema).isEmpty, "\(bad)")
        #expect(!strict.errors(try request(#""traceparent":"\#(bad)","#), against: requestSchema).isEmpty, "\(bad)")
    }
}
