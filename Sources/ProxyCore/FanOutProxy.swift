import Bus
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// Where a fan-out proxy takes its streams from and where it offers them.
public struct ProxyConfiguration: Sendable, Equatable {
    /// PUB endpoints of publishers the XSUB socket connects to.
    public var upstreams: [String]
    /// Endpoints the XSUB socket binds, for publishers that connect to the proxy.
    public var upstreamBinds: [String]
    /// Endpoints the XPUB socket binds for subscribers.
    public var binds: [String]
    /// Where the proxy's JSON-RPC server (`health`, `metrics`) binds.
    public var rep: String
    /// How long the proxy may hear nothing from upstream (heartbeats come every second) before its
    /// health says so.
    public var upstreamTimeout: Duration
    /// The service the upstreams are, whose public key (`public/<name>.key` of the keys directory) the XSUB
    /// socket expects of them when the proxy has keys.
    public var upstreamService: String

    /// The upstream service when none is named.
    public static let defaultUpstreamService = "converter"

    /// A configuration; it needs at least one upstream or upstream bind.
    public init(
        upstreams: [String], upstreamBinds: [String] = [], binds: [String], rep: String, upstreamTimeout: Duration = .seconds(3),
        upstreamService: String = ProxyConfiguration.defaultUpstreamService
    ) {
        self.upstreams = upstreams
        self.upstreamBinds = upstreamBinds
        self.binds = binds
        self.rep = rep
        self.upstreamTimeout = upstreamTimeout
        self.upstreamService = upstreamService
    }
}

/// How the proxy's sockets are secured: the XSUB socket connecting to upstreams (a CURVE client of them), the
/// XSUB socket's binds for publishers and the XPUB socket's binds for subscribers (CURVE servers).
public struct ProxySecurity: Sendable {
    /// For the connections to ``ProxyConfiguration/upstreams``.
    public var upstreams: SocketSecurity
    /// For ``ProxyConfiguration/upstreamBinds``.
    public var upstreamBinds: SocketSecurity
    /// For ``ProxyConfiguration/binds``.
    public var binds: SocketSecurity

    /// Security for each side; plain by default.
    public init(upstreams: SocketSecurity = SocketSecurity(), upstreamBinds: SocketSecurity = SocketSecurity(), binds: SocketSecurity = SocketSecurity()) {
        self.upstreams = upstreams
        self.upstreamBinds = upstreamBinds
        self.binds = binds
    }
}

/// libzmq's XSUB/XPUB proxy as a service: one connection to each publisher, however many subscribers
/// connect to it.
///
/// Messages pass through untouched, frames, sequence numbers and heartbeats alike, and so do the
/// subscribers' subscriptions, the other way; snapshots are not its business (a subscriber fetches them
/// from the publisher's own JSON-RPC endpoint). The XSUB socket subscribes to `heartbeat.` itself, so the
/// proxy hears its publishers even with no subscriber and its health can say whether they are there.
///
/// Every second it reads libzmq's counts of what passed (`tickwire_proxy_forwarded_total`,
/// `tickwire_proxy_forwarded_bytes_total`, `tickwire_proxy_subscriptions_total`); graceful shutdown stops the
/// proxy through its control socket.
public final class FanOutProxy: Service, Sendable {
    /// The service's name, in logs and metrics.
    public let service: String
    /// Where it is configured to take from and offer to.
    public let configuration: ProxyConfiguration

    private let proxy: SteerableProxy
    private let logger: Logger
    private let heard = Mutex<Heard>(Heard())
    private let forwarded: Counter
    private let forwardedBytes: Counter
    private let subscriptions: Counter

    /// The last statistics read, and when the count of upstream messages last grew.
    private struct Heard {
        var statistics: ProxyStatistics?
        var lastGrowth: ContinuousClock.Instant?
    }

