import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// Counts and logs the peers a CURVE server refuses at the handshake without asking its ZAP handler: a plain
/// client (the mechanisms do not match) or a broken handshake. It reads libzmq's monitor events of the server's
/// socket (``SocketSecurity/handshakeMonitor``) on a PAIR socket of its own, counts each in
/// `tickwire_auth_refused_total{reason="mechanism"|"handshake"}` and logs each peer address once.
public final class HandshakeMonitor: Service, Sendable {
    private let socket: OwnedSocket
    private let service: String
    private let logger: Logger
    private let logged = Mutex<Set<String>>([])

    /// A fresh inproc endpoint for one socket's monitor.
    public static func endpoint(for service: String) -> String {
        "inproc://tickwire-handshakes-\(service)-\(UUID().uuidString.prefix(8))"
    }

    /// Connects to the monitor at `endpoint`, which the server's socket has started (it applied a
    /// ``SocketSecurity`` with that `handshakeMonitor`).
    public init(context: ZMQContext, endpoint: String, service: String, logger: Logger) throws {
        self.service = service
        self.logger = logger
        socket = try OwnedSocket(context: context, type: .pair, name: "\(service)-handshakes") { try $0.connect(endpoint) }
    }

    /// Reads the events until graceful shutdown.
    public func run() async {
        await cancelWhenGracefulShutdown {
            for await frames in self.socket.incoming { self.note(frames) }
        }
        await socket.close()
    }

    /// Counts and logs one monitor event.
    private func note(_ frames: [Data]) {
        guard frames.count == 2, frames[0].count == 6 else { return }
        let event = frames[0].withUnsafeBytes { UInt16(littleEndian: $0.loadUnaligned(as: UInt16.self)) }
        let value = frames[0].withUnsafeBytes { UInt32(littleEndian: $0.loadUnaligned(fromByteOffset: 2, as: UInt32.self)) }
        let mismatch = event == HandshakeEvent.protocolFailure && value == HandshakeEvent.mechanismMismatch
        let reason = mismatch ? "mechanism" : "handshake"
        Counter(label: "tickwire_auth_refused_total", dimensions: [("service", service), ("reason", reason)]).increment()
        let address = String(decoding: frames[1], as: UTF8.self)
        let host = address.lastIndex(of: ":").map { String(address[..<$0]) } ?? address
        if logged.withLock({ $0.insert(host).inserted }) {
            logger.warning("refused a peer at the handshake (logged once per peer)", metadata: [
                "peer": "address \(host)",
                "reason": "\(mismatch ? "not CURVE (a plain client?)" : "handshake failed (event \(event), code \(value))")"])
        }
    }
}

/// The libzmq monitor values the monitor tells apart.
private enum HandshakeEvent {
    /// `ZMQ_EVENT_HANDSHAKE_FAILED_PROTOCOL`.
    static let protocolFailure: UInt16 = 0x2000
    /// `ZMQ_PROTOCOL_ERROR_ZMTP_MECHANISM_MISMATCH`.
    static let mechanismMismatch: UInt32 = 0x1100_0002
}
