import Foundation

/// Where the probe finds its endpoint when none is given: an image sets it once for its service.
public enum ProbeEnvironment {
    /// The variable an image sets, e.g. `tcp://127.0.0.1:7201` in the converter's.
    public static let endpointVariable = "TICKWIRE_PROBE_ENDPOINT"

    /// The endpoint named by the environment, if it names one.
    public static func endpoint(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        environment[endpointVariable].flatMap { $0.isEmpty ? nil : $0 }
    }
}
