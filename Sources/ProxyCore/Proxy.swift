import Bus
import ServiceLifecycle
import ServiceSupport
import ZeroMQ
import BusContract

/// The processes of `tickwire-proxy`: the fan-out proxy and its JSON-RPC server.
public enum Proxy {
    /// The services of one proxy process, in start order: the proxy, then the server of `health` (upstream
    /// `ok` while messages come from it) and `metrics` (what passed).
    ///
    /// Its binds follow the runtime's rules (``Runtime/serverSecurity(binding:)``: a non-loopback bind needs
    /// keys or `--insecure`; with keys, CURVE servers whose clients the ZAP handler checks); with keys, it
    /// connects to its upstreams as a CURVE client with its own certificate, expecting the public key of
    /// ``ProxyConfiguration/upstreamService``.
    public static func services(_ configuration: ProxyConfiguration, runtime: Runtime) throws -> [any Service] {
        let security = try ProxySecurity(
            upstreams: runtime.clientSecurity(connectingTo: configuration.upstreamService),
            upstreamBinds: configuration.upstreamBinds.isEmpty ? SocketSecurity() : runtime.serverSecurity(binding: configuration.upstreamBinds),
            binds: runtime.serverSecurity(binding: configuration.binds))
        // Checked before the proxy starts, so a refused endpoint starts nothing.
        try runtime.security.checkExposure(binding: [configuration.rep])
        let proxy = try FanOutProxy(
            context: runtime.context, service: runtime.service, configuration: configuration, security: security, logger: runtime.logger)
        try runtime.monitor(security.upstreamBinds)
        try runtime.monitor(security.binds)
        let methods = runtime.standardMethods(publisher: nil) {
            Health(service: runtime.service, started: runtime.started, upstreams: ["upstream": proxy.upstreamState()])
        }
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods)
        return [proxy, server]
    }
}
