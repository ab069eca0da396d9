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
    /// The client's CURVE certificate and the services' public keys; nil for plain connections (a stack without keys).
    public var keys: ClientKeys?
    /// The largest message a client's socket takes, in bytes.
    public var maxMessageBytes: Int64

    /// A connection in `context` (a new one by default), with CURVE when `keys` are given.
    public init(context: ZMQContext? = nil, timeout: Duration = .seconds(2), retries: Int = 1,
                logger: Logger = Logger(label: "tickwire.client"), keys: ClientKeys? = nil,
                maxMessageBytes: Int64 = SocketSecurity.defaultMaxMessageBytes) throws {
        self.context = try context ?? ZMQContext()
        self.timeout = timeout
        self.retries = retries
        self.logger = logger
        self.keys = keys
        self.maxMessageBytes = maxMessageBytes
    }

    /// How a socket connecting to `service` (e.g. `converter`) is secured.
    func security(connectingTo service: String) throws -> SocketSecurity {
        guard let keys else { return SocketSecurity(maxMessageBytes: maxMessageBytes) }
        return try keys.directory.clientSecurity(keys.name, connectingTo: service, maxMessageBytes: maxMessageBytes)
    }

    /// A JSON-RPC client of `service`'s server at `endpoint`.
    func rpc(_ endpoint: String, service: String, timeout: Duration? = nil) throws -> RPCClient {
        try RPCClient(context: context, endpoint: endpoint, timeout: timeout ?? self.timeout, retries: retries,
                      security: security(connectingTo: service), logger: logger)
    }

    /// A typed stream of the publisher `name` (a service) at `pub`, whose snapshots come from its REP at `rep`.
    func stream<Value>(
        _ name: String, pub: String, rep: String, prefixes: [String],
        decode: @escaping @Sendable (BusMessage) throws -> Value?
    ) throws -> StreamEvents<Value> {
        // A snapshot can be large (every transaction, the whole masterdata): allow it more time.
        let snapshots = try rpc(rep, service: name, timeout: max(timeout, .seconds(5)))
        return .live(context: context, name: name, pub: pub, prefixes: prefixes, security: try security(connectingTo: name), logger: logger,
                     snapshot: { prefix in try await snapshots.call(StandardAPI.snapshot, SnapshotRequest(prefix: prefix)) },
                     decode: decode)
    }
}

/// A client's CURVE identity: a keys directory (``KeyDirectory``) and the name of its own certificate there
/// (`private/<name>.key_secret`); the services' public keys come from the same directory.
public struct ClientKeys: Sendable {
    /// The keys directory.
    public var directory: KeyDirectory
    /// The client's certificate's name.
    public var name: String

    /// The client `name`'s keys in a loaded `directory`.
    public init(directory: KeyDirectory, name: String) {
        self.directory = directory
        self.name = name
    }

    /// The client `name`'s keys in `directory`; throws when its secret certificate is missing.
    public init(directory: URL, name: String) throws {
        self.directory = try KeyDirectory(directory)
        self.name = name
        _ = try self.directory.certificate(of: name)
    }

    /// The keys of `name` in the directory `TICKWIRE_KEYS` names; nil when it is unset.
    public static func fromEnvironment(
        name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ClientKeys? {
        guard let path = Setting.resolve(nil, environmentVariable: "TICKWIRE_KEYS", environment: environment) else { return nil }
        return try ClientKeys(directory: URL(fileURLWithPath: path), name: name)
    }
}
