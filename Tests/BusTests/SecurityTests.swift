import Bus
import BusContract
import Foundation
import Testing
import ZeroMQ

@Suite("keys, ZAP decisions and write rights")
struct SecurityTests {
    /// A keys directory with the services `a` and `b`, the reader `alice` and the writer `bob`.
    static func keys() throws -> KeyDirectory {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-keys-\(UUID().uuidString.prefix(8))")
        try KeyDirectory.generate(at: url, services: ["a", "b"], clients: ["alice", "bob"], writers: ["bob"])
        return try KeyDirectory(url)
    }

    /// The layout pyzmq and CZMQ use, secret certificates readable by their owner only; generating again keeps the keys.
    @Test func generatesTheLayout() throws {
        let keys = try Self.keys()
        let files = try FileManager.default.subpathsOfDirectory(atPath: keys.url.path).filter { $0.contains(".") }.sorted()
        #expect(files == ["private/a.key_secret", "private/alice.key_secret", "private/b.key_secret", "private/bob.key_secret",
                          "public/a.key", "public/alice.key", "public/b.key", "public/bob.key", "writers/bob.key"])
        let mode = try FileManager.default.attributesOfItem(atPath: keys.url.appendingPathComponent("private/alice.key_secret").path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let alice = try keys.certificate(of: "alice")
        try KeyDirectory.generate(at: keys.url, services: ["a"], clients: ["alice"])
        #expect(try KeyDirectory(keys.url).certificate(of: "alice") == alice)
        #expect(throws: KeyDirectoryError.self) { try keys.certificate(of: "carol") }
    }

    /// Readers and writers get in with their User-Id; unknown keys and other mechanisms are refused.
    @Test func zapDecisions() throws {
        let keys = try Self.keys()
        let policy = PeerAuthenticator(keys: keys, service: "a", logger: testLogger)
        func curve(_ name: String) throws -> ZAPRequest {
            ZAPRequest(mechanism: "CURVE", credentials: [try keys.certificate(of: name).publicKeyBytes])
        }
        #expect(policy.decide(try curve("alice")) == .accept("reader:alice"))
        #expect(policy.decide(try curve("bob")) == .accept("writer:bob"))
        #expect(policy.decide(ZAPRequest(mechanism: "CURVE", credentials: [try CurveCertificate.generate().publicKeyBytes])) == .refuse("unknown key"))
        #expect(!policy.decide(ZAPRequest(address: "10.0.0.9", mechanism: "NULL")).accepted)
        #expect(!policy.decide(ZAPRequest(mechanism: "CURVE", credentials: [Data([1, 2, 3])])).accepted)
    }

    /// Methods that change state answer -32030 to a reader and run for a writer; the others answer both.
    @Test func writeRightsInRPCMethods() async throws {
        var methods = RPCMethods()
        methods.register(RPCMethod<NoParams, String>("things.add", changesState: true)) { "added" }
        methods.register(RPCMethod<NoParams, String>("things.list")) { "listed" }
        let reader = RPCCallerIdentity(userID: "reader:alice", mayChangeState: false)
        let refused = String(decoding: await methods.handle(Data(#"{"jsonrpc":"2.0","id":1,"method":"things.add"}"#.utf8), from: reader), as: UTF8.self)
        #expect(refused.contains("-32030") && refused.contains("reader:alice"), "\(refused)")
        let listed = String(decoding: await methods.handle(Data(#"{"jsonrpc":"2.0","id":2,"method":"things.list"}"#.utf8), from: reader), as: UTF8.self)
        #expect(listed.contains("listed"))
        let added = String(decoding: await methods.handle(Data(#"{"jsonrpc":"2.0","id":3,"method":"things.add"}"#.utf8)), as: UTF8.self)
        #expect(added.contains("added"))
    }

    /// An RPCServer with keys, in process over tcp: the writer adds, the reader is forbidden, a stranger is never answered.
    @Test func rpcServerChecksWritersByTheirKeys() async throws {
        let keys = try Self.keys()
        let context = try ZMQContext()
        let zap = try PeerAuthenticator(keys: keys, service: "a", logger: testLogger).start(in: context)
        var methods = RPCMethods()
        methods.register(RPCMethod<NoParams, String>("things.add", changesState: true)) { "added" }
        let server = try RPCServer(
            context: context, service: "a", endpoints: ["tcp://127.0.0.1:*"], methods: methods,
            security: SocketSecurity(curve: .server(try keys.certificate(of: "a"))), writeAccess: .writersOnly, logger: testLogger)
        let serving = Task { await server.run() }
        let endpoint = try server.boundEndpoint()
        // The answered calls may wait: the suite's other tests share two cores and the cooperative pool with this
        // server (a CI run once kept a first answer past 5 s). Refused calls are expected to time out.
        func client(_ name: String, timeout: Duration = .seconds(20)) throws -> RPCClient {
            try RPCClient(context: context, endpoint: endpoint, timeout: timeout, retries: 0,
                          security: try keys.clientSecurity(name, connectingTo: "a"))
        }
        let writer = try client("bob")
        #expect(try await writer.call("things.add", as: String.self) == "added")
        let reader = try client("alice")
        await #expect(throws: RPCError.self) { try await reader.call("things.add", as: String.self) }
        do {
            _ = try await reader.call("things.add", as: String.self)
        } catch let error as RPCError {
            #expect(error.code == RPCError.Code.forbidden)
        }
        let strangerKeys = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-keys-\(UUID().uuidString.prefix(8))")
        try KeyDirectory.generate(at: strangerKeys, services: ["a"], clients: ["mallory"])
        let stranger = try RPCClient(context: context, endpoint: endpoint, timeout: .milliseconds(800), retries: 0,
                                     security: SocketSecurity(curve: .client(try KeyDirectory(strangerKeys).certificate(of: "mallory"), serverKey: try keys.serverKey(of: "a"))))
        await #expect(throws: RPCClientError.self) { try await stranger.call("things.add", as: String.self) }
        let plain = try RPCClient(context: context, endpoint: endpoint, timeout: .milliseconds(800), retries: 0)
        await #expect(throws: RPCClientError.self) { try await plain.call("things.add", as: String.self) }
        for rpc in [writer, reader, stranger, plain] { await rpc.close() }
        serving.cancel()
        await serving.value
        await zap.stop()
    }
}
