import Foundation
import Logging
import Prometheus
import Testing
import Tracing
import W3CTraceContext
@testable import ServiceSupport

@Suite("LoggingTracer: W3C trace context in and out, parents and children, the span lines")
struct TracingTests {
    /// W3C's own example of a `traceparent` and a `tracestate`.
    static let traceparent = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    static let tracestate = "rojo=00f067aa0ba902b7,congo=t61rcWkgMzE"

    let capture = LogCapture()
    let registry = PrometheusCollectorRegistry()

    func tracer() -> LoggingTracer {
        LoggingTracer(service: "converter", logger: capture.logger(label: "tickwire.converter"),
                      spanLogger: capture.logger(label: "tickwire.converter.spans"),
                      metrics: PrometheusMetricsFactory(registry: registry))
    }

    func extracted(_ carrier: [String: String], by tracer: LoggingTracer) -> ServiceContext {
        var context = ServiceContext.topLevel
        tracer.extract(carrier, into: &context, using: TraceHeaders.DictionaryExtractor())
        return context
    }

    func injected(_ context: ServiceContext, by tracer: LoggingTracer) -> [String: String] {
        var carrier: [String: String] = [:]
        tracer.inject(context, into: &carrier, using: TraceHeaders.DictionaryInjector())
        return carrier
    }

    /// A span's context injects as `traceparent`, which extracts to the same trace and span; an extracted
    /// `tracestate` travels on to the child span's injection.
    @Test func injectsAndExtractsTheSameContext() throws {
        let tracer = tracer()
        let carrier = tracer.withSpan("publish", ofKind: .producer) { span in
            #expect(ServiceContext.current?.traceContext == span.traceContext, "the current context is the span's")
            return injected(span.context, by: tracer)
        }
        let traceparent = try #require(carrier["traceparent"])
        #expect(carrier["tracestate"] == nil, "no state, no tracestate")
        let context = extracted(carrier, by: tracer)
        let trace = try #require(context.traceContext)
        #expect(trace.traceParentHeaderValue == traceparent)
        #expect(traceparent.hasPrefix("00-\(trace.traceID)-\(trace.spanID)-01"))

        let remote = extracted(["traceparent": Self.traceparent, "tracestate": Self.tracestate], by: tracer)
        #expect(remote.traceContext?.traceID.description == "4bf92f3577b34da6a3ce929d0e0e4736")
        let child = tracer.startSpan("handle", context: remote, ofKind: .consumer)
        let forwarded = injected(child.context, by: tracer)
        #expect(forwarded["traceparent"] == "00-4bf92f3577b34da6a3ce929d0e0e4736-\(child.traceContext.spanID)-01")
        #expect(forwarded["tracestate"] == "rojo=00f067aa0ba902b7, congo=t61rcWkgMzE")
        #expect(child.parentSpanID?.description == "00f067aa0ba902b7")
        #expect(injected(.topLevel, by: tracer).isEmpty, "nothing outside a span")
    }

