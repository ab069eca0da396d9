import Foundation
import Synchronization
import Testing
import ZeroMQ

@Suite("CURVE certificates and ZAP")
struct CurveTests {
    /// A secret certificate exactly as pyzmq's `zmq.auth.create_certificates` wrote it (27.3, libzmq 4.3.5).
    static let pyzmqSecret = """
        #   ****  Generated on 2026-11-25 03:01:55.223322 by pyzmq  ****
        #   ZeroMQ CURVE **Secret** Certificate
        #   DO NOT PROVIDE THIS FILE TO OTHER USERS nor change its permissions.

        metadata
            name = fixture
        curve
            public-key = "{D<6d9mY45VKt6p6LW9r/Km8B2B9UXJa5?+XF}j^"
            secret-key = "zHV}yM3BS:}v-NT6CS=KN8*=Gr{7Xf3o97ydzort"

        """

    /// pyzmq's files parse: the keys, and none for a public certificate.
    @Test func readsPyzmqCertificates() throws {
        let secret = try CurveCertificate(zpl: Self.pyzmqSecret)
        #expect(secret.publicKey == "{D<6d9mY45VKt6p6LW9r/Km8B2B9UXJa5?+XF}j^")
        #expect(secret.secretKey == "zHV}yM3BS:}v-NT6CS=KN8*=Gr{7Xf3o97ydzort")
        let publicText = Self.pyzmqSecret.split(separator: "\n").filter { !$0.contains("secret-key") }.joined(separator: "\n")
        let publicOnly = try CurveCertificate(zpl: publicText)
        #expect(publicOnly.secretKey == nil)
        #expect(publicOnly == secret.publicOnly)
    }

    /// What it writes reads back the same, in the layout pyzmq writes (a `curve` section of quoted keys).
    @Test func writesWhatItReads() throws {
        let certificate = try CurveCertificate.generate()
        let secretText = certificate.zpl(includingSecret: true)
        #expect(secretText.contains("metadata\ncurve\n    public-key = \"\(certificate.publicKey)\"\n    secret-key = \""))
        #expect(try CurveCertificate(zpl: secretText) == certificate)
        let publicText = certificate.zpl(includingSecret: false)
        #expect(!publicText.contains("secret-key"))
        #expect(try CurveCertificate(zpl: publicText) == certificate.publicOnly)
        #expect(CurveCertificate.encode(certificate.publicKeyBytes) == certificate.publicKey)
    }

    /// A file without a key, or with a key that is not Z85, is a clear error.
    @Test func badCertificatesAreClearErrors() {
        #expect(throws: CertificateError.malformed("no public-key")) { try CurveCertificate(zpl: "metadata\ncurve\n") }
        #expect(throws: CertificateError.invalidKey("public-key", "short")) { try CurveCertificate(zpl: "curve\n    public-key = \"short\"\n") }
    }

    /// The limit on a message's size is set on the socket.
    @Test func securitySetsTheMessageLimit() throws {
        let context = try ZMQContext()
        let socket = try Socket(context: context, type: .sub)
        try SocketSecurity(maxMessageBytes: 1234).apply(to: socket)
        #expect(try socket.maxMessageSize() == 1234)
    }

    /// A CURVE ROUTER asks the context's ZAP handler about each client: the accepted one's messages carry the
    /// User-Id it gave; the refused one's never arrive.
    @Test func zapHandlerDecidesWhoGetsIn() async throws {
        let context = try ZMQContext()
        let server = try CurveCertificate.generate()
        let known = try CurveCertificate.generate()
        let stranger = try CurveCertificate.generate()
        let asked = Asked()
        let handler = try ZAPHandler(context: context) { request in
            asked.keys.withLock { $0.append(request.curveKey ?? request.mechanism) }
            return request.curveKey == known.publicKey ? .accept("reader:known") : .refuse("unknown key")
        }
        let router = try OwnedSocket(context: context, type: .router, name: "zap-router", peerProperty: "User-Id") { socket in
            try SocketSecurity(curve: .server(server)).apply(to: socket)
            try socket.bind("tcp://127.0.0.1:*")
        }
        let address = try router.perform { try $0.lastEndpoint() }
        func dealer(_ certificate: CurveCertificate) throws -> OwnedSocket {
            try OwnedSocket(context: context, type: .dealer, name: "zap-dealer") { socket in
                try SocketSecurity(curve: .client(certificate, serverKey: server.publicKey)).apply(to: socket)
                try socket.connect(address)
            }
        }
        let refused = try dealer(stranger)
        refused.post([Data(), Data("from the stranger".utf8)])
        let accepted = try dealer(known)
        accepted.post([Data(), Data("from the known".utf8)])
        let message = try #require(await next(router))
        #expect(message.first == Data("reader:known".utf8))
        #expect(message.last == Data("from the known".utf8))
        #expect(await next(router, within: .seconds(1)) == nil, "the stranger's message must never arrive")
        #expect(asked.keys.withLock { Set($0) } == [known.publicKey, stranger.publicKey])
        await refused.close()
        await accepted.close()
        await router.close()
        await handler.stop()
    }
}

/// The keys a ZAP handler was asked about.
private final class Asked: Sendable {
    let keys = Mutex<[String]>([])
}
