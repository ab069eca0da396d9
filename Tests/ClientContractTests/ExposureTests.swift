import Foundation
import ServiceSupport
import Testing

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
