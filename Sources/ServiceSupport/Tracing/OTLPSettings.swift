import Foundation
import TickwireStack

/// Where a service sends its spans over OTLP/HTTP (`--otlp-endpoint URL`): a collector's base URL such as
/// `http://127.0.0.1:4318`, to which `/v1/traces` is added (as OpenTelemetry's `OTEL_EXPORTER_OTLP_ENDPOINT`), or
/// the full URL of its traces path. Only a build with the `OTLP` trait can export; without it, asking for an
/// endpoint stops the service at start, saying how to build with it.
public struct OTLPSettings: Sendable, Equatable {
    /// The URL spans are posted to, ending in `/v1/traces`.
    public var tracesURL: String

    /// The environment variable of `--otlp-endpoint`.
    public static let environmentVariable = "TICKWIRE_OTLP_ENDPOINT"

    /// Whether this build can export over OTLP (it was built with the `OTLP` trait).
    public static var exporterBuiltIn: Bool {
        #if OTLP
        true
        #else
        false
        #endif
    }

    /// The settings `flag` or the environment ask for; nil when neither does. Throws an ``OTLPSettingsError`` naming
    /// the flag and its variable for a value that is not an http(s) URL, and in a build without the `OTLP` trait.
    public static func resolve(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> OTLPSettings? {
        guard let text = Setting.resolve(flag, environmentVariable: environmentVariable, environment: environment) else { return nil }
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), ["http", "https"].contains(scheme),
              let host = url.host, !host.isEmpty, url.query == nil, url.fragment == nil
        else {
            throw OTLPSettingsError(message: "--otlp-endpoint (env \(environmentVariable)) must be an http or https URL of an OTLP/HTTP "
                + "collector, e.g. http://127.0.0.1:4318 (spans go to its /v1/traces); got \(text.debugDescription)")
        }
        guard exporterBuiltIn else {
            throw OTLPSettingsError(message: "--otlp-endpoint (env \(environmentVariable)) needs a build with the OTLP trait, which this one "
                + "is not: build with `swift build --traits OTLP` (or `make run OTLP=1`); without it, spans are logged on "
                + "tickwire.<service>.spans at --log-level debug")
        }
        var base = text
        while base.hasSuffix("/") { base.removeLast() }
        return OTLPSettings(tracesURL: base.hasSuffix("/v1/traces") ? base : base + "/v1/traces")
    }
}

/// An `--otlp-endpoint` that is no URL, or one given to a build that cannot export.
public struct OTLPSettingsError: Error, CustomStringConvertible {
    /// What was wrong and what to do.
    public var message: String

    public var description: String { message }
}
