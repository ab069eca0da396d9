import Bus
import Foundation
import Logging
import ProbeCore
import Testing
import ZeroMQ
import BusContract

/// A health report with the given upstreams.
func report(_ upstreams: [String: String]) -> Health {
    Health(service: "converter", started: Date(), upstreams: upstreams)
}

@Suite("tickwire-probe")
struct HealthProbeTests {
    /// An answer is healthy, degraded or not; exit status and line say which.
    @Test func verdicts() async {
        let ok = await HealthProbe.run(.test(report(["rates-fetcher": "ok"])), within: .seconds(1), requireOK: true)
        #expect(ok.exitCode == 0)
        #expect(ok.line == "converter: ok")

        let down = report(["rates-fetcher": "no heartbeat for 9 s"])
        let tolerated = await HealthProbe.run(.test(down), within: .seconds(1), requireOK: false)
        #expect(tolerated == .healthy(down))
        #expect(tolerated.exitCode == 0)
        #expect(tolerated.line == "converter: degraded (rates-fetcher: no heartbeat for 9 s)")

        let required = await HealthProbe.run(.test(down), within: .seconds(1), requireOK: true)
        #expect(required == .degraded(down))
        #expect(required.exitCode == 1)

        let failing = await HealthProbe.run(.failing, within: .seconds(1), requireOK: false)
        #expect(failing == .failed("HealthClient.health is not implemented in this client"))
        #expect(failing.exitCode == 1)
    }

    /// Over a real socket: a server's `health` answers; with nothing listening the probe gives up at its deadline.
    @Test func overZeroMQ() async throws {
        let logger = Logger(label: "probe-test")
        let context = try ZMQContext()
        var methods = RPCMethods()
        methods.register(StandardAPI.health) { report(["rates-fetcher": "ok"]) }
        let server = try RPCServer(context: context, service: "converter", endpoints: ["tcp://127.0.0.1:*"], methods: methods, logger: logger)
        let endpoint = try server.boundEndpoint()
        let serving = Task { await server.run() }
        defer { serving.cancel() }

        // A long deadline, met at once when the pool is free: the suite's CPU-bound tests can hold it for seconds.
        let answered = await HealthProbe.run(try .live(endpoint: endpoint, timeout: .seconds(30)), within: .seconds(30), requireOK: true)
        #expect(answered.exitCode == 0)
        #expect(answered.line == "converter: ok")

        let silent = "ipc://\(NSTemporaryDirectory())tickwire-probe-\(UUID().uuidString)"
        let missed = await HealthProbe.run(try .live(endpoint: silent, timeout: .milliseconds(200)), within: .milliseconds(200), requireOK: false)
        #expect(missed.exitCode == 1)
        #expect(missed.line.hasPrefix("unhealthy: no reply from \(silent) to health"))
    }

    /// The endpoint an image sets in the environment, unless empty.
    @Test func endpointFromEnvironment() {
        #expect(ProbeEnvironment.endpoint(["TICKWIRE_PROBE_ENDPOINT": "tcp://127.0.0.1:7201"]) == "tcp://127.0.0.1:7201")
        #expect(ProbeEnvironment.endpoint(["TICKWIRE_PROBE_ENDPOINT": ""]) == nil)
        #expect(ProbeEnvironment.endpoint([:]) == nil)
    }
}
