import Foundation
import TickwireStack

/// Where a service serves its Prometheus `/metrics` over HTTP (`--metrics HOST:PORT`), and the token a scraper
/// must send: with one, every request needs `Authorization: Bearer <token>`, else it is answered 401.
public struct MetricsSettings: Sendable, Equatable {
    /// The address to listen on: `127.0.0.1`, `0.0.0.0`, `::1`, a host name.
    public var host: String
    /// The port; 0 lets the system pick one (the server logs and reports which).
    public var port: Int
    /// The bearer token `--metrics-token` sets; nil: no token asked for.
    public var token: String?

    /// A listener on `host:port`, with `token` if it is not empty.
    public init(host: String, port: Int, token: String? = nil) {
        self.host = host
        self.port = port
        self.token = token.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The metrics port each of the main package's services takes by convention (compose, Kubernetes, run-stack), by
    /// service name. A plugin picks its own (the stack's files give it `--metrics`; 9501 and up are left to plugins).
    public static let conventionalPorts: [String: Int] = [
        "rates-fetcher": 9101, "converter": 9201, "portfolio": 9301, "presenter": 9401, "tickwire-proxy": 9601,
    ]

    /// The environment variable that sets `service`'s `--metrics`, e.g. `TICKWIRE_RATES_FETCHER_METRICS`.
    public static func environmentVariable(service: String) -> String {
        "TICKWIRE_\(service.uppercased().replacingOccurrences(of: "-", with: "_"))_METRICS"
    }

    /// The environment variable of `--metrics-token`.
    public static let tokenEnvironmentVariable = "TICKWIRE_METRICS_TOKEN"

    /// The settings of `service` from its flags, else its environment; nil when metrics are not asked for.
    /// Throws a ``MetricsSettingsError`` naming the flag and its variable when the endpoint is not `HOST:PORT`.
    public static func resolve(
        service: String, endpoint: String?, token: String?,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> MetricsSettings? {
        let variable = environmentVariable(service: service)
        guard let text = Setting.resolve(endpoint, environmentVariable: variable, environment: environment) else { return nil }
        guard let (host, port) = parse(text) else {
            let example = conventionalPorts[service] ?? 9101
            throw MetricsSettingsError(
                message: "--metrics (env \(variable)) must be HOST:PORT, e.g. 127.0.0.1:\(example) or [::1]:\(example), "
                    + "with a port from 0 to 65535; got \"\(text)\"")
        }
        return MetricsSettings(host: host, port: port,
                               token: Setting.resolve(token, environmentVariable: tokenEnvironmentVariable, environment: environment))
    }

    /// `HOST:PORT`, `[IPv6]:PORT` or either after `http://`, split; nil when it is none of these.
    static func parse(_ text: String) -> (host: String, port: Int)? {
        var rest = Substring(text.trimmingCharacters(in: .whitespaces))
        if rest.hasPrefix("http://") { rest = rest.dropFirst("http://".count) }
        if rest.hasSuffix("/") { rest = rest.dropLast() }
        guard let colon = rest.lastIndex(of: ":") else { return nil }
        var host = rest[..<colon]
        let portText = rest[rest.index(after: colon)...]
        guard let port = Int(portText), (0...65535).contains(port), portText.allSatisfy(\.isASCII) else { return nil }
        if host.hasPrefix("[") {
            guard host.hasSuffix("]"), host.count > 2 else { return nil }
            host = host.dropFirst().dropLast()
        } else if host.contains(":") {
            return nil  // an IPv6 address needs its brackets
        }
        guard !host.isEmpty, !host.contains("/"), !host.contains(" ") else { return nil }
        return (String(host), port)
    }

    /// Whether the listener is reachable from this machine only.
    public var isLoopback: Bool {
        let bare = host.lowercased()
        return bare == "localhost" || bare == "::1" || bare.hasPrefix("127.")
    }

    /// Refuses to serve an address other machines can reach without a token, unless `insecure`: the bus's rule
    /// (no non-loopback bind without keys) for HTTP.
    public func checkExposure(insecure: Bool) throws {
        guard token == nil, !insecure, !isLoopback else { return }
        throw MetricsExposureError(host: host, port: port)
    }
}

/// A `--metrics` value that is not an endpoint.
public struct MetricsSettingsError: Error, CustomStringConvertible {
    /// What was wrong and the form expected.
    public var message: String

    public var description: String { message }
}

/// `/metrics` was asked to listen where others can reach it, without a token.
public struct MetricsExposureError: Error, Equatable, CustomStringConvertible {
    /// The address asked for.
    public var host: String
    /// The port asked for.
    public var port: Int

    public var description: String {
        "refusing to serve /metrics on \(host):\(port) without a token: anyone who reaches it could read the service's traffic, "
            + "feeds and errors. Give --metrics-token SECRET (or \(MetricsSettings.tokenEnvironmentVariable)) and scrape with "
            + "Authorization: Bearer SECRET, listen on 127.0.0.1, or pass --insecure (TICKWIRE_INSECURE=1) to serve it open anyway."
    }
}
