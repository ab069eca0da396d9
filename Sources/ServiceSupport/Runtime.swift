import Bus
import TickwireClients
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import ZeroMQ

/// What every service process sets up once: logging, metrics, the ZeroMQ context.
public struct Runtime: Sendable {
    /// The service's name (`rates-fetcher`, ...).
    public let service: String
    /// The root logger.
    public let logger: Logger
    /// Where metrics are collected; `metrics` RPC and `/metrics` print it.
    public let registry: PrometheusCollectorRegistry
    /// The process's ZeroMQ context.
    public let context: ZMQContext
    /// When the process started.
    public let started: Date

    /// Bootstraps logging (to standard error, at `logLevel`) and Prometheus metrics.
    /// Call once per process, from `main`.
    public static func bootstrap(service: String, logLevel: Logger.Level) throws -> Runtime {
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = logLevel
            return handler
        }
        let registry = PrometheusCollectorRegistry()
        MetricsSystem.bootstrap(PrometheusMetricsFactory(registry: registry))
        return try Runtime(service: service, logger: Logger(label: "tickwire.\(service)"), registry: registry)
    }

    /// A runtime that bootstraps nothing global: for tests that run services in-process.
    public init(service: String, logger: Logger, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry()) throws {
        self.service = service
        self.logger = logger
        self.registry = registry
        self.context = try ZMQContext()
        self.started = Date()
    }

    /// Runs `services` until SIGTERM or SIGINT, then shuts them down in reverse order.
    public func run(_ services: [any Service]) async throws {
        let group = ServiceGroup(configuration: .init(
            services: services.map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        logger.info("started", metadata: ["service": "\(service)", "libzmq": "\(ZMQContext.libraryVersion)"])
        try await group.run()
        logger.info("stopped", metadata: ["service": "\(service)"])
    }

    /// The methods every service answers: `health` and `metrics`, plus `snapshot`
    /// when it publishes.
    public func standardMethods(publisher: Publisher?, health: @escaping @Sendable () async -> Health) -> RPCMethods {
        var methods = RPCMethods()
        methods.register(StandardAPI.health) { await health() }
        methods.register(StandardAPI.metrics) { [registry] in String(decoding: registry.emitToBuffer(), as: UTF8.self) }
        if let publisher {
            methods.register(StandardAPI.snapshot) { publisher.snapshot(prefix: $0.prefix) }
        }
        return methods
    }

    /// How this process's live clients reach other services: its context and logger, the stack's
    /// default timeout (2 s) and one retry.
    public func connection(timeout: Duration = .seconds(2), retries: Int = 1) throws -> LiveConnection {
        try LiveConnection(context: context, timeout: timeout, retries: retries, logger: logger)
    }
}
