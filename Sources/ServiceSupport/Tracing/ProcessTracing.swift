import Logging
import ServiceLifecycle
import Tracing
#if OTLP
import OTel
#endif

/// The tracer a service process bootstraps: ``LoggingTracer``, or with `--otlp-endpoint` (a build with the `OTLP`
/// trait) swift-otel's tracer exporting over OTLP/HTTP, whose batching exporter then runs as a service of the
/// process's group.
enum ProcessTracing {
    /// What puts `trace_id` and `span_id` on every log line under the tracer `otlp` selects.
    static func metadataProvider(otlp: OTLPSettings?) -> Logger.MetadataProvider {
        #if OTLP
        if otlp != nil { return OTel.makeLoggingMetadataProvider() }  // trace_id, span_id (and trace_flags) of its spans
        #endif
        return .traceIDs
    }

    /// Bootstraps the instrumentation system once for the process; returns the services the tracer needs running.
    static func bootstrap(service: String, logger: Logger, otlp: OTLPSettings?) throws -> [any Service] {
        #if OTLP
        if let otlp {
            var configuration = OTel.Configuration.default
            configuration.serviceName = service
            configuration.diagnosticLogger = .custom(logger)
            configuration.logs.enabled = false
            configuration.metrics.enabled = false  // Prometheus' /metrics has them
            configuration.traces.enabled = true
            configuration.traces.exporter = .otlp
            configuration.traces.otlpExporter.protocol = .httpProtobuf
            configuration.traces.otlpExporter.endpoint = otlp.tracesURL
            configuration.traces.batchSpanProcessor.scheduleDelay = .seconds(1)
            let backend = try OTel.makeTracingBackend(configuration: configuration)
            InstrumentationSystem.bootstrap(backend.factory)
            logger.info("exporting spans over OTLP/HTTP", metadata: ["endpoint": "\(otlp.tracesURL)"])
            return [backend.service]
        }
        #endif
        InstrumentationSystem.bootstrap(LoggingTracer(service: service, logger: logger))
        return []
    }
}
