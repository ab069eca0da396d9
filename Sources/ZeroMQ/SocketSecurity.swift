import Foundation

/// How a socket guards what it receives: CURVE (as a server, or as a client of a known server) and the
/// largest message it takes (`ZMQ_MAXMSGSIZE`; a peer sending more is disconnected).
public struct SocketSecurity: Sendable, Hashable {
    /// A socket's CURVE role.
    public enum Curve: Sendable, Hashable {
        /// Accepts CURVE clients with this certificate (secret key included); the context's ZAP handler, if
        /// one runs, decides which client keys get in.
        case server(CurveCertificate)
        /// Connects with this certificate (secret key included) to a server whose public key is `serverKey`.
        case client(CurveCertificate, serverKey: String)
    }

    /// The default limit on a received message: 4 MiB.
    public static let defaultMaxMessageBytes: Int64 = 4 << 20
    /// The ZAP domain CURVE servers set.
    public static let zapDomain = "tickwire"

    /// Nil for plain (unencrypted, unauthenticated) connections.
    public var curve: Curve?
    /// The largest message received, in bytes; -1 for no limit.
    public var maxMessageBytes: Int64
    /// Where a server reports the handshakes it refuses without asking its ZAP handler
    /// (``Socket/monitorHandshakeFailures(_:)``); nil for none.
    public var handshakeMonitor: String?

    /// Plain connections with `maxMessageBytes` (default 4 MiB), or CURVE with `curve`.
    public init(curve: Curve? = nil, maxMessageBytes: Int64 = SocketSecurity.defaultMaxMessageBytes, handshakeMonitor: String? = nil) {
        self.curve = curve
        self.maxMessageBytes = maxMessageBytes
        self.handshakeMonitor = handshakeMonitor
    }

    /// Sets the options on `socket`; before it binds or connects.
    public func apply(to socket: Socket) throws {
        try socket.setMaxMessageSize(maxMessageBytes)
        if let handshakeMonitor { try socket.monitorHandshakeFailures(handshakeMonitor) }
        switch curve {
        case nil:
            break
        case .server(let certificate):
            try CurveCertificate.requireCurve()
            guard let secret = certificate.secretKey else { throw CertificateError.malformed("a CURVE server needs its secret key") }
            try socket.set(.curveServer, true)
            try socket.set(.curveSecretKey, Data(secret.utf8))
            try socket.set(.zapDomain, Data(Self.zapDomain.utf8))
        case .client(let certificate, let serverKey):
            try CurveCertificate.requireCurve()
            guard let secret = certificate.secretKey else { throw CertificateError.malformed("a CURVE client needs its secret key") }
            try socket.set(.curveServerKey, Data(serverKey.utf8))
            try socket.set(.curvePublicKey, Data(certificate.publicKey.utf8))
            try socket.set(.curveSecretKey, Data(secret.utf8))
        }
    }
}