    /// Each bad `traceparent` is ignored (nothing extracted, the next span a fresh trace), never an error, and counted;
    /// the first is logged at warning level, the rest at debug. A bad `tracestate` alone is dropped and counted.
    @Test func ignoresAndCountsBadTraceparents() throws {
        let tracer = tracer()
        let bad = [
            "", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7",  // wrong length
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01-00",  // wrong length
            "00-4bf92f3577b34da6a3ce929d0e0e473g-00f067aa0ba902b7-01",  // bad hex
            "00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01",  // upper-case hex
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902bz-01",  // bad hex in the span id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-0x",  // bad hex in the flags
            "ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01",  // version ff
            "00-00000000000000000000000000000000-00f067aa0ba902b7-01",  // all-zero trace id
            "00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01",  // all-zero span id
            "00_4bf92f3577b34da6a3ce929d0e0e4736_00f067aa0ba902b7_01",  // wrong delimiters
            "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\n",  // wrong length, a line break
        ]
        for value in bad {
            let context = extracted(["traceparent": value, "tracestate": Self.tracestate], by: tracer)
            #expect(context.traceContext == nil, "\(value.debugDescription) is ignored")
            let span = tracer.startSpan("fresh", context: context)
            #expect(span.parentSpanID == nil, "after \(value.debugDescription) the span starts a fresh trace")
            #expect(span.traceContext.traceID.description != "4bf92f3577b34da6a3ce929d0e0e4736")
            #expect(span.traceContext.state.isEmpty)
        }
        let text = registry.emitToString()
        #expect(text.contains("tickwire_trace_context_invalid_total{service=\"converter\",part=\"traceparent\"} \(bad.count)"))

        let badState = extracted(["traceparent": Self.traceparent, "tracestate": "Rojo=1"], by: tracer)  // vendors are lower-case
        #expect(badState.traceContext?.traceID.description == "4bf92f3577b34da6a3ce929d0e0e4736", "the traceparent still counts")
        #expect(badState.traceContext?.state.isEmpty == true)
        #expect(registry.emitToString().contains("tickwire_trace_context_invalid_total{service=\"converter\",part=\"tracestate\"} 1"))

        let reports = try capture.objects().filter { ($0["message"] as? String)?.hasPrefix("ignored a bad") == true }
        #expect(reports.map { $0["level"] as? String } == ["warning"] + Array(repeating: "debug", count: bad.count), "the tracestate's last")
        let first = try #require(reports.first?["metadata"] as? [String: String])
        #expect(first["value"] == "\"\"")
    }

    /// A span started inside another is its child in the same trace; spans started outside any begin traces of their own.
    @Test func childrenShareTheTraceOfTheirParent() {
        let tracer = tracer()
        let (parent, child, grandchild) = tracer.withSpan("request", ofKind: .server) { parent in
            tracer.withSpan("convert") { child in
                tracer.withSpan("rates") { grandchild in (parent.traceContext, child, grandchild) }
            }
        }
        #expect(child.traceContext.traceID == parent.traceID)
        #expect(child.parentSpanID == parent.spanID)
        #expect(grandchild.traceContext.traceID == parent.traceID)
        #expect(grandchild.parentSpanID == child.traceContext.spanID)
        #expect(child.traceContext.spanID != parent.spanID)
        let other = tracer.withSpan("another request") { $0 }
        #expect(other.parentSpanID == nil)
        #expect(other.traceContext.traceID != parent.traceID)
        #expect(ServiceContext.current?.traceContext == nil, "no span once they ended")
    }

