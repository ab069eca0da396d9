import Foundation

/// The default endpoint of every socket in the stack, each overridable by a flag and
/// by the environment variable named here (the same variable for the service that
/// binds it and the services that connect to it).
public enum DefaultEndpoint: String, CaseIterable, Sendable, EndpointSetting {
    case ratesFetcherPub = "tcp://127.0.0.1:7101"
    case ratesFetcherRep = "tcp://127.0.0.1:7102"
    case converterRep = "tcp://127.0.0.1:7201"
    case converterPub = "tcp://127.0.0.1:7202"
    case portfolioRep = "tcp://127.0.0.1:7301"
    case portfolioPub = "tcp://127.0.0.1:7302"
    case presenterRep = "tcp://127.0.0.1:7401"
    case presenterHTTP = "http://127.0.0.1:8080"

    /// The environment variable that overrides it, e.g. `TICKWIRE_RATES_FETCHER_PUB`.
    public var environmentVariable: String {
        switch self {
        case .ratesFetcherPub: "TICKWIRE_RATES_FETCHER_PUB"
        case .ratesFetcherRep: "TICKWIRE_RATES_FETCHER_REP"
        case .converterRep: "TICKWIRE_CONVERTER_REP"
        case .converterPub: "TICKWIRE_CONVERTER_PUB"
        case .portfolioRep: "TICKWIRE_PORTFOLIO_REP"
        case .portfolioPub: "TICKWIRE_PORTFOLIO_PUB"
        case .presenterRep: "TICKWIRE_PRESENTER_REP"
        case .presenterHTTP: "TICKWIRE_PRESENTER_HTTP"
        }
    }
}

/// A socket's default endpoint that a flag or an environment variable overrides: the stack's (``DefaultEndpoint``) and
/// any plugin's own.
public protocol EndpointSetting: RawRepresentable<String> {
    /// The environment variable that overrides it, e.g. `TICKWIRE_RATES_FETCHER_PUB`.
    var environmentVariable: String { get }
}

extension EndpointSetting {
    /// Help text for the flag that overrides it.
    public func help(_ what: String) -> String {
        "\(what) (env \(environmentVariable); default \(rawValue))"
    }

    /// The flag's value, else the environment's, else the default.
    public func resolve(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        Setting.resolve(flag, environmentVariable: environmentVariable, default: rawValue, environment: environment)
    }
}

/// Flags that fall back to environment variables.
public enum Setting {
    /// `flag` if given, else the non-empty environment variable, else `default`.
    public static func resolve(
        _ flag: String?, environmentVariable: String, default: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String {
        resolve(flag, environmentVariable: environmentVariable, environment: environment) ?? `default`
    }

    /// `flag` if given, else the non-empty environment variable, else `nil`.
    public static func resolve(
        _ flag: String?, environmentVariable: String,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> String? {
        if let flag { return flag }
        if let value = environment[environmentVariable], !value.isEmpty { return value }
        return nil
    }
}
