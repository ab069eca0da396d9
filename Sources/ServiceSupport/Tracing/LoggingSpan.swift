import Logging
import Synchronization
import Tracing
import W3CTraceContext

/// A span of ``LoggingTracer``: when it ends, one debug line on the tracer's span logger with the message `span`
/// and the metadata `name`, `kind`, `duration_ms`, `status` (`ok`, `error` or `unset`), `error` (what was recorded,
/// if anything), `trace_id`, `span_id`, `parent_span_id` (absent for a trace's first span), `attributes`, and
/// `events` and `links` when it has any.
public final class LoggingSpan: Span {
    public let context: ServiceContext
    /// Its trace id, its own span id, flags and `tracestate`.
    public let traceContext: TraceContext
    /// The span it is a child of, local or remote; nil for a trace's first span.
    public let parentSpanID: SpanID?
    /// Server, client, producer, consumer or internal.
    public let kind: SpanKind
    private let start: UInt64
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var operationName: String
        var attributes = SpanAttributes()
        var status: SpanStatus.Code?
        var statusMessage: String?
        var errors: [String] = []
        var events: [String] = []
        var links = 0
        var ended = false
    }

    init(
        operationName: String, kind: SpanKind, context: ServiceContext, trace: TraceContext, parentSpanID: SpanID?,
        start: UInt64, logger: Logger
    ) {
        self.context = context
        self.traceContext = trace
        self.parentSpanID = parentSpanID
        self.kind = kind
        self.start = start
        self.logger = logger
        self.state = Mutex(State(operationName: operationName))
    }

    /// What the span times; the span line's `name`.
    public var operationName: String {
        get { state.withLock { $0.operationName } }
        set { state.withLock { $0.operationName = newValue } }
    }

    /// Its attributes, logged as the span line's `attributes`.
    public var attributes: SpanAttributes {
        get { state.withLock { $0.attributes } }
        set { state.withLock { $0.attributes = newValue } }
    }

    /// True until the span ends.
    public var isRecording: Bool { state.withLock { !$0.ended } }

    /// Sets its status, logged as `status`; an error status's message joins `error` unless a recorded error says it.
    public func setStatus(_ status: SpanStatus) {
        state.withLock {
            $0.status = status.code
            $0.statusMessage = status.message
        }
    }

    /// Adds an event, logged by name in `events`.
    public func addEvent(_ event: SpanEvent) {
        state.withLock { $0.events.append(event.name) }
    }

    /// Records an error, logged as its text in `error`.
    public func recordError<Instant: TracerInstant>(_ error: any Error, attributes: SpanAttributes, at instant: @autoclosure () -> Instant) {
        state.withLock { $0.errors.append("\(error)") }
    }

    /// Adds a link, counted in `links`.
    public func addLink(_ link: SpanLink) {
        state.withLock { $0.links += 1 }
    }

    /// Logs the span, once: a second `end` does nothing.
    public func end<Instant: TracerInstant>(at instant: @autoclosure () -> Instant) {
        let ended: State? = state.withLock {
            guard !$0.ended else { return nil }
            $0.ended = true
            return $0
        }
        guard let ended, logger.logLevel <= .debug else { return }
        let end = instant().nanosecondsSinceEpoch
        logger.debug("span", metadata: metadata(of: ended, nanoseconds: end >= start ? end - start : 0))
    }

    private func metadata(of span: State, nanoseconds: UInt64) -> Logger.Metadata {
        var metadata: Logger.Metadata = [
            "name": "\(span.operationName)",
            "kind": "\(Self.text(kind))",
            "duration_ms": "\(nanoseconds / 1_000_000).\(String(nanoseconds % 1_000_000 / 1_000 + 1_000).dropFirst())",
            "status": "\(span.status.map { $0 == .ok ? "ok" : "error" } ?? "unset")",
            "trace_id": "\(traceContext.traceID)",
            "span_id": "\(traceContext.spanID)",
        ]
        if let parentSpanID { metadata["parent_span_id"] = "\(parentSpanID)" }
        var errors = span.errors
        if span.status == .error, let message = span.statusMessage, !errors.contains(where: { $0.contains(message) }) {
            errors.append(message)
        }
        if !errors.isEmpty { metadata["error"] = "\(errors.joined(separator: "; "))" }
        var attributes: Logger.Metadata = [:]
        span.attributes.forEach { key, value in attributes[key] = "\(Self.text(value))" }
        metadata["attributes"] = .dictionary(attributes)
        if !span.events.isEmpty { metadata["events"] = .array(span.events.map { "\($0)" }) }
        if span.links > 0 { metadata["links"] = "\(span.links)" }
        return metadata
    }

    private static func text(_ kind: SpanKind) -> String {
        switch kind {
        case .server: "server"
        case .client: "client"
        case .producer: "producer"
        case .consumer: "consumer"
        case .internal: "internal"
        }
    }

    private static func text(_ attribute: SpanAttribute) -> String {
        switch attribute {
        case .string(let value): value
        case .int32(let value): "\(value)"
        case .int64(let value): "\(value)"
        case .double(let value): "\(value)"
        case .bool(let value): "\(value)"
        case .stringConvertible(let value): value.description
        case .stringArray(let values): "[\(values.joined(separator: ", "))]"
        case .int32Array(let values): "\(values)"
        case .int64Array(let values): "\(values)"
        case .doubleArray(let values): "\(values)"
        case .boolArray(let values): "\(values)"
        case .stringConvertibleArray(let values): "[\(values.map(\.description).joined(separator: ", "))]"
        default: "\(attribute)"
        }
    }
}
