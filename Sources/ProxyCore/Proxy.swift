import Bus
import ServiceLifecycle
import ServiceSupport

/// The processes of `tickwire-proxy`: the fan-out proxy and its JSON-RPC server.
public enum Proxy {
    /// The services of one proxy process, in start order: the proxy, then the server of `health` (upstream
    /// `ok` while messages come from it) and `metrics` (what passed).
    public static func services(_ configuration: ProxyConfiguration, runtime: Runtime) throws -> [any Service] {
        let proxy = try FanOutProxy(context: runtime.context, service: runtime.service, configuration: configuration, logger: runtime.logger)
        let methods = runtime.standardMethods(publisher: nil) {
            Health(service: runtime.service, started: runtime.started, upstreams: ["upstream": proxy.upstreamState()])
        }
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods)
        return [proxy, server]
    }
}
