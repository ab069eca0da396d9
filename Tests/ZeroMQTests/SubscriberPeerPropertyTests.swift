import Foundation
import Testing
import ZeroMQ

@Suite("A SUB socket's peers' User-Id")
struct SubscriberPeerPropertyTests {
    /// A CURVE SUB server (the feed hub's ingest socket) hands each message the User-Id its ZAP handler gave the PUB
    /// it came from, so two publishers on one socket are told apart per message.
    @Test func eachMessageCarriesItsPublishersUserID() async throws {
        let context = try ZMQContext()
        let server = try CurveCertificate.generate()
        let alice = try CurveCertificate.generate()
        let bob = try CurveCertificate.generate()
        let handler = try ZAPHandler(context: context) { request in
            switch request.curveKey {
            case alice.publicKey: .accept("writer:alice")
            case bob.publicKey: .accept("writer:bob")
            default: .refuse("unknown key")
            }
        }
        let sub = try OwnedSocket(context: context, type: .sub, name: "ingest", peerProperty: "User-Id") { socket in
            try SocketSecurity(curve: .server(server)).apply(to: socket)
            try socket.subscribe("")
            try socket.bind("tcp://127.0.0.1:*")
        }
        let address = try sub.perform { try $0.lastEndpoint() }
        func publisher(_ certificate: CurveCertificate) throws -> OwnedSocket {
            try OwnedSocket(context: context, type: .pub, name: "plugin") { socket in
                try SocketSecurity(curve: .client(certificate, serverKey: server.publicKey)).apply(to: socket)
                try socket.connect(address)
            }
        }
        let fromAlice = try publisher(alice), fromBob = try publisher(bob)
        // A PUB drops what it sends before the subscription reaches it: send until both have been heard.
        var heard: [String: String] = [:]
        let deadline = ContinuousClock.now + .seconds(10)
        while heard.count < 2, ContinuousClock.now < deadline {
            fromAlice.post([Data("quote.a.X-Y".utf8), Data("alice".utf8)])
            fromBob.post([Data("quote.b.X-Y".utf8), Data("bob".utf8)])
            while let message = await next(sub, within: .milliseconds(100)) {
                #expect(message.count == 3, "User-Id, topic, body")
                heard[String(decoding: message[2], as: UTF8.self)] = String(decoding: message[0], as: UTF8.self)
            }
        }
        #expect(heard == ["alice": "writer:alice", "bob": "writer:bob"])
        await fromAlice.close()
        await fromBob.close()
        await sub.close()
        await handler.stop()
    }
}
