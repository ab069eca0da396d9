import Foundation
import Logging
import TickwireStack

/// How a service writes its log lines to standard error (`--log-format`).
public enum LogFormat: String, CaseIterable, Sendable {
    /// swift-log's `StreamLogHandler` lines: time, level, logger, `key=value` metadata, `[module]`, message.
    case text
    /// One JSON object a line (``JSONLogHandler``).
    case json

    /// The environment variable of `--log-format`.
    public static let environmentVariable = "TICKWIRE_LOG_FORMAT"

    /// The format `flag` names, else the environment's, else `text`; throws a ``LogFormatError`` naming the flag,
    /// its variable and the accepted values for anything else.
    public static func resolve(_ flag: String?, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> LogFormat {
        let text = Setting.resolve(flag, environmentVariable: environmentVariable, default: LogFormat.text.rawValue, environment: environment)
        guard let format = LogFormat(rawValue: text.lowercased()) else {
            throw LogFormatError(message: "--log-format (env \(environmentVariable)) must be text or json; got \(text.debugDescription)")
        }
        return format
    }

    /// A log handler in this format for the logger `label` of `service`, writing to standard error.
    public func handler(label: String, service: String, level: Logger.Level, metadataProvider: Logger.MetadataProvider?) -> any LogHandler {
        switch self {
        case .text:
            var handler = StreamLogHandler.standardError(label: label, metadataProvider: metadataProvider)
            handler.logLevel = level
            return handler
        case .json:
            var handler = JSONLogHandler(label: label, service: service, metadataProvider: metadataProvider)
            handler.logLevel = level
            return handler
        }
    }
}

/// A `--log-format` value that is neither `text` nor `json`.
public struct LogFormatError: Error, CustomStringConvertible {
    /// What was wrong and the values accepted.
    public var message: String

    public var description: String { message }
}
