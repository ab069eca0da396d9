import ArgumentParser
import Foundation
import ServiceSupport
import TickwireStack

/// `tickwire-proxy`'s flags, each with an environment variable (lists comma-separated).
public struct ProxyOptions: ParsableArguments {
    @Option(help: "a publisher's PUB endpoint to connect to, repeatable (env TICKWIRE_PROXY_UPSTREAM, comma-separated)")
    var upstream: [String] = []
    @Option(name: .customLong("upstream-bind"), help: "an endpoint to bind for publishers that connect, repeatable (env TICKWIRE_PROXY_UPSTREAM_BIND)")
    var upstreamBind: [String] = []
    @Option(help: "an endpoint to bind for subscribers, repeatable (env TICKWIRE_PROXY_BIND; default \(ProxyOptions.defaultBind))")
    var bind: [String] = []
    @Option(help: "the proxy's JSON-RPC endpoint for health and metrics (env TICKWIRE_PROXY_REP; default \(ProxyOptions.defaultRep))")
    var rep: String?
    @Option(name: .customLong("upstream-service"), help: "the service the upstreams are, whose public key (DIR/public/NAME.key) the proxy expects of them with --keys (env TICKWIRE_PROXY_UPSTREAM_SERVICE; default \(ProxyConfiguration.defaultUpstreamService))")
    var upstreamService: String?

    /// Where subscribers connect by default.
    public static let defaultBind = "tcp://127.0.0.1:7211"
    /// Where `health` and `metrics` are answered by default.
    public static let defaultRep = "tcp://127.0.0.1:7212"

    public init() {}

    /// The configuration the flags and environment ask for.
    public func configuration(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> ProxyConfiguration {
        func list(_ flag: [String], _ variable: String) -> [String] {
            if !flag.isEmpty { return flag }
            return (environment[variable] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        let configuration = ProxyConfiguration(
            upstreams: list(upstream, "TICKWIRE_PROXY_UPSTREAM"),
            upstreamBinds: list(upstreamBind, "TICKWIRE_PROXY_UPSTREAM_BIND"),
            binds: list(bind, "TICKWIRE_PROXY_BIND").nonEmpty ?? [Self.defaultBind],
            rep: Setting.resolve(rep, environmentVariable: "TICKWIRE_PROXY_REP", default: Self.defaultRep, environment: environment),
            upstreamService: Setting.resolve(
                upstreamService, environmentVariable: "TICKWIRE_PROXY_UPSTREAM_SERVICE",
                default: ProxyConfiguration.defaultUpstreamService, environment: environment))
        if configuration.upstreams.isEmpty && configuration.upstreamBinds.isEmpty {
            throw ValidationError(ProxyConfigurationError.noUpstream.description)
        }
        return configuration
    }
}

extension Array {
    /// The array, or nil when it is empty.
    fileprivate var nonEmpty: Self? { isEmpty ? nil : self }
}
