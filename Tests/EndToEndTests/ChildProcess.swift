import Foundation

/// A command run to its end off Swift's cooperative pool: reading its output and waiting for it block a
/// Dispatch thread, so a slow child (systemd-analyze, a binary's `--help` on a loaded machine) never holds
/// one of the pool's few threads while the suite's other tests wait for it.
enum ChildProcess {
    /// Runs `executable` with `arguments`; its exit status and everything it wrote to stdout and stderr.
    static func run(_ executable: URL, _ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(with: Result { try runBlocking(executable, arguments) })
            }
        }
    }

    private static func runBlocking(_ executable: URL, _ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = pipe
        try process.run()
        let output = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: output, as: UTF8.self))
    }
}
