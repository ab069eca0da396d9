import ArgumentParser
import ProbeCore

/// `tickwire-probe`: a container's or a pod's health check of one Tickwire service.
@main
struct ProbeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tickwire-probe",
        abstract: "Calls a service's health method within a deadline; exits 0 when it answers, else 1.",
        version: buildVersion)

    @Argument(help: "the service's JSON-RPC endpoint, e.g. tcp://127.0.0.1:7201 (env TICKWIRE_PROBE_ENDPOINT)")
    var endpoint: String?
    @Option(name: .customLong("timeout-ms"), help: "how long to wait for the answer, in milliseconds")
    var timeoutMs: Int = 2000
    @Flag(name: .customLong("require-ok"), help: "fail also when the service answers that an upstream is down")
    var requireOK = false

    func validate() throws {
        guard timeoutMs > 0 else { throw ValidationError("--timeout-ms must be positive, got \(timeoutMs)") }
    }

    func run() async throws {
        guard let endpoint = endpoint ?? ProbeEnvironment.endpoint() else {
            throw ValidationError("give the service's endpoint, or set TICKWIRE_PROBE_ENDPOINT")
        }
        let within = Duration.milliseconds(timeoutMs)
        let verdict = await HealthProbe.run(try .live(endpoint: endpoint, timeout: within), within: within, requireOK: requireOK)
        print(verdict.line)
        throw ExitCode(verdict.exitCode)
    }
}
