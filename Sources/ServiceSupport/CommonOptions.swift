import ArgumentParser
import Foundation
import Logging
import TickwireStack
import ZeroMQ
import Bus

/// Flags every service takes.
public struct CommonOptions: ParsableArguments {
    /// `--log-level`: trace, debug, info, notice, warning, error or critical.
    @Option(name: .customLong("log-level"), help: "trace|debug|info|notice|warning|error|critical (env TICKWIRE_LOG_LEVEL; default info)")
    public var logLevel: String?
    /// `--log-format`: text or json.
    @Option(name: .customLong("log-format"), help: "text|json: key=value lines, or one JSON object a line (env TICKWIRE_LOG_FORMAT; default text)")
    public var logFormat: String?
    /// `--otlp-endpoint URL`: export spans over OTLP/HTTP (a build with the OTLP trait only).
    @Option(name: .customLong("otlp-endpoint"), help: ArgumentHelp(
        "send spans over OTLP/HTTP to the collector at URL, e.g. http://127.0.0.1:4318 (its /v1/traces); only a build with the OTLP trait "
            + "(`swift build --traits OTLP`, `make run OTLP=1`) can (env TICKWIRE_OTLP_ENDPOINT; default none: spans are logged on "
            + "tickwire.<service>.spans at --log-level debug)",
        valueName: "url"))
    public var otlpEndpoint: String?
    /// `--keys`: the stack's keys directory; CURVE on every tcp socket when given.
    @Option(help: "keys directory (public/, private/, writers/) that turns on CURVE on every socket, made by `tickwire-keys generate DIR` (env TICKWIRE_KEYS; default none: plain)")
    public var keys: String?
    /// `--insecure`: bind non-loopback tcp addresses without keys anyway.
    @Flag(help: "allow binding a non-loopback tcp address without --keys (everything on it is readable and writable by anyone who reaches it; env TICKWIRE_INSECURE=1)")
    public var insecure = false
    /// `--max-message-bytes`: the largest message a socket takes.
    @Option(name: .customLong("max-message-bytes"), help: "the largest message a socket takes; a peer sending more is disconnected (env TICKWIRE_MAX_MESSAGE_BYTES; default 4194304)")
    public var maxMessageBytes: Int64?
    /// `--stream-key SERVICE=CERT`: SERVICE's stream comes through a proxy presenting `public/CERT.key`.
    @Option(name: .customLong("stream-key"), help: ArgumentHelp(
        "SERVICE=CERT: with --keys, SERVICE's stream comes through a proxy whose key is public/CERT.key, e.g. converter=tickwire-proxy (repeatable; env TICKWIRE_STREAM_KEYS, comma-separated)",
        valueName: "service=cert"))
    public var streamKeys: [String] = []
    /// `--metrics HOST:PORT`: serve Prometheus' text on `http://HOST:PORT/metrics`.
    @Option(help: ArgumentHelp(
        "serve Prometheus metrics on http://HOST:PORT/metrics (env TICKWIRE_<SERVICE>_METRICS, SERVICE the service's name in capitals with _ for -, e.g. RATES_FETCHER; "
            + "default none; the stack's ports: rates-fetcher 9101, converter 9201, portfolio 9301, presenter 9401, "
            + "tickwire-proxy 9601, plugins 9501 and up). A non-loopback address needs --metrics-token (or --insecure)",
        valueName: "host:port"))
    public var metrics: String?
    /// `--metrics-token`: the bearer token `/metrics` asks for.
    @Option(name: .customLong("metrics-token"), help: "require Authorization: Bearer TOKEN on /metrics (env TICKWIRE_METRICS_TOKEN)")
    public var metricsToken: String?

    public init() {}

