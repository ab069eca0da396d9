import BusContract
import Tracing
import WireJSON

/// The trace context's way into and out of the task's `ServiceContext`, through the bootstrapped instrument.
///
/// The bus only carries the two strings: what they mean is the bootstrapped tracer's business. It writes them
/// from the task's `ServiceContext` (``current``) and reads them back into one (``serviceContext``); a tracer
/// that cannot read them (a bad `traceparent`) leaves the context empty, so the next span starts a fresh trace.
extension TraceContext {
    /// What the bootstrapped instrument writes of the task's current `ServiceContext`, or nil when the task
    /// has none or the instrument writes no `traceparent` (no tracer bootstrapped: `NoOpTracer` writes
    /// nothing), so nothing goes on the wire.
    @inlinable
    public static var current: TraceContext? {
        guard let context = ServiceContext.current else { return nil }
        return TraceContext(injecting: context)
    }

    /// The trace context of a message's two members, nil without a `traceparent`.
    @inlinable
    public init?(members traceparent: String?, tracestate: String?) {
        guard let traceparent else { return nil }
        self.init(traceparent: traceparent, tracestate: tracestate)
    }

    /// What the bootstrapped instrument writes of `context`, or nil when it writes no `traceparent`.
    public init?(injecting context: ServiceContext) {
        var carrier = TraceContext()
        InstrumentationSystem.instrument.inject(context, into: &carrier, using: Writer())
        guard carrier.traceparent != nil else { return nil }
        self = carrier
    }

    /// A fresh `ServiceContext` with what the bootstrapped instrument reads of these members: the remote
    /// parent of the next span; empty when the instrument cannot read them (the next span starts a new trace).
    public var serviceContext: ServiceContext {
        var context = ServiceContext.topLevel
        InstrumentationSystem.instrument.extract(self, into: &context, using: Reader())
        return context
    }

    /// The two members by their W3C names (any case); other keys are not carried.
    struct Writer: Injector {
        func inject(_ value: String, forKey key: String, into carrier: inout TraceContext) {
            switch key.lowercased() {
            case "traceparent": carrier.traceparent = value
            case "tracestate": carrier.tracestate = value
            default: break
            }
        }
    }

    /// Reads the two members by their W3C names (any case).
    struct Reader: Extractor {
        func extract(key: String, from carrier: TraceContext) -> String? {
            switch key.lowercased() {
            case "traceparent": carrier.traceparent
            case "tracestate": carrier.tracestate
            default: nil
            }
        }
    }
}

extension TraceContext {
    /// Runs `body` in a span named `operation` that continues `trace` (a received message's trace context), or
    /// plainly, with no span, when there is none: how a consumer handles a message in the trace it came in.
    public static func withSpan<T>(
        _ operation: String, continuing trace: TraceContext?, ofKind kind: SpanKind = .consumer,
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws -> T
    ) async rethrows -> T {
        guard let trace else { return try await body() }
        return try await Tracing.withSpan(operation, context: trace.serviceContext, ofKind: kind, isolation: isolation) { _ in try await body() }
    }

    /// ``withSpan(_:continuing:ofKind:isolation:_:)`` for synchronous work.
    public static func withSpan<T>(
        _ operation: String, continuing trace: TraceContext?, ofKind kind: SpanKind = .consumer, _ body: () throws -> T
    ) rethrows -> T {
        guard let trace else { return try body() }
        return try Tracing.withSpan(operation, context: trace.serviceContext, ofKind: kind) { _ in try body() }
    }
}

extension KeyedDecodingContainer {
    /// A trace context member (`traceparent`, `tracestate`): nil when absent or not a string, which is ignored as a
    /// bad one is (the next span starts a fresh trace).
    func traceMember(forKey key: Key) -> String? {
        (try? decodeIfPresent(String.self, forKey: key)) ?? nil
    }
}

extension WireObjectReader {
    /// ``Swift/KeyedDecodingContainer/traceMember(forKey:)`` for the wire's own decoding.
    @usableFromInline
    func traceMember(forKey key: StaticString) -> String? {
        (try? decodeIfPresent(String.self, forKey: key)) ?? nil
    }
}
