/// W3C trace context as the wire carries it: the optional `traceparent` and `tracestate` members of a
/// stream envelope and of a JSON-RPC request (docs/protocol.md, "Trace context").
///
/// The contract carries the two strings unread: what they mean is the tracer's business (the bus turns them
/// into a `ServiceContext` and back). A `traceparent` the tracer cannot read is ignored, and a fresh trace starts.
public struct TraceContext: Sendable, Hashable {
    /// `version-traceid-parentid-flags`, e.g. `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
    public var traceparent: String?
    /// Vendor-specific trace state, passed on unread.
    public var tracestate: String?

    /// A trace context of these members.
    public init(traceparent: String? = nil, tracestate: String? = nil) {
        self.traceparent = traceparent
        self.tracestate = tracestate
    }
}
