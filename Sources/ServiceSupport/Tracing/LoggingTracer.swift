import Logging
import Metrics
import Synchronization
import Tracing
import W3CTraceContext

/// The tracer every service bootstraps (``Runtime/bootstrap(service:options:)``): W3C trace context
/// (`traceparent`, `tracestate`) carried from span to span and from service to service, and each ended span logged
/// as one line at debug level on the logger `tickwire.<service>.spans`.
///
/// A span starts in the trace of the context it starts in, as a child of that context's span (or of the remote
/// span an extracted `traceparent` names), else it begins a fresh trace with random ids. A `traceparent` that is not
/// W3C's version 00 form (wrong length, bad or upper-case hex, version ff, all-zero ids) is ignored, never an error:
/// nothing is extracted, so the next span begins a fresh trace; it is counted in
/// `tickwire_trace_context_invalid_total{part="traceparent"}` (a bad `tracestate` alone drops the state, `part="tracestate"`).
///
/// Written here rather than taken from swift-otel: swift-otel with its OTLP/HTTP exporter (SwiftProtobuf, the
/// generated OTLP messages) adds 1 min 22 s of release compilation on two cores to a first build, whose whole took
/// 15 min 9 s on a busy machine (README, "Logs and traces"), and `make run`'s first build must stay under
/// 12 minutes. A build with the `OTLP` trait exports spans over OTLP with swift-otel's tracer instead
/// (`--otlp-endpoint`).
public struct LoggingTracer: Tracer {
    public typealias Span = LoggingSpan

    /// Where ended spans are logged, at debug level.
    public let spanLogger: Logger
    private let invalid: InvalidTraceContexts

    /// A tracer of `service` that logs its spans on `tickwire.<service>.spans` (or `spanLogger`), reports bad
    /// incoming trace context on `logger` and counts it with `metrics`.
    public init(service: String, logger: Logger, spanLogger: Logger? = nil, metrics: any MetricsFactory = MetricsSystem.factory) {
        self.spanLogger = spanLogger ?? Logger(label: "tickwire.\(service).spans")
        self.invalid = InvalidTraceContexts(service: service, logger: logger, metrics: metrics)
    }

    /// Starts a span of `kind` in the trace of `context`, as a child of its span, else in a fresh trace.
    public func startSpan<Instant: TracerInstant>(
        _ operationName: String,
        context: @autoclosure () -> ServiceContext,
        ofKind kind: SpanKind,
        at instant: @autoclosure () -> Instant,
        function: String,
        file fileID: String,
        line: UInt
    ) -> LoggingSpan {
        var context = context()
        let parent = context.storedTraceContext
        let trace = TraceContext(
            traceID: parent?.traceID ?? .random(), spanID: .random(),
            flags: parent?.flags ?? .sampled, state: parent?.state ?? TraceState())
        context.traceContext = trace
        return LoggingSpan(
            operationName: operationName, kind: kind, context: context, trace: trace, parentSpanID: parent?.spanID,
            start: instant().nanosecondsSinceEpoch, logger: spanLogger)
    }

    /// Nothing to flush: a span is logged when it ends.
    public func forceFlush() {}

    /// Writes the context's span as `traceparent` (and `tracestate` when it has one); nothing outside a span.
    public func inject<Carrier, Inject: Injector>(
        _ context: ServiceContext, into carrier: inout Carrier, using injector: Inject
    ) where Inject.Carrier == Carrier {
        guard let trace = context.storedTraceContext else { return }
        injector.inject(trace.traceParentHeaderValue, forKey: TraceHeaders.traceparent, into: &carrier)
        if let state = trace.traceStateHeaderValue {
            injector.inject(state, forKey: TraceHeaders.tracestate, into: &carrier)
        }
    }

    /// Reads `traceparent` and `tracestate` into `context`, so the next span there is a child of the remote span;
    /// a bad `traceparent` is ignored and counted, a bad `tracestate` dropped and counted.
    public func extract<Carrier, Extract: Extractor>(
        _ carrier: Carrier, into context: inout ServiceContext, using extractor: Extract
    ) where Extract.Carrier == Carrier {
        guard let traceparent = extractor.extract(key: TraceHeaders.traceparent, from: carrier) else { return }
        guard var trace = try? TraceContext(traceParentHeaderValue: traceparent) else {
            invalid.report(.traceparent, value: traceparent)
            return
        }
        if let state = extractor.extract(key: TraceHeaders.tracestate, from: carrier), !state.isEmpty {
            if let withState = try? TraceContext(traceParentHeaderValue: traceparent, traceStateHeaderValue: state) {
                trace = withState
            } else {
                invalid.report(.tracestate, value: state)
            }
        }
        context.traceContext = trace
    }
}

/// Counts and logs the bad trace context a tracer ignored: the first at warning level, the rest at debug (a peer
/// that sends one with every message must not flood the log; the counter has them all).
private final class InvalidTraceContexts: Sendable {
    enum Part: String { case traceparent, tracestate }

    private let logger: Logger
    private let traceparent: Counter
    private let tracestate: Counter
    private let seen = Atomic<Int>(0)

    init(service: String, logger: Logger, metrics: any MetricsFactory) {
        self.logger = logger
        let label = "tickwire_trace_context_invalid_total"
        traceparent = Counter(label: label, dimensions: [("service", service), ("part", "traceparent")], factory: metrics)
        tracestate = Counter(label: label, dimensions: [("service", service), ("part", "tracestate")], factory: metrics)
    }

    func report(_ part: Part, value: String) {
        (part == .traceparent ? traceparent : tracestate).increment()
        let first = seen.wrappingAdd(1, ordering: .relaxed).oldValue == 0
        let level: Logger.Level = first ? .warning : .debug
        guard logger.logLevel <= level else { return }
        let message: Logger.Message = part == .traceparent
            ? "ignored a bad traceparent: the next span starts a fresh trace"
            : "ignored a bad tracestate: the trace goes on without it"
        logger.log(
            level: level, first ? "\(message) (later ones are logged at debug level)" : message,
            metadata: [
                "value": "\(String(value.prefix(100)).debugDescription)",
                "counted": "tickwire_trace_context_invalid_total{part=\"\(part.rawValue)\"}",
            ])
    }
}
