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
    private let writeAccess: WriteAccess
    private let socket: OwnedSocket
    /// The loop that reads the socket and answers the requests; nil: a thread of the socket's own and the pool.
    private let loop: ServiceLoop?
    private let logger: Logger
    private let metrics: Mutex<[String: (duration: Metrics.Timer, errors: Counter)]> = Mutex([:])

    /// Who may call the methods that change state.
    public enum WriteAccess: Sendable {
        /// Every client (a stack without keys).
        case everyone
        /// Only clients whose connection's ZAP User-Id is a writer's (``KeyDirectory/isWriter(_:)``); others get
        /// -32030 (forbidden).
        case writersOnly
    }

    /// Binds a ROUTER socket to each of `endpoints` with `security`; requests are served once ``run()`` starts.
    ///
    /// With `loop` (the service's loop), its thread reads the socket, and ``run()``'s receiving task and each request's
    /// task prefer it as their executor: a request is read, parsed, handled (a default actor the handler calls runs there
    /// too) and answered on that one thread, with no thread wake-up between. Nil: a thread of the socket's own, and
    /// the requests on the pool.
    public init(
        context: ZMQContext, service: String, endpoints: [String], methods: RPCMethods,
        security: SocketSecurity = SocketSecurity(), writeAccess: WriteAccess = .everyone, logger: Logger, loop: ServiceLoop? = nil
    ) throws {
        self.service = service
        self.loop = loop
        self.endpoints = endpoints
        self.methods = methods
        self.writeAccess = writeAccess
        self.logger = logger
        socket = try OwnedSocket(
            context: context, type: .router, name: "\(service)-rpc", peerProperty: writeAccess == .writersOnly ? "User-Id" : nil, loop: loop
        ) { socket in
            try security.apply(to: socket)
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
            // Nil (no loop) keeps the task's own preference; each request's child task inherits the loop.
            await withTaskExecutorPreference(self.loop) {
                await withDiscardingTaskGroup { group in
                    for await frames in self.socket.incoming {
                        group.addTask { await self.answer(frames) }
                    }
                }
            }
        }
        await socket.close()
        logger.info("rpc server closed", metadata: ["service": "\(service)"])
    }

    /// Answers one ROUTER message: `[identity..., "", request]` -> `[identity..., "", response]`; when write
    /// rights are checked, the connection's User-Id comes first (`[user-id, identity..., "", request]`).
    private func answer(_ message: [Data]) async {
        var frames = message[...]
        var caller = RPCCallerIdentity.trusted
        if writeAccess == .writersOnly, let userID = frames.popFirst() {
            let id = String(decoding: userID, as: UTF8.self)
            caller = RPCCallerIdentity(userID: id, mayChangeState: KeyDirectory.isWriter(id))
        }
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
            reply = await methods.reply(to: request, from: caller)
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
