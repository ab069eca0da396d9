import Foundation
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import Prometheus
import ServiceLifecycle
import Synchronization

/// What `/metrics` answers a request: the metrics in Prometheus' text format, 401 without the token it needs,
/// 404 elsewhere, 405 for a method other than GET or HEAD. No socket: ``MetricsServer`` serves it.
public struct MetricsEndpoint: Sendable {
    /// One answer.
    public struct Response: Sendable, Equatable {
        /// The HTTP status code.
        public var status: Int
        /// The content type.
        public var contentType: String
        /// The body.
        public var body: [UInt8]
        /// Extra header fields (`WWW-Authenticate`, `Allow`).
        public var headers: [String: String] = [:]
    }

    /// Prometheus' text exposition format.
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"

    private let token: String?
    private let render: @Sendable () async -> [UInt8]
    private let refused: Counter

    /// Answers with what `render` makes; with `token`, only requests that carry it. Refusals count in `registry`'s
    /// `tickwire_metrics_refused_total{service}`.
    public init(service: String, token: String?, registry: PrometheusCollectorRegistry, render: @escaping @Sendable () async -> [UInt8]) {
        self.token = token
        self.render = render
        refused = registry.makeCounter(
            descriptor: .named("tickwire_metrics_refused_total", help: "Requests for /metrics refused for a missing or wrong bearer token."),
            labels: [("service", service)])
    }

    /// The answer to `method` on `target` (path and query) with the `Authorization` header `authorization`.
    public func respond(method: String, target: String, authorization: String?) async -> Response {
        let path = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? target
        guard path == "/metrics" else {
            return text(404, "Not found: this listener serves only /metrics (Prometheus text format).\n")
        }
        guard method == "GET" || method == "HEAD" else {
            var response = text(405, "/metrics answers GET only.\n")
            response.headers["Allow"] = "GET, HEAD"
            return response
        }
        if let token, !Self.carries(authorization, token: token) {
            refused.increment()
            var response = text(401, "/metrics needs its token: send the header Authorization: Bearer <token> "
                + "(the service's --metrics-token, or \(MetricsSettings.tokenEnvironmentVariable)).\n")
            response.headers["WWW-Authenticate"] = "Bearer realm=\"tickwire-metrics\""
            return response
        }
        return Response(status: 200, contentType: Self.contentType, body: await render())
    }

    private func text(_ status: Int, _ message: String) -> Response {
        Response(status: status, contentType: "text/plain; charset=utf-8", body: Array(message.utf8))
    }

    /// Whether `authorization` is `Bearer <token>` (the scheme in any case), compared in a time that depends on the
    /// lengths alone.
    static func carries(_ authorization: String?, token: String) -> Bool {
        guard let sent = bearerToken(in: authorization) else { return false }
        return constantTimeEqual(sent, token)
    }
}

/// The HTTP listener of `--metrics`: answers ``MetricsEndpoint`` on one address until graceful shutdown.
///
/// Written on SwiftNIO's HTTP/1 codec rather than Hummingbird (which the presenter's dashboard uses): every
/// service links this, and NIO is all it needs (one route, one header), where Hummingbird would add its router,
/// HTTP types, tracing and async-algorithms to the converter, the portfolio, the proxy and every plugin. Each
/// connection gets one answer and is closed; it has `connectionTimeout` to send its request, and at most
/// `maxConnections` are served at once (more are closed at once).
public struct MetricsServer: Service {
    private let settings: MetricsSettings
    private let endpoint: MetricsEndpoint
    private let logger: Logger
    private let bound: @Sendable (Int) -> Void
    private let connectionTimeout: Duration
    private let maxConnections: Int

    /// A listener on `settings`' address answering `endpoint`; `bound` learns the port it listens on once it does.
    public init(
        settings: MetricsSettings, endpoint: MetricsEndpoint, logger: Logger,
        connectionTimeout: Duration = .seconds(10), maxConnections: Int = 16, bound: @escaping @Sendable (Int) -> Void = { _ in }
    ) {
        self.settings = settings
        self.endpoint = endpoint
        self.logger = logger
        self.connectionTimeout = connectionTimeout
        self.maxConnections = maxConnections
        self.bound = bound
    }