    /// Binds and connects the proxy's sockets with `security` and starts it on its own thread.
    public init(
        context: ZMQContext, service: String = "tickwire-proxy", configuration: ProxyConfiguration,
        security: ProxySecurity = ProxySecurity(), logger: Logger
    ) throws {
        guard !(configuration.upstreams.isEmpty && configuration.upstreamBinds.isEmpty) else {
            throw ProxyConfigurationError.noUpstream
        }
        guard !configuration.binds.isEmpty else { throw ProxyConfigurationError.noBind }
        self.service = service
        self.configuration = configuration
        self.logger = logger
        forwarded = Counter(label: "tickwire_proxy_forwarded_total", dimensions: [("service", service)])
        forwardedBytes = Counter(label: "tickwire_proxy_forwarded_bytes_total", dimensions: [("service", service)])
        subscriptions = Counter(label: "tickwire_proxy_subscriptions_total", dimensions: [("service", service)])
        proxy = try SteerableProxy(
            context: context, name: service,
            frontend: .xsub, configureFrontend: { socket in
                try socket.set(.receiveHighWaterMark, 100_000)
                // An XSUB subscribes by sending `\u{1}prefix`; libzmq keeps it for every publisher that connects later.
                try socket.send([Data([1]) + Data("heartbeat.".utf8)])
                // libzmq takes a socket's options when it binds or connects: the binds are servers, the
                // connections clients.
                if !configuration.upstreamBinds.isEmpty {
                    try security.upstreamBinds.apply(to: socket)
                    for endpoint in configuration.upstreamBinds { try socket.bind(endpoint) }
                }
                if !configuration.upstreams.isEmpty {
                    try security.upstreams.apply(to: socket)
                    for endpoint in configuration.upstreams { try socket.connect(endpoint) }
                }
            },
            backend: .xpub, configureBackend: { socket in
                try socket.set(.sendHighWaterMark, 100_000)
                try security.binds.apply(to: socket)
                for endpoint in configuration.binds { try socket.bind(endpoint) }
            })
        logger.info("proxy started", metadata: [
            "upstreams": "\(configuration.upstreams)", "upstreamBinds": "\(configuration.upstreamBinds)", "binds": "\(configuration.binds)"])
    }

    /// Reads the proxy's counts every second until graceful shutdown, then stops the proxy.
    ///
    /// - Throws: the error that stopped the proxy before that (its context shut down), so the process
    ///   exits with a failure and its supervisor restarts it.
    public func run() async throws {
        await cancelWhenGracefulShutdown {
            while !Task.isCancelled, self.proxy.result == nil {
                await self.readStatistics()
                try? await Task.sleep(for: .seconds(1))
            }
        }
        let endedByItself = proxy.result
        await proxy.terminate()
        if case .failure(let error)? = endedByItself {
            logger.error("proxy failed", metadata: ["error": "\(error)"])
            throw error
        }
        logger.info("proxy stopped")
    }

    /// What has passed so far: messages from upstream (`frontendReceived`), subscriptions from
    /// subscribers (`backendReceived`), and their bytes; nil before the first reading.
    public var statistics: ProxyStatistics? { heard.withLock { $0.statistics } }

    /// `ok` while messages come from upstream, else a sentence saying for how long none came.
    public func upstreamState(at now: ContinuousClock.Instant = .now) -> String {
        if proxy.result != nil { return "the proxy has stopped" }
        let last = heard.withLock { $0.lastGrowth }
        guard let last else { return "no message from upstream yet" }
        let silence = now - last
        return silence <= configuration.upstreamTimeout ? "ok" : "no message from upstream for \(silence.components.seconds) s"
    }

    /// Takes in one reading of the proxy's counts, advancing the metrics by what passed since the last.
    private func readStatistics() async {
        guard let current = try? await proxy.statistics() else { return }
        let now = ContinuousClock.now
        let previous = heard.withLock { heard -> ProxyStatistics? in
            defer { heard.statistics = current }
            if current.frontendReceived > (heard.statistics?.frontendReceived ?? 0) { heard.lastGrowth = now }
            return heard.statistics
        }
        forwarded.increment(by: Int(current.frontendReceived - (previous?.frontendReceived ?? 0)))
        forwardedBytes.increment(by: Int(current.frontendReceivedBytes - (previous?.frontendReceivedBytes ?? 0)))
        subscriptions.increment(by: Int(current.backendReceived - (previous?.backendReceived ?? 0)))
    }
}

/// A proxy configuration that cannot work.
public enum ProxyConfigurationError: Error, Equatable, Sendable, CustomStringConvertible {
    case noUpstream
    case noBind

    public var description: String {
        switch self {
        case .noUpstream: "the proxy needs an upstream to connect to (--upstream, env TICKWIRE_PROXY_UPSTREAM) or to bind for publishers "
            + "(--upstream-bind, env TICKWIRE_PROXY_UPSTREAM_BIND)"
        case .noBind: "the proxy needs an endpoint to bind for subscribers (--bind, env TICKWIRE_PROXY_BIND)"
        }
    }
}
