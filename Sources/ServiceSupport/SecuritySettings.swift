import Bus
import Foundation
import ZeroMQ

/// How a service secures its sockets: CURVE with the keys of a ``KeyDirectory`` (or plain without one), whether
/// a plain service may bind a non-loopback address anyway, and the largest message a socket takes.
public struct SecuritySettings: Sendable {
    /// The stack's keys; nil for plain sockets.
    public var keys: KeyDirectory?
    /// Whether a service without keys may bind a non-loopback tcp address.
    public var insecure: Bool
    /// The largest message a socket takes, in bytes (`ZMQ_MAXMSGSIZE`).
    public var maxMessageBytes: Int64
    /// The certificate whose key a publisher's stream presents where it is not the publisher's own (a stream
    /// through `tickwire-proxy`), by publisher: `--stream-key`.
    public var streamServers: [String: String]

    /// Settings; the default is plain, loopback only, 4 MiB messages, every stream from its publisher.
    public init(keys: KeyDirectory? = nil, insecure: Bool = false, maxMessageBytes: Int64 = SocketSecurity.defaultMaxMessageBytes,
                streamServers: [String: String] = [:]) {
        self.keys = keys
        self.insecure = insecure
        self.maxMessageBytes = maxMessageBytes
        self.streamServers = streamServers
    }

    /// Whether `endpoint` is reachable from this host only: `ipc://`, `inproc://`, or tcp on a loopback address
    /// (127.0.0.0/8, ::1, localhost, lo).
    public static func isLocal(_ endpoint: String) -> Bool {
        if endpoint.hasPrefix("ipc://") || endpoint.hasPrefix("inproc://") { return true }
        guard endpoint.hasPrefix("tcp://") else { return false }
        var address = endpoint.dropFirst("tcp://".count)
        if let separator = address.lastIndex(of: ";") { address = address[address.index(after: separator)...] }
        guard let colon = address.lastIndex(of: ":") else { return false }
        let host = address[..<colon].trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        return host == "localhost" || host == "lo" || host == "::1" || host.hasPrefix("127.")
    }

    /// Throws when `endpoints` include one reachable from other hosts while the service has no keys and was not
    /// told `--insecure`.
    public func checkExposure(binding endpoints: [String]) throws {
        guard keys == nil, !insecure else { return }
        if let exposed = endpoints.first(where: { !Self.isLocal($0) }) { throw ExposureError(endpoint: exposed) }
    }
}

/// A service asked to bind a non-loopback address in the clear.
public struct ExposureError: Error, Equatable, CustomStringConvertible {
    /// The endpoint it refused to bind.
    public var endpoint: String

    /// The refusal to bind `endpoint`.
    public init(endpoint: String) {
        self.endpoint = endpoint
    }

    public var description: String {
        """
        refusing to bind \(endpoint) without keys: anyone who reaches it could read every stream and change state. \
        Make the stack's keys with `tickwire-keys generate DIR` and start every service with `--keys DIR` (env TICKWIRE_KEYS), \
        bind a loopback or ipc:// address, or pass --insecure to bind it in the clear anyway
        """
    }
}
