import Bus
import TickwireStack
import Foundation
import Logging
import Metrics
import Prometheus
import ServiceLifecycle
import Synchronization
import ZeroMQ
import BusContract

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
    /// How its sockets are secured.
    public let security: SecuritySettings
    /// The context's ZAP handler, running while the service has keys.
    public let zapHandler: ZAPHandler?
    /// Where ``run(_:)`` serves `/metrics` over HTTP (`--metrics`); nil: only the `metrics` method answers them.
    public let metrics: MetricsSettings?
    /// The monitors of the CURVE server sockets made by ``publisher(binding:)`` and ``rpcServer(binding:methods:)``;
    /// ``run(_:)`` runs them.
    private let monitors = HandshakeMonitors()
    /// What brings the metrics up to date before they are read (``beforeScrape(_:)``).
    private let scrapeHooks = ScrapeHooks()
    /// What the tracer needs running beside the services (swift-otel's exporter with `--otlp-endpoint`).
    private var tracingServices: [any Service] = []
    /// The service's loop once made (``loop``), shared by the runtime's copies.
    private let serviceLoop = LazyLoop()

    /// Bootstraps logging (to standard error, at the options' level and in their format, each line with the trace
    /// and span ids of the span it is logged in), Prometheus metrics and the tracer (``LoggingTracer``, or
    /// swift-otel's with `--otlp-endpoint` in a build with the `OTLP` trait), and loads the keys the options name.
    /// Call once per process, from `main`.
    public static func bootstrap(service: String, options: CommonOptions) throws -> Runtime {
        let logLevel = try options.level
        let logFormat = try options.format()
        let otlp = try options.otlpSettings()
        let security = try options.security
        let metrics = try options.metricsSettings(service: service)
        LoggingSystem.bootstrap({ label, provider in
            logFormat.handler(label: label, service: service, level: logLevel, metadataProvider: provider)
        }, metadataProvider: ProcessTracing.metadataProvider(otlp: otlp))
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        // Up to five minutes: a quote's age when priced (tickwire_converter_quote_to_price_seconds) can be a feed's period.
        factory.defaultDurationHistogramBuckets += [.seconds(30), .seconds(60), .seconds(120), .seconds(300)]
        MetricsSystem.bootstrap(factory)
        let logger = Logger(label: "tickwire.\(service)")
        var runtime = try Runtime(service: service, logger: logger, registry: registry, security: security, metrics: metrics)
        runtime.tracingServices = try ProcessTracing.bootstrap(service: service, logger: logger, otlp: otlp)
        return runtime
    }

    /// A runtime that bootstraps nothing global: for tests that run services in-process. With keys, it starts its
    /// context's ZAP handler; with `metrics`, ``run(_:)`` serves them there.
    public init(
        service: String, logger: Logger, registry: PrometheusCollectorRegistry = PrometheusCollectorRegistry(),
        security: SecuritySettings = SecuritySettings(), metrics: MetricsSettings? = nil
    ) throws {
        self.service = service
        self.logger = logger
        self.registry = registry
        self.context = try ZMQContext()
        self.started = Date()
        self.security = security
        self.metrics = metrics
        let process = ProcessMetrics(registry: registry, started: started)
        scrapeHooks.add { process.update() }
        if let keys = security.keys {
            _ = try keys.certificate(of: service)
            zapHandler = try PeerAuthenticator(keys: keys, service: service, logger: logger).start(in: context)
        } else {
            zapHandler = nil
        }
    }

    /// How the sockets this service binds are secured; throws ``ExposureError`` for a non-loopback endpoint
    /// without keys (unless `--insecure`). With keys, the socket's refused handshakes go to a fresh monitor endpoint.
    public func serverSecurity(binding endpoints: [String]) throws -> SocketSecurity {
        try security.checkExposure(binding: endpoints)
        guard let keys = security.keys else { return SocketSecurity(maxMessageBytes: security.maxMessageBytes) }
        return SocketSecurity(curve: .server(try keys.certificate(of: service)), maxMessageBytes: security.maxMessageBytes,
                              handshakeMonitor: HandshakeMonitor.endpoint(for: service))
    }

    /// The service's publisher, bound to `endpoints` with its security.
    public func publisher(binding endpoints: [String]) throws -> Publisher {
        let security = try serverSecurity(binding: endpoints)
        let publisher = try Publisher(context: context, service: service, endpoints: endpoints, security: security, logger: logger)
        try monitor(security)
        return publisher
    }

    /// The service's one loop thread (`loop-<service>`), made on first use: the executor and the socket reader of
    /// what ``rpcServer(binding:methods:onLoop:)`` and ``connection(timeout:retries:onLoop:)`` make with `onLoop`, and the
    /// preferred executor of the service's own tasks that take part (`withTaskExecutorPreference(runtime.loop)`). A
    /// service that never asks for it has no such thread.
    public var loop: ServiceLoop {
        get throws { try serviceLoop.get(named: service) }
    }

    /// The service's JSON-RPC server of `methods`, bound to `endpoints` with its security; with keys, only writers
    /// may call the methods that change state. With `onLoop`, on the service's ``loop`` (``RPCServer``'s `loop`).
    public func rpcServer(binding endpoints: [String], methods: RPCMethods, onLoop: Bool = false) throws -> RPCServer {
        let security = try serverSecurity(binding: endpoints)
        let server = try RPCServer(context: context, service: service, endpoints: endpoints, methods: methods,
                                   security: security, writeAccess: self.security.keys == nil ? .everyone : .writersOnly,
                                   logger: logger, loop: onLoop ? try loop : nil)
        try monitor(security)
        return server
    }

    /// How a socket this service connects to the service `server` is secured: with keys, a CURVE client with the
    /// service's own certificate expecting `server`'s public key; else plain.
    public func clientSecurity(connectingTo server: String) throws -> SocketSecurity {
        guard let keys = security.keys else { return SocketSecurity(maxMessageBytes: security.maxMessageBytes) }
        return try keys.clientSecurity(service, connectingTo: server, maxMessageBytes: security.maxMessageBytes)
    }

    /// Reads the handshake monitor `security` names, if any, while ``run(_:)`` runs: for a socket secured with
    /// ``serverSecurity(binding:)`` other than the ones this runtime makes itself.
    public func monitor(_ security: SocketSecurity) throws {
        guard let endpoint = security.handshakeMonitor else { return }
        monitors.add(try HandshakeMonitor(context: context, endpoint: endpoint, service: service, logger: logger))
    }

    /// Runs `services` (and the `/metrics` listener `--metrics` asked for, and the span exporter `--otlp-endpoint`
    /// asked for) until SIGTERM or SIGINT, then shuts them down in reverse order (the exporter last, so it sends the
    /// services' last spans), and then the service's ``loop`` if it was made.
    public func run(_ services: [any Service]) async throws {
        let group = ServiceGroup(configuration: .init(
            services: (tracingServices + metricsServers + services + monitors.all).map { .init(service: $0) },
            gracefulShutdownSignals: [.sigterm, .sigint],
            logger: logger))
        logger.info("started", metadata: ["service": "\(service)", "libzmq": "\(ZMQContext.libraryVersion)"])
        do {
            try await group.run()
        } catch {
            await serviceLoop.shutdown()
            throw error
        }
        await serviceLoop.shutdown()
        logger.info("stopped", metadata: ["service": "\(service)"])
    }

    /// The methods every service answers: `health` and `metrics`, plus `snapshot`
    /// when it publishes.
    public func standardMethods(publisher: Publisher?, health: @escaping @Sendable () async -> Health) -> RPCMethods {
        var methods = RPCMethods()
        methods.register(StandardAPI.health) { await health() }
        methods.register(StandardAPI.metrics) { String(decoding: await metricsText(), as: UTF8.self) }
        if let publisher {
            methods.register(StandardAPI.snapshot) { publisher.snapshot(prefix: $0.prefix) }
        }
        return methods
    }

    /// How this process's live clients reach other services: its context and logger, the stack's
    /// default timeout (2 s) and one retry; with keys, CURVE with the service's own certificate (and the proxies'
    /// keys `--stream-key` names for the streams that come through one). With `onLoop`, the RPC clients' sockets are
    /// on the service's ``loop`` (``LiveConnection/loop``); streams read on threads of their own.
    public func connection(timeout: Duration = .seconds(2), retries: Int = 1, onLoop: Bool = false) throws -> LiveConnection {
        var connection = try LiveConnection(
            context: context, timeout: timeout, retries: retries, logger: logger,
            keys: security.keys.map { ClientKeys(directory: $0, name: service, streamServers: security.streamServers) },
            maxMessageBytes: security.maxMessageBytes)
        if onLoop { connection.loop = try loop }
        return connection
    }
}

