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
    /// Whether a stream's subscriber that falls behind passes on only the newest message of each topic (the default);
    /// false: every message in order, as long as its socket's queue (1,000,000 messages) holds them, so what a
    /// consumer makes of a stream depends on the stream alone, not on how fast it read it (a replay's determinism).
    public var conflatesStreams = true
    /// The service's loop (`ServiceLoop`), if its RPC clients are to use it: their sockets are read by its thread, so a
    /// caller on the loop (a handler of the service's own server on it) is handed its reply with no thread wake-up. Nil
    /// (the default): each socket has a thread of its own. Streams always read on a thread of their own.
    public var loop: ServiceLoop?

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
    package func security(connectingTo service: String) throws -> SocketSecurity {
        guard let keys else { return SocketSecurity(maxMessageBytes: maxMessageBytes) }
        return try keys.directory.clientSecurity(keys.name, connectingTo: service, maxMessageBytes: maxMessageBytes)
    }

    /// A JSON-RPC client of `service`'s server at `endpoint` (CURVE with this connection's keys): what a plugin's live client calls through.
    public func rpc(_ endpoint: String, service: String, timeout: Duration? = nil) throws -> RPCClient {
        try RPCClient(context: context, endpoint: endpoint, timeout: timeout ?? self.timeout, retries: retries,
                      security: security(connectingTo: service), logger: logger, loop: loop)
    }
}

/// A client's CURVE identity: a keys directory (``KeyDirectory``) and the name of its own certificate there
/// (`private/<name>.key_secret`); the services' public keys come from the same directory.
public struct ClientKeys: Sendable {
    /// The keys directory.
    public var directory: KeyDirectory
    /// The client's certificate's name.
    public var name: String
    /// The certificate whose key a publisher's stream presents, by publisher, where it is not the publisher's
    /// own: a stream that comes through `tickwire-proxy` (`["converter": "tickwire-proxy"]`). Snapshots still
    /// come from the publisher itself.
    public var streamServers: [String: String]

    /// The client `name`'s keys in a loaded `directory`.
    public init(directory: KeyDirectory, name: String, streamServers: [String: String] = [:]) {
        self.directory = directory
        self.name = name
        self.streamServers = streamServers
    }

    /// The client `name`'s keys in `directory`; throws when its secret certificate is missing.
    public init(directory: URL, name: String, streamServers: [String: String] = [:]) throws {
        self.directory = try KeyDirectory(directory)
        self.name = name
        self.streamServers = streamServers
        _ = try self.directory.certificate(of: name)
    }

    /// The certificate the stream of `publisher` presents: its own unless ``streamServers`` names another.
    public func streamServer(of publisher: String) -> String { streamServers[publisher] ?? publisher }

    /// The keys of `name` in the directory `TICKWIRE_KEYS` names, with the streams `TICKWIRE_STREAM_KEYS` routes
    /// through a proxy (``StreamKeys``); nil when `TICKWIRE_KEYS` is unset. A malformed pair's error names the variable.
    public static func fromEnvironment(
        name: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws -> ClientKeys? {
        guard let path = Setting.resolve(nil, environmentVariable: "TICKWIRE_KEYS", environment: environment) else { return nil }
        let streams: [String: String]
        do {
            streams = try StreamKeys.parse(Setting.resolve(nil, environmentVariable: StreamKeys.environmentVariable, environment: environment) ?? "")
        } catch let error as StreamKeysError {
            throw StreamKeysError(message: "\(StreamKeys.environmentVariable): \(error.message)")
        }
        return try ClientKeys(directory: URL(fileURLWithPath: path), name: name, streamServers: streams)
    }
}

/// `SERVICE=CERT` pairs (`--stream-key`, `TICKWIRE_STREAM_KEYS`): SERVICE's stream comes through a proxy that
/// presents the key of `public/CERT.key`, e.g. `converter=tickwire-proxy`.
public enum StreamKeys {
    /// The environment variable of the pairs, comma-separated.
    public static let environmentVariable = "TICKWIRE_STREAM_KEYS"

    /// The pairs of `text` (comma-separated; blanks ignored), by service; throws a sentence naming a malformed pair.
    public static func parse(_ text: String) throws -> [String: String] {
        try parse(text.split(separator: ",").map(String.init))
    }

    /// The pairs of `items`, by service; throws a sentence naming a malformed or repeated one.
    public static func parse(_ items: [String]) throws -> [String: String] {
        var servers: [String: String] = [:]
        for item in items.map({ $0.trimmingCharacters(in: .whitespaces) }) where !item.isEmpty {
            let parts = item.split(separator: "=", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty, !parts[1].contains("/") else {
                throw StreamKeysError(message: "\"\(item)\" is not SERVICE=CERT (e.g. converter=tickwire-proxy: the converter's stream comes through a proxy whose key is public/tickwire-proxy.key)")
            }
            if let earlier = servers[parts[0]] {
                throw StreamKeysError(message: "\(parts[0])'s stream key is given twice (\(earlier) and \(parts[1]))")
            }
            servers[parts[0]] = parts[1]
        }
        return servers
    }
}

/// A malformed `--stream-key` or `TICKWIRE_STREAM_KEYS`.
public struct StreamKeysError: Error, Equatable, CustomStringConvertible {
    /// What is wrong, and what a pair looks like.
    public var message: String

    /// The error saying `message`.
    public init(message: String) { self.message = message }

    public var description: String { message }
}