    /// The metrics listener `service` was asked for by flag or environment (nil: none), checked: a non-loopback
    /// address without a token is refused unless insecure binds were allowed.
    public func metricsSettings(service: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> MetricsSettings? {
        let settings: MetricsSettings?
        do {
            settings = try MetricsSettings.resolve(service: service, endpoint: metrics, token: metricsToken, environment: environment)
        } catch let error as MetricsSettingsError {
            throw ValidationError(error.message)
        }
        try settings?.checkExposure(insecure: insecureAllowed(environment: environment))
        return settings
    }

    /// The level asked for by flag or environment.
    public var level: Logger.Level {
        get throws {
            let text = Setting.resolve(logLevel, environmentVariable: "TICKWIRE_LOG_LEVEL", default: "info")
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw ValidationError("--log-level (env TICKWIRE_LOG_LEVEL) must be one of "
                    + "\(Logger.Level.allCases.map(\.rawValue).joined(separator: ", ")); got \(text.debugDescription)")
            }
            return level
        }
    }

    /// The log format asked for by flag or environment (default text).
    public func format(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LogFormat {
        do {
            return try LogFormat.resolve(logFormat, environment: environment)
        } catch let error as LogFormatError {
            throw ValidationError(error.message)
        }
    }

    /// Where spans are exported over OTLP, if asked for by flag or environment; throws for a value that is not an
    /// http(s) URL, and in a build without the OTLP trait.
    public func otlpSettings(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> OTLPSettings? {
        do {
            return try OTLPSettings.resolve(otlpEndpoint, environment: environment)
        } catch let error as OTLPSettingsError {
            throw ValidationError(error.message)
        }
    }

    /// Whether non-loopback binds without keys were allowed, by `--insecure` or `TICKWIRE_INSECURE=1` (`true`, `yes`):
    /// the environment's form is for containers, which bind every interface of their own network.
    public var insecureAllowed: Bool {
        get throws { try insecureAllowed(environment: ProcessInfo.processInfo.environment) }
    }

    /// ``insecureAllowed`` with `environment`: `TICKWIRE_INSECURE` is 1, true or yes (allowed), 0, false, no or empty
    /// (not), in any case; another value is refused rather than read as no. The flag wins, as flags do.
    public func insecureAllowed(environment: [String: String]) throws -> Bool {
        if insecure { return true }
        let text = environment["TICKWIRE_INSECURE"] ?? ""
        switch text.lowercased() {
        case "1", "true", "yes": return true
        case "", "0", "false", "no": return false
        default: throw ValidationError("--insecure (env TICKWIRE_INSECURE) must be 1, true, yes, 0, false, no or empty; got \(text.debugDescription)")
        }
    }

    /// The security asked for by flags or environment; loads the keys directory.
    public var security: SecuritySettings {
        get throws { try security(environment: ProcessInfo.processInfo.environment) }
    }

    /// ``security`` with `environment`.
    public func security(environment: [String: String]) throws -> SecuritySettings {
        let limitText = Setting.resolve(
            maxMessageBytes.map(String.init), environmentVariable: "TICKWIRE_MAX_MESSAGE_BYTES", environment: environment)
        var limit = SocketSecurity.defaultMaxMessageBytes
        if let limitText {
            guard let value = Int64(limitText), value > 0 else {
                throw ValidationError("--max-message-bytes (env TICKWIRE_MAX_MESSAGE_BYTES) must be a positive number of bytes; "
                    + "got \(limitText.debugDescription)")
            }
            limit = value
        }
        let keys = try Setting.resolve(keys, environmentVariable: "TICKWIRE_KEYS", environment: environment)
            .map { try KeyDirectory(URL(fileURLWithPath: $0)) }
        let streamServers: [String: String]
        do {
            streamServers = try streamKeys.isEmpty
                ? StreamKeys.parse(Setting.resolve(nil, environmentVariable: StreamKeys.environmentVariable, environment: environment) ?? "")
                : StreamKeys.parse(streamKeys)
        } catch let error as StreamKeysError {
            throw ValidationError("--stream-key (env \(StreamKeys.environmentVariable)): \(error.message)")
        }
        return SecuritySettings(
            keys: keys, insecure: try insecureAllowed(environment: environment), maxMessageBytes: limit, streamServers: streamServers)
    }
}
