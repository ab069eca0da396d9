import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// Serves ``RPCMethods`` to REQ (or DEALER) clients.
///
/// The socket is a ROUTER, so one slow request never holds up the others: each is
/// answered in its own child task, and the reply goes back to whoever asked.
public final class RPCServer: Service, Sendable {
    /// The service name, for logs and metrics.
    public let service: String
    /// Where the server listens.
    public let endpoints: [String]

    private let methods: RPCMethods
    private let socket: OwnedSocket
    private let logger: Logger
    private let metrics: Mutex<[String: (duration: Metrics.Timer, errors: Counter)]> = Mutex([:])

    /// Binds a ROUTER socket to each of `endpoints`; requests are served once ``run()`` starts.
    public init(context: ZMQContext, service: String, endpoints: [String], methods: RPCMethods, logger: Logger) throws {
        self.service = service
        self.endpoints = endpoints
        self.methods = methods
        self.logger = logger
        socket = try OwnedSocket(context: context, type: .router, name: "\(service)-rpc") { socket in
            for endpoint in endpoints { try socket.bind(endpoint) }
        }
    }

    /// The methods it answers, sorted.
    public var methodNames: [String] { methods.names }

    /// The endpoint the socket bound last: with `tcp://127.0.0.1:*`, the port it picked.
    public func boundEndpoint() throws -> String {
        try socket.perform { try $0.lastEndpoint() }
    }

    /// Serves requests until graceful shutdown, then closes the socket.
    public func run() async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                for await frames in self.socket.incoming {
                    group.addTask { await self.answer(frames) }
                }
            }
        }
        await socket.close()
        logger.info("rpc server closed", metadata: ["service": "\(service)"])
    }

    /// Answers one ROUTER message: `[identity..., "", request]` -> `[identity..., "", response]`.
    private func answer(_ frames: [Data]) async {
        guard let delimiter = frames.firstIndex(where: \.isEmpty) else {
            logger.warning("dropped a request without an envelope delimiter", metadata: ["frames": "\(frames.count)"])
            Counter(label: "tickwire_rpc_malformed_total", dimensions: [("service", service)]).increment()
            return
        }
        let route = frames[...delimiter]
        let body = frames[(delimiter + 1)...]
        let start = ContinuousClock.now
        let reply: RPCMethods.Reply
        if body.count == 1, let request = body.first {
            reply = await methods.reply(to: request)
        } else {
            reply = RPCMethods.failure(.null, .invalidRequest("expected one JSON frame, got \(body.count)"))
        }
        let (duration, errors) = metrics(for: reply.method)
        duration.record(since: start)
        if reply.failed {
            errors.increment()
            // Every refused request is logged (a bad client's own mistakes at notice, so they cannot flood the warnings).
            logger.notice("rpc error", metadata: ["method": "\(reply.method)", "response": "\(String(decoding: reply.body.prefix(2_000), as: UTF8.self))"])
        }
        socket.post(Array(route) + [reply.body])
    }

    /// The duration timer and error counter of `method`, made once.
    private func metrics(for method: String) -> (duration: Metrics.Timer, errors: Counter) {
        metrics.withLock { metrics in
            if let known = metrics[method] { return known }
            let dimensions = [("service", service), ("method", method)]
            let made = (Metrics.Timer(label: "tickwire_rpc_duration_seconds", dimensions: dimensions),
                        Counter(label: "tickwire_rpc_errors_total", dimensions: dimensions))
            metrics[method] = made
            return made
        }
    }
}

extension Metrics.Timer {
    /// Records the time since `start`.
    func record(since start: ContinuousClock.Instant) {
        let elapsed = ContinuousClock.now - start
        recordNanoseconds(elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000)
    }
}
