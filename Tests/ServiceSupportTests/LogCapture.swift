import Foundation
import Logging
import Synchronization
@testable import ServiceSupport

/// The lines a ``JSONLogHandler`` wrote, kept in memory for one test.
final class LogCapture: Sendable {
    private let lines = Mutex<[String]>([])

    /// Every line written so far, each with its newline.
    var all: [String] { lines.withLock { $0 } }

    /// Every line parsed as a JSON object.
    func objects() throws -> [[String: Any]] {
        try all.map { line in
            let object = try JSONSerialization.jsonObject(with: Data(line.utf8))
            guard let dictionary = object as? [String: Any] else { throw CaptureError(line: line) }
            return dictionary
        }
    }

    /// A logger of `service` at `level` whose lines come here, with `metadataProvider`.
    func logger(label: String, service: String = "test", level: Logger.Level = .debug,
                metadataProvider: Logger.MetadataProvider? = nil) -> Logger {
        var logger = Logger(label: label) { label in
            JSONLogHandler(label: label, service: service, metadataProvider: metadataProvider) { line in
                self.lines.withLock { $0.append(line) }
            }
        }
        logger.logLevel = level
        return logger
    }

    struct CaptureError: Error { var line: String }
}
