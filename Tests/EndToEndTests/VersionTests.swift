import ChildProcesses
import Foundation
import Testing

/// `--version` of every executable: the `git describe --tags --always --dirty` of the source it was built from
/// (Plugins/BuildVersion), "unknown" where the source is not a git repository.
@Suite struct VersionTests {
    /// The repository's root, from this file's place in it.
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The version an executable built from this tree must print, without the "-dirty" a build of edited
    /// files adds (whether the tree was edited at build time is not known here): nil without git.
    static func expectedVersion() async -> String? {
        guard let describe = try? await ChildProcess.run("git", ["-C", root.path, "describe", "--tags", "--always"]),
              describe.status == 0 else { return nil }
        return describe.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Each of the main package's executables answers `--version` with its build's git describe, and exits 0.
    @Test(arguments: ["rates-fetcher", "converter", "portfolio", "presenter", "tickwire-keys", "tickwire-proxy", "tickwire-probe", "tickwire-contract"])
    func versionIsTheBuildsGitDescribe(executable: String) async throws {
        let built = ServiceProcess.binDirectory.appendingPathComponent(executable)
        try #require(FileManager.default.isExecutableFile(atPath: built.path), "\(built.path) is not built")
        let answer = try await ChildProcess.run(built.path, ["--version"])
        #expect(answer.status == 0)
        let version = answer.output.trimmingCharacters(in: .whitespacesAndNewlines)
        if let expected = await Self.expectedVersion() {
            #expect(version == expected || version == expected + "-dirty", "\(executable) --version printed \(version), git describe is \(expected)")
        } else {
            #expect(version == "unknown", "\(executable) --version printed \(version) where git describe fails")
        }
    }
}