extension Runtime {
    /// Runs `hook` before each reading of the metrics (the `metrics` method, `/metrics`): for gauges whose value is
    /// cheapest to compute when asked for (how long ago something happened, how much waits).
    public func beforeScrape(_ hook: @escaping @Sendable () async -> Void) {
        scrapeHooks.add(hook)
    }

    /// The metrics in Prometheus' text format, brought up to date by the ``beforeScrape(_:)`` hooks (the process's
    /// memory, CPU and files among them).
    public func metricsText() async -> [UInt8] {
        for hook in scrapeHooks.all { await hook() }
        return registry.emitToBuffer()
    }

    /// The `/metrics` endpoint of this runtime with `token`.
    public func metricsEndpoint(token: String?) -> MetricsEndpoint {
        MetricsEndpoint(service: service, token: token, registry: registry) { await metricsText() }
    }

    /// The listener `--metrics` asked for, if any.
    private var metricsServers: [any Service] {
        guard let metrics else { return [] }
        return [MetricsServer(settings: metrics, endpoint: metricsEndpoint(token: metrics.token), logger: logger)]
    }
}

/// A runtime's ``Runtime/loop``, made on first use, shared by the runtime's copies.
private final class LazyLoop: Sendable {
    private let made = Mutex<ServiceLoop?>(nil)

    /// The loop, made named `name` the first time.
    func get(named name: String) throws -> ServiceLoop {
        try made.withLock { made in
            if let made { return made }
            let loop = try ServiceLoop(name: name)
            made = loop
            return loop
        }
    }

    /// Shuts the loop down, if it was made (the sockets still on it close).
    func shutdown() async {
        await made.withLock { $0 }?.shutdown()
    }
}

/// The hooks run before the metrics are read, shared by a runtime's copies.
private final class ScrapeHooks: Sendable {
    private let hooks = Mutex<[@Sendable () async -> Void]>([])

    func add(_ hook: @escaping @Sendable () async -> Void) { hooks.withLock { $0.append(hook) } }

    var all: [@Sendable () async -> Void] { hooks.withLock { $0 } }
}

/// The handshake monitors a runtime made, shared by its copies.
private final class HandshakeMonitors: Sendable {
    private let monitors = Mutex<[HandshakeMonitor]>([])

    func add(_ monitor: HandshakeMonitor) { monitors.withLock { $0.append(monitor) } }

    var all: [HandshakeMonitor] { monitors.withLock { $0 } }
}
