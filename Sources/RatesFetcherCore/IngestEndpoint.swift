import Bus
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// The feed hub's ingest endpoint: a SUB socket, subscribed to everything, bound where plugins' PUB sockets connect.
/// A thread of its own receives (``OwnedSocket``: it sleeps in `poll(2)`, never on a cooperative thread, never
/// busy-polls) and hands each batch it read to the ``IngestHub`` right there, with no hop to another thread: the
/// hub checks, counts and republishes the whole batch under one lock. ``run()`` lets the hub find the plugins gone
/// quiet every ``expiryInterval``. While the thread works on a batch it does not read: libzmq's queues hold what
/// comes (100,000 messages), then each plugin's connection pushes back on its PUB socket, which keeps what fits
/// under its send high-water mark. Nothing is dropped here.
///
/// With keys, the socket is a CURVE server in a ZeroMQ context of its own, whose ZAP handler lets in only keys of
/// the keys directory's `writers/` (User-Id `writer:<name>`); every message comes with its connection's User-Id,
/// which owns the feed names it fills.
public final class IngestEndpoint: Service, Sendable {
    /// The endpoint it binds.
    public let endpoint: String
    /// How often the hub looks for silent plugins.
    public let expiryInterval: Duration
    private let socket: OwnedSocket
    private let hub: IngestHub
    private let zap: ZAPHandler?
    private let monitor: HandshakeMonitor?
    /// The context of a keyed socket (its own ZAP handler's); kept until the socket is closed.
    private let ownContext: ZMQContext?

    /// Binds `endpoint` for `hub`: in `context` without keys; with `keys`, as a CURVE server with `service`'s
    /// certificate in a context of its own that admits `writers/` keys only. A peer sending more than
    /// `maxMessageBytes` is dropped.
    public init(
        binding endpoint: String, hub: IngestHub, context: ZMQContext, keys: KeyDirectory?, service: String,
        maxMessageBytes: Int64 = SocketSecurity.defaultMaxMessageBytes, expiryInterval: Duration = .milliseconds(250), logger: Logger
    ) throws {
        self.endpoint = endpoint
        self.expiryInterval = expiryInterval
        self.hub = hub
        let security: SocketSecurity
        let socketContext: ZMQContext
        if let keys {
            socketContext = try ZMQContext()
            let gate = WriterGate(authenticator: PeerAuthenticator(keys: keys, service: service, logger: logger), service: service, logger: logger)
            zap = try ZAPHandler(context: socketContext) { gate.decide($0) }
            security = SocketSecurity(
                curve: .server(try keys.certificate(of: service)), maxMessageBytes: maxMessageBytes,
                handshakeMonitor: HandshakeMonitor.endpoint(for: "\(service)-ingest"))
            ownContext = socketContext
        } else {
            socketContext = context
            zap = nil
            security = SocketSecurity(maxMessageBytes: maxMessageBytes)
            ownContext = nil
        }
        do {
            let keyed = keys != nil
            socket = try OwnedSocket(
                context: socketContext, type: .sub, name: "\(service)-ingest", peerProperty: keyed ? "User-Id" : nil,
                handler: { batch in hub.receive(batch: batch, userIDFirst: keyed) }
            ) { socket in
                try socket.set(.receiveHighWaterMark, 100_000)
                try security.apply(to: socket)
                try socket.subscribe("")
                try socket.bind(endpoint)
            }
            monitor = try security.handshakeMonitor.map {
                try HandshakeMonitor(context: socketContext, endpoint: $0, service: service, logger: logger)
            }
        } catch {
            // Ends the ZAP handler's thread of a keyed socket's own context (its poll returns ETERM).
            ownContext?.shutdown()
            throw error
        }
    }

    /// The endpoint the socket bound last: with `tcp://127.0.0.1:*`, the port it picked.
    public func boundEndpoint() throws -> String {
        try socket.perform { try $0.lastEndpoint() }
    }

    /// Receives and expires until graceful shutdown, then closes the socket (and the ZAP handler).
    public func run() async {
        await cancelWhenGracefulShutdown {
            await withDiscardingTaskGroup { group in
                if let monitor = self.monitor { group.addTask { await monitor.run() } }
                while !Task.isCancelled {
                    self.hub.expire()
                    try? await Task.sleep(for: self.expiryInterval)
                }
                group.cancelAll()
            }
        }
        await close()
    }

    /// Closes the socket and stops the ZAP handler, without waiting for shutdown (tests and error paths).
    public func close() async {
        await socket.close()
        await zap?.stop()
    }
}

/// The ingest socket's ZAP policy: the service's (``PeerAuthenticator``), then only writers; a reader's key is
/// refused, counted in `tickwire_auth_refused_total{reason="not-writer"}` and logged once per key.
private final class WriterGate: Sendable {
    let authenticator: PeerAuthenticator
    let service: String
    let logger: Logger
    let logged = Mutex<Set<String>>([])

    init(authenticator: PeerAuthenticator, service: String, logger: Logger) {
        self.authenticator = authenticator
        self.service = service
        self.logger = logger
    }

    func decide(_ request: ZAPRequest) -> ZAPDecision {
        let decision = authenticator.decide(request)
        guard decision.accepted, !KeyDirectory.isWriter(decision.userID) else { return decision }
        Counter(label: "tickwire_auth_refused_total", dimensions: [("service", service), ("reason", "not-writer")]).increment()
        if logged.withLock({ $0.insert(decision.userID).inserted }) {
            logger.warning("refused a feed plugin at the handshake: its key is not in writers/ (logged once per key)", metadata: [
                "peer": "\(decision.userID)", "address": "\(request.address)"])
        }
        return .refuse("\(decision.userID) may not feed: the ingest endpoint takes keys in writers/ only")
    }
}
