import Bus
import Foundation
import Logging
import ZeroMQ

/// How live clients reach their services: one ZeroMQ context, the request timeout and retries of the
/// Lazy Pirate client, and where they log.
public struct LiveConnection: Sendable {
    /// The context every socket is made in.
    public var context: ZMQContext
    /// How long one attempt of a request waits.
    public var timeout: Duration
    /// How many times an unanswered request is sent again.
    public var retries: Int
    /// Where the clients log.
    public var logger: Logger

    /// A connection in `context` (a new one by default).
    public init(context: ZMQContext? = nil, timeout: Duration = .seconds(2), retries: Int = 1,
                logger: Logger = Logger(label: "tickwire.client")) throws {
        self.context = try context ?? ZMQContext()
        self.timeout = timeout
        self.retries = retries
        self.logger = logger
    }

    /// A JSON-RPC client of the server at `endpoint`.
    func rpc(_ endpoint: String, timeout: Duration? = nil) throws -> RPCClient {
        try RPCClient(context: context, endpoint: endpoint, timeout: timeout ?? self.timeout, retries: retries, logger: logger)
    }

    /// A typed stream of the publisher at `pub`, whose snapshots come from its REP at `rep`.
    func stream<Value>(
        _ name: String, pub: String, rep: String, prefixes: [String],
        decode: @escaping @Sendable (BusMessage) throws -> Value?
    ) throws -> StreamEvents<Value> {
        // A snapshot can be large (every transaction, the whole masterdata): allow it more time.
        let snapshots = try rpc(rep, timeout: max(timeout, .seconds(5)))
        return .live(context: context, name: name, pub: pub, prefixes: prefixes, logger: logger,
                     snapshot: { prefix in try await snapshots.call(StandardAPI.snapshot, SnapshotRequest(prefix: prefix)) },
                     decode: decode)
    }
}
