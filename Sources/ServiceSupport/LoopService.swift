import Bus
import Logging
import ServiceLifecycle

/// A long-running loop as a ``Service`` (consumers of subscriber events, periodic jobs).
public struct LoopService: Service {
    private let body: @Sendable () async throws -> Void

    /// A service that runs `body` and is cancelled on graceful shutdown.
    public init(_ body: @escaping @Sendable () async throws -> Void) {
        self.body = body
    }

    public func run() async throws {
        try await cancelWhenGracefulShutdown { try await body() }
    }
}

/// Runs `body` every `interval` until cancelled; a thrown error is logged and the loop goes on.
public func every(_ interval: Duration, logger: Logger, _ body: @Sendable () async throws -> Void) async {
    while !Task.isCancelled {
        do {
            try await body()
        } catch {
            logger.error("periodic job failed", metadata: ["error": "\(error)"])
        }
        try? await Task.sleep(for: interval)
    }
}