    /// An ended span is one debug line on the span logger with its name, kind, duration, status, error, ids and
    /// attributes; a second `end` logs nothing more.
    @Test func logsEachEndedSpanOnce() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "unknown currency: XYZ" } }
        let tracer = tracer()
        let parent = tracer.startSpan("rpc convert", ofKind: .server)
        #expect(throws: Refused.self) {
            try tracer.withSpan("convert", context: parent.context, ofKind: .internal) { span in
                span.attributes["rpc.method"] = "convert"
                span.attributes["amount.count"] = 3
                span.addEvent("rates read")
                throw Refused()
            }
        }
        parent.setStatus(SpanStatus(code: .ok))
        parent.end()
        parent.end()
        let lines = try capture.objects()
        #expect(lines.count == 2)
        for line in lines {
            #expect(line["logger"] as? String == "tickwire.converter.spans")
            #expect(line["level"] as? String == "debug")
            #expect(line["message"] as? String == "span")
        }
        let child = try #require(lines.first?["metadata"] as? [String: Any])
        #expect(child["name"] as? String == "convert")
        #expect(child["kind"] as? String == "internal")
        #expect(child["status"] as? String == "error")
        #expect(child["error"] as? String == "unknown currency: XYZ")
        #expect(child["trace_id"] as? String == parent.traceContext.traceID.description)
        #expect(child["parent_span_id"] as? String == parent.traceContext.spanID.description)
        #expect(child["attributes"] as? [String: String] == ["rpc.method": "convert", "amount.count": "3"])
        #expect(child["events"] as? [String] == ["rates read"])
        let duration = try #require(child["duration_ms"] as? String)
        #expect(duration.wholeMatch(of: /\d+\.\d{3}/) != nil, "\(duration)")
        let root = try #require(lines.last?["metadata"] as? [String: Any])
        #expect(root["name"] as? String == "rpc convert")
        #expect(root["kind"] as? String == "server")
        #expect(root["status"] as? String == "ok")
        #expect(root["span_id"] as? String == parent.traceContext.spanID.description)
        #expect(root["parent_span_id"] == nil)
        #expect(root["error"] == nil)
    }

    /// An error status whose message a recorded error already says adds nothing to `error` (RPCMethods sets both);
    /// one that says something else joins it.
    @Test func logsAnErrorStatusOnlyWhenItAddsToTheRecordedError() throws {
        struct Refused: Error, CustomStringConvertible { var description: String { "JSON-RPC error -32602: bad amount" } }
        let tracer = tracer()
        let same = tracer.startSpan("rpc convert", ofKind: .server)
        same.recordError(Refused())
        same.setStatus(SpanStatus(code: .error, message: "bad amount"))
        same.end()
        let other = tracer.startSpan("rpc convert", ofKind: .server)
        other.recordError(Refused())
        other.setStatus(SpanStatus(code: .error, message: "the caller gave up"))
        other.end()
        let errors = try capture.objects().map { ($0["metadata"] as? [String: Any])?["error"] as? String }
        #expect(errors == ["JSON-RPC error -32602: bad amount", "JSON-RPC error -32602: bad amount; the caller gave up"])
    }

    /// Above debug level only the first bad trace context is logged (at warning level); every one is counted.
    @Test func logsOnlyTheFirstBadTraceparentAboveDebug() throws {
        let tracer = LoggingTracer(service: "converter", logger: capture.logger(label: "tickwire.converter", level: .info),
                                   spanLogger: capture.logger(label: "tickwire.converter.spans"),
                                   metrics: PrometheusMetricsFactory(registry: registry))
        for _ in 0..<3 { _ = extracted(["traceparent": "00-bad"], by: tracer) }
        #expect(try capture.objects().map { $0["level"] as? String } == ["warning"])
        #expect(registry.emitToString().contains("tickwire_trace_context_invalid_total{service=\"converter\",part=\"traceparent\"} 3"))
    }

    /// Above debug level, spans are not logged.
    @Test func logsNoSpansAboveDebug() {
        let tracer = LoggingTracer(service: "converter", logger: capture.logger(label: "tickwire.converter"),
                                   spanLogger: capture.logger(label: "tickwire.converter.spans", level: .info),
                                   metrics: PrometheusMetricsFactory(registry: registry))
        tracer.withSpan("quiet") { _ in }
        #expect(capture.all.isEmpty)
    }

    /// The metadata provider puts the span's trace and span ids on a line logged inside it, across an await too,
    /// and nothing outside.
    @Test func putsTheTraceIDOnLogLines() async throws {
        let tracer = tracer()
        let logger = capture.logger(label: "tickwire.portfolio", level: .info, metadataProvider: .traceIDs)
        let trace = await tracer.withSpan("holdings") { span in
            logger.info("inside")
            await Task.yield()
            logger.info("after an await")
            return span.traceContext
        }
        logger.info("outside")
        let lines = try capture.objects().filter { $0["logger"] as? String == "tickwire.portfolio" }
        #expect(lines.map { $0["message"] as? String } == ["inside", "after an await", "outside"])
        for line in lines.prefix(2) {
            let metadata = try #require(line["metadata"] as? [String: String])
            #expect(metadata["trace_id"] == trace.traceID.description)
            #expect(metadata["span_id"] == trace.spanID.description)
        }
        #expect((lines[2]["metadata"] as? [String: String])?["trace_id"] == nil)
    }
}