    /// Listens on `settings`' address and answers each connection until graceful shutdown or cancellation; throws
    /// ``MetricsListenError`` when it cannot listen there.
    public func run() async throws {
        let listener: NIOAsyncChannel<NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>, Never>
        do {
            listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .serverChannelOption(.backlog, value: 32)
                .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
                .bind(host: settings.host, port: settings.port) { channel in
                    channel.eventLoop.makeCompletedFuture {
                        try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                        return try NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>(wrappingChannelSynchronously: channel)
                    }
                }
        } catch {
            throw MetricsListenError(host: settings.host, port: settings.port, reason: "\(error)")
        }
        let port = listener.channel.localAddress?.port ?? settings.port
        logger.info("metrics listening", metadata: [
            "url": "http://\(settings.host.contains(":") ? "[\(settings.host)]" : settings.host):\(port)/metrics",
            "token": "\(settings.token == nil ? "none" : "required")"])
        bound(port)
        let open = OpenConnections()
        try await cancelWhenGracefulShutdown {
            try await listener.executeThenClose { connections in
                await withDiscardingTaskGroup { group in
                    do {
                        for try await connection in connections {
                            guard open.count.add(1, ordering: .relaxed).newValue <= maxConnections else {
                                open.count.subtract(1, ordering: .relaxed)
                                connection.channel.close(promise: nil)
                                continue
                            }
                            group.addTask {
                                await serve(connection)
                                open.count.subtract(1, ordering: .relaxed)
                            }
                        }
                    } catch {
                        logger.debug("metrics listener ended", metadata: ["error": "\(error)"])
                    }
                }
            }
        }
    }

    /// Answers one request on `connection`, then closes it; gives up after `connectionTimeout`.
    private func serve(_ connection: NIOAsyncChannel<HTTPServerRequestPart, HTTPServerResponsePart>) async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                do {
                    try await connection.executeThenClose { inbound, outbound in
                        var head: HTTPRequestHead?
                        for try await part in inbound {
                            switch part {
                            case .head(let request): head = request
                            case .body: continue
                            case .end:
                                guard let request = head else { return }
                                try await answer(request, on: outbound)
                                return
                            }
                        }
                    }
                } catch {
                    logger.debug("metrics connection failed", metadata: ["error": "\(error)"])
                }
            }
            group.addTask { try? await Task.sleep(for: connectionTimeout) }
            await group.next()
            group.cancelAll()
        }
        connection.channel.close(promise: nil)
    }

    private func answer(_ request: HTTPRequestHead, on outbound: NIOAsyncChannelOutboundWriter<HTTPServerResponsePart>) async throws {
        let response = await endpoint.respond(
            method: request.method.rawValue, target: request.uri, authorization: request.headers.first(name: "authorization"))
        var headers = HTTPHeaders([
            ("Content-Type", response.contentType), ("Content-Length", "\(response.body.count)"), ("Connection", "close"),
        ])
        for (name, value) in response.headers.sorted(by: { $0.key < $1.key }) { headers.add(name: name, value: value) }
        try await outbound.write(.head(HTTPResponseHead(
            version: request.version, status: HTTPResponseStatus(statusCode: response.status), headers: headers)))
        if request.method != .HEAD { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: response.body)))) }
        try await outbound.write(.end(nil))
    }
}

/// How many connections a ``MetricsServer`` serves now.
private final class OpenConnections: Sendable {
    let count = Atomic<Int>(0)
}

/// The metrics listener could not listen where it was asked to.
public struct MetricsListenError: Error, CustomStringConvertible {
    /// The address asked for.
    public var host: String
    /// The port asked for.
    public var port: Int
    /// What the system said.
    public var reason: String

    public var description: String {
        "cannot serve /metrics on \(host):\(port): \(reason). Pick a free port with --metrics HOST:PORT (or the service's "
            + "TICKWIRE_<SERVICE>_METRICS), or leave both unset to serve no metrics over HTTP."
    }
}
