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

extension Runtime {
    /// A JSON-RPC client of another service, with the stack's default timeout and retries.
    public func client(_ endpoint: String, timeout: Duration = .seconds(2), retries: Int = 1) throws -> RPCClient {
        try RPCClient(context: context, endpoint: endpoint, timeout: timeout, retries: retries, logger: logger)
    }

    /// A Clone-pattern subscriber of the publisher at `pub` whose snapshots come from its REP at `rep`.
    public func subscriber(of upstream: String, pub: String, rep: String, prefixes: [String]) throws -> Subscriber {
        // A snapshot can be large (every transaction, the whole masterdata): allow it more time.
        let client = try client(rep, timeout: .seconds(5))
        return try Subscriber(
            context: context, name: "\(service)<-\(upstream)", endpoint: pub, prefixes: prefixes,
            snapshot: { prefix in try await client.call("snapshot", params: SnapshotRequest(prefix: prefix), as: Snapshot.self) },
            logger: logger)
    }
}
