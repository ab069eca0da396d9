#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Foundation
import Logging
import Synchronization
import WireJSON

/// `--log-format json`: one JSON object a line, for log collectors (Loki, Elasticsearch, `jq`).
///
/// ```json
/// {"time":"2026-11-26T09:41:07.123Z","level":"info","service":"converter","logger":"tickwire.converter",
///  "message":"started","metadata":{"libzmq":"4.3.4","service":"converter"},"source":"ServiceSupport",
///  "location":"ServiceSupport/Runtime.swift:135"}
/// ```
///
/// `time` is UTC with milliseconds (``WireDate/format(_:)``); `metadata` holds the logger's, the metadata provider's (`trace_id`, `span_id`
/// inside a span) and the call's values, in that order of precedence, as strings (nested dictionaries and arrays as
/// JSON objects and arrays of strings). Every line is one line of valid JSON whatever the message holds: quotes,
/// backslashes and control characters are escaped. Written here because swift-log ships no JSON handler.
public struct JSONLogHandler: LogHandler {
    /// The logger's metadata, under the provider's and the call's.
    public var metadata: Logger.Metadata = [:]
    /// Adds metadata to every line (`trace_id`, `span_id` inside a span).
    public var metadataProvider: Logger.MetadataProvider?
    /// The lowest level logged.
    public var logLevel: Logger.Level = .info
    private let label: String
    private let service: String
    private let output: @Sendable (String) -> Void

    /// A handler for the logger `label` of `service` that hands each line (with its newline) to `write`.
    public init(
        label: String, service: String, metadataProvider: Logger.MetadataProvider? = nil,
        write: @escaping @Sendable (String) -> Void = JSONLogHandler.standardError
    ) {
        self.label = label
        self.service = service
        self.metadataProvider = metadataProvider
        self.output = write
    }

    /// One entry of ``metadata``.
    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// Writes `event` as one JSON line.
    public func log(event: LogEvent) {
        var merged = metadata
        if let provided = metadataProvider?.get(), !provided.isEmpty {
            merged.merge(provided) { _, provided in provided }
        }
        if let explicit = event.metadata {
            merged.merge(explicit) { _, explicit in explicit }
        }
        if let error = event.error {
            merged["error.message"] = "\(error)"
            merged["error.type"] = "\(String(reflecting: type(of: error)))"
        }
        var line = "{\"time\":\""
        line += WireDate.format(Date())
        line += "\",\"level\":"
        Self.appendString(event.level.rawValue, to: &line)
        line += ",\"service\":"
        Self.appendString(service, to: &line)
        line += ",\"logger\":"
        Self.appendString(label, to: &line)
        line += ",\"message\":"
        Self.appendString(event.message.description, to: &line)
        line += ",\"metadata\":"
        Self.append(.dictionary(merged), to: &line)
        line += ",\"source\":"
        Self.appendString(event.source, to: &line)
        line += ",\"location\":"
        Self.appendString("\(event.file):\(event.line)", to: &line)
        line += "}\n"
        output(line)
    }

    /// Writes a line to standard error in one `write(2)` (retried on a short write), one line at a time within the
    /// process, so lines from concurrent tasks never interleave.
    public static let standardError: @Sendable (String) -> Void = { line in
        standardErrorLock.withLock { _ in
            var bytes = Array(line.utf8)[...]
            while !bytes.isEmpty {
                let written = bytes.withUnsafeBytes { write(2, $0.baseAddress, $0.count) }
                if written < 0 {
                    if errno == EINTR { continue }
                    return
                }
                bytes = bytes.dropFirst(written)
            }
        }
    }

    private static let standardErrorLock = Mutex(())

    /// Appends a metadata value: a string, an object of its entries (keys sorted) or an array.
    private static func append(_ value: Logger.Metadata.Value, to line: inout String) {
        switch value {
        case .string(let text):
            appendString(text, to: &line)
        case .stringConvertible(let convertible):
            appendString(convertible.description, to: &line)
        case .dictionary(let entries):
            line += "{"
            for (index, key) in entries.keys.sorted().enumerated() {
                if index > 0 { line += "," }
                appendString(key, to: &line)
                line += ":"
                append(entries[key]!, to: &line)
            }
            line += "}"
        case .array(let values):
            line += "["
            for (index, element) in values.enumerated() {
                if index > 0 { line += "," }
                append(element, to: &line)
            }
            line += "]"
        }
    }

    /// Appends `text` as a JSON string: `"` and `\` escaped, control characters as `\n`, `\t`, ... or `\u00XX`.
    static func appendString(_ text: String, to line: inout String) {
        line += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": line += "\\\""
            case "\\": line += "\\\\"
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case "\u{08}": line += "\\b"
            case "\u{0C}": line += "\\f"
            case "\u{00}"..."\u{1F}", "\u{7F}", "\u{2028}", "\u{2029}":
                let hex = String(scalar.value, radix: 16)
                line += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: line.unicodeScalars.append(scalar)
            }
        }
        line += "\""
    }
}
