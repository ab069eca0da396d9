import Bus
import ChildProcesses
import Foundation
import Testing
import ZeroMQ

/// One of the stack's real executables, started as a child process.
final class ServiceProcess: @unchecked Sendable {
    // @unchecked: `process` is only touched by the test that owns this value.
    let name: String
    let arguments: [String]
    let logURL: URL
    /// The network namespace it runs in (`ip netns exec`), or nil for the test's own.
    let namespace: String?
    private var process: ChildProcess

    /// The folder holding the built executables (next to the test bundle).
    static let binDirectory: URL = {
        let bundle = Bundle.main.bundleURL
        for candidate in [bundle.deletingLastPathComponent(), bundle, bundle.deletingLastPathComponent().deletingLastPathComponent()]
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("rates-fetcher").path) {
            return candidate
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug")
    }()

    /// Starts `name` with `arguments`, in network namespace `namespace` if given; its standard output and error
    /// go to a log file in `directory`.
    init(_ name: String, _ arguments: [String], in directory: URL, namespace: String? = nil) async throws {
        self.name = name
        self.arguments = arguments
        self.namespace = namespace
        self.logURL = directory.appendingPathComponent("\(name).log")
        self.process = try await Self.start(name, arguments, logURL: logURL, namespace: namespace)
    }

    private static func start(_ name: String, _ arguments: [String], logURL: URL, namespace: String?) async throws -> ChildProcess {
        let executable = binDirectory.appendingPathComponent(name)
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw StackError.missingExecutable(executable.path)
        }
        if let namespace {
            // `ip netns exec` executes the service in place: the process (and its id) is the service's.
            return try await ChildProcess.start(
                try NetworkTool.ip().path, ["netns", "exec", namespace, executable.path] + arguments + ["--log-level", "debug"],
                output: logURL)
        }
        return try await ChildProcess.start(executable.path, arguments + ["--log-level", "debug"], output: logURL)
    }

    /// Starts it again with the same arguments after it stopped.
    func restart() async throws {
        process = try await Self.start(name, arguments, logURL: logURL, namespace: namespace)
    }

    var isRunning: Bool { process.isRunning }

    /// The running process's id.
    var processIdentifier: Int32 { process.processIdentifier }

    /// SIGTERM, then waits for the exit (SIGKILL after ten seconds); returns the exit status.
    @discardableResult
    func stop() async -> Int32 {
        await process.stop()
    }

    /// SIGKILL: no chance to flush or shut down cleanly.
    func kill9() async {
        process.signal(SIGKILL)
        _ = await process.stop()
    }

    /// What it logged, for failure messages.
    var log: String { (try? String(contentsOf: logURL, encoding: .utf8)) ?? "" }
}

enum StackError: Error, CustomStringConvertible {
    case missingExecutable(String)
    case notReady(String, String)

    var description: String {
        switch self {
        case .missingExecutable(let path): "no executable at \(path): run `swift build` first"
        case .notReady(let service, let log): "\(service) did not become ready; its log:\n\(log.suffix(3000))"
        }
    }
}

/// The stack's endpoints in a fresh temporary folder, ipc sockets unless told otherwise.
struct Endpoints {
    let directory: URL
    let fetcherPub, fetcherRep, converterRep, converterPub, portfolioRep, portfolioPub, presenterRep: String

    init() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        directory = folder
        func ipc(_ name: String) -> String { "ipc://\(folder.path)/\(name)" }
        fetcherPub = ipc("fetcher-pub"); fetcherRep = ipc("fetcher-rep")
        converterRep = ipc("converter-rep"); converterPub = ipc("converter-pub")
        portfolioRep = ipc("portfolio-rep"); portfolioPub = ipc("portfolio-pub")
        presenterRep = ipc("presenter-rep")
    }

    /// rates-fetcher's endpoints (its ingest endpoint in this folder too, not on the default port other stacks bind), and
    /// its coin list saved in this folder (never in the user's state directory).
    var fetcherArguments: [String] {
        ["--pub", fetcherPub, "--rep", fetcherRep, "--ingest", "ipc://\(directory.path)/fetcher-ingest", "--state-dir", directory.path]
    }
    var converterArguments: [String] {
        ["--rep", converterRep, "--pub", converterPub, "--fetcher-pub", fetcherPub, "--fetcher-rep", fetcherRep]
    }
    var portfolioArguments: [String] {
        ["--rep", portfolioRep, "--pub", portfolioPub, "--fetcher-pub", fetcherPub, "--fetcher-rep", fetcherRep,
         "--converter-pub", converterPub, "--converter-rep", converterRep, "--database", directory.appendingPathComponent("portfolio.sqlite").path]
    }
}

/// A JSON-RPC client of a service under test (debug builds under a parallel test run can be slow).
func client(_ context: ZMQContext, _ endpoint: String) throws -> RPCClient {
    try RPCClient(context: context, endpoint: endpoint, timeout: .seconds(5), retries: 1)
}

/// Waits until `service`'s `health` reports every upstream ok.
func waitUntilHealthy(_ rpc: RPCClient, _ service: ServiceProcess, within timeout: Duration = .seconds(30)) async throws {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if let health = try? await rpc.call("health", as: HealthReport.self), health.status == "ok" { return }
        try await Task.sleep(for: .milliseconds(100))
    }
    throw StackError.notReady(service.name, service.log)
}

/// The `health` answer, as a client reads it.
struct HealthReport: Decodable, Sendable {
    let status: String
    let service: String
    let upstreams: [String: String]
}

/// Polls `condition` until it holds or `timeout` passes.
func eventually(within timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return try await condition()
}
