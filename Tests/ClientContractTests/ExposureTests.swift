import Bus
import Foundation
import ServiceSupport
import Testing
import TickwireStack

@Suite("no accidental exposure")
struct ExposureTests {
    /// ipc, inproc and loopback tcp are local; every other tcp address (all interfaces, a LAN address, a name) is not.
    @Test func loopbackAndIPCAreLocal() {
        for endpoint in ["ipc:///tmp/x", "inproc://x", "tcp://127.0.0.1:7201", "tcp://127.0.0.2:*", "tcp://localhost:7201", "tcp://[::1]:7201", "tcp://lo:7201"] {
            #expect(SecuritySettings.isLocal(endpoint), "\(endpoint)")
        }
        for endpoint in ["tcp://0.0.0.0:7201", "tcp://*:7201", "tcp://192.168.1.5:7201", "tcp://eth0:7201", "tcp://[::]:7201", "tcp://example.com:7201", "pgm://x"] {
            #expect(!SecuritySettings.isLocal(endpoint), "\(endpoint)")
        }
    }

    /// Without keys a non-loopback bind is refused, with a message that says how to make keys; --insecure allows it.
    @Test func nonLoopbackNeedsKeysOrInsecure() throws {
        let plain = SecuritySettings()
        #expect(throws: ExposureError(endpoint: "tcp://*:7201")) { try plain.checkExposure(binding: ["ipc:///tmp/x", "tcp://*:7201"]) }
        #expect(ExposureError(endpoint: "tcp://*:7201").description.contains("tickwire-keys generate DIR"))
        try plain.checkExposure(binding: ["tcp://127.0.0.1:7201", "ipc:///tmp/x"])
        try SecuritySettings(insecure: true).checkExposure(binding: ["tcp://*:7201"])
    }
}

@Suite("streams through a proxy")
struct StreamKeysTests {
    /// `--stream-key SERVICE=CERT` pairs, repeatable or comma-separated, name the certificate a stream presents.
    @Test func pairsNameTheStreamsServer() throws {
        #expect(try StreamKeys.parse("converter=tickwire-proxy, portfolio = edge-proxy ,") == ["converter": "tickwire-proxy", "portfolio": "edge-proxy"])
        #expect(try StreamKeys.parse(["converter=tickwire-proxy"]) == ["converter": "tickwire-proxy"])
        #expect(try StreamKeys.parse("") == [:])
        let options = try CommonOptions.parse(["--stream-key", "converter=tickwire-proxy", "--stream-key", "rates-fetcher=fetcher-proxy"])
        #expect(try options.security.streamServers == ["converter": "tickwire-proxy", "rates-fetcher": "fetcher-proxy"])
    }

    /// A malformed or repeated pair is refused with a sentence that shows the form.
    @Test func malformedPairsAreRefused() throws {
        for text in ["converter", "=tickwire-proxy", "converter=", "converter=a=b", "converter=../secret"] {
            #expect(throws: StreamKeysError.self, "\(text)") { try StreamKeys.parse(text) }
        }
        #expect(throws: StreamKeysError(message: "converter's stream key is given twice (a and b)")) {
            try StreamKeys.parse("converter=a,converter=b")
        }
        do {
            _ = try CommonOptions.parse(["--stream-key", "converter"]).security
            Issue.record("a malformed --stream-key was accepted")
        } catch {
            #expect("\(error)".contains("--stream-key (env TICKWIRE_STREAM_KEYS): \"converter\" is not SERVICE=CERT"), "\(error)")
        }
    }

    /// A client's keys use the proxy's certificate for the stream it names, the publisher's own for the rest.
    @Test func clientKeysPickTheStreamServer() throws {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-stream-keys-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: url) }
        try KeyDirectory.generate(at: url, services: ["converter", "tickwire-proxy"], clients: ["alice"])
        let keys = try ClientKeys.fromEnvironment(name: "alice", environment: [
            "TICKWIRE_KEYS": url.path, "TICKWIRE_STREAM_KEYS": "converter=tickwire-proxy",
        ])
        #expect(keys?.streamServer(of: "converter") == "tickwire-proxy")
        #expect(keys?.streamServer(of: "portfolio") == "portfolio")
        let error = #expect(throws: StreamKeysError.self) {
            try ClientKeys.fromEnvironment(name: "alice", environment: ["TICKWIRE_KEYS": url.path, "TICKWIRE_STREAM_KEYS": "converter"])
        }
        #expect(error?.message.hasPrefix("TICKWIRE_STREAM_KEYS: \"converter\" is not SERVICE=CERT") == true, "\(String(describing: error))")
    }
}
