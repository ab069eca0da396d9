import ArgumentParser
import Logging

/// Flags every service takes.
public struct CommonOptions: ParsableArguments {
    /// `--log-level`: trace, debug, info, notice, warning, error or critical.
    @Option(name: .customLong("log-level"), help: "trace|debug|info|notice|warning|error|critical (env TICKWIRE_LOG_LEVEL; default info)")
    public var logLevel: String?

    public init() {}

    /// The level asked for by flag or environment.
    public var level: Logger.Level {
        get throws {
            let text = Setting.resolve(logLevel, environmentVariable: "TICKWIRE_LOG_LEVEL", default: "info")
            guard let level = Logger.Level(rawValue: text.lowercased()) else {
                throw ValidationError("unknown log level \"\(text)\"; use one of \(Logger.Level.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return level
        }
    }
}
