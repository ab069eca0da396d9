import Logging
import Tracing
import W3CTraceContext

/// Where ``LoggingTracer`` keeps the W3C trace context of the span a `ServiceContext` belongs to.
private enum TraceContextKey: ServiceContextKey {
    typealias Value = TraceContext
    static let nameOverride: String? = "traceparent"
}

extension ServiceContext {
    /// The W3C trace context of the span this context belongs to (its trace id, its own span id, flags and
    /// `tracestate`), or nil outside any span and without an extracted `traceparent`.
    ///
    /// Reads what ``LoggingTracer`` stored; under another tracer (swift-otel's, with the `OTLP` trait), what that
    /// tracer injects as `traceparent` for this context. `ServiceContext.current?.traceContext?.traceID` is the
    /// trace id of the running task.
    public var traceContext: TraceContext? {
        get {
            if let stored = self[TraceContextKey.self] { return stored }
            var carrier: [String: String] = [:]
            InstrumentationSystem.instrument.inject(self, into: &carrier, using: TraceHeaders.DictionaryInjector())
            guard let traceparent = carrier[TraceHeaders.traceparent] else { return nil }
            return try? TraceContext(traceParentHeaderValue: traceparent)
        }
        set { self[TraceContextKey.self] = newValue }
    }

    /// The trace context ``LoggingTracer`` stored, without asking the bootstrapped instrument.
    var storedTraceContext: TraceContext? { self[TraceContextKey.self] }
}

/// The W3C trace context headers and a `[String: String]` carrier for them, as the bus carries them.
public enum TraceHeaders {
    /// `traceparent`: version, trace id, parent span id and flags, e.g.
    /// `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01`.
    public static let traceparent = "traceparent"
    /// `tracestate`: vendors' values carried along with the trace, e.g. `rojo=00f067aa0ba902b7`.
    public static let tracestate = "tracestate"

    /// Writes header values into a `[String: String]`.
    public struct DictionaryInjector: Injector {
        public init() {}

        public func inject(_ value: String, forKey key: String, into carrier: inout [String: String]) {
            carrier[key] = value
        }
    }

    /// Reads header values from a `[String: String]`.
    public struct DictionaryExtractor: Extractor {
        public init() {}

        public func extract(key: String, from carrier: [String: String]) -> String? {
            carrier[key]
        }
    }
}

extension Logger.MetadataProvider {
    /// `trace_id` and `span_id` of the span the logging task is in (nothing outside a span): what puts the trace
    /// id on every log line of a service bootstrapped by ``Runtime/bootstrap(service:options:)``.
    public static let traceIDs = Logger.MetadataProvider {
        guard let trace = ServiceContext.current?.storedTraceContext else { return [:] }
        return ["trace_id": "\(trace.traceID)", "span_id": "\(trace.spanID)"]
    }
}
