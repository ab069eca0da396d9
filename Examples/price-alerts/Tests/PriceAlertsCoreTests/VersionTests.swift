import ChildProcesses
import Foundation
import Testing

/// `price-alerts --version`: the `git describe --tags --always --dirty` of the source it was built from
/// (the main package's BuildVersion plugin), "unknown" where the source is not a git repository.
@Suite struct VersionTests {
    /// price-alerts answers `--version` with its build's git describe (a "-dirty" build of edited files
    /// aside), and exits 0.
    @Test func versionIsTheBuildsGitDescribe() async throws {
        let built = try #require(Executables.paths["price-alerts"])
        try #require(FileManager.default.isExecutableFile(atPath: built.path), "\(built.path) is not built")
        let answer = try await ChildProcess.run(built.path, ["--version"])
        #expect(answer.status == 0)
        let version = answer.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let describe = try? await ChildProcess.run("git", ["-C", Executables.package.path, "describe", "--tags", "--always"])
        if let describe, describe.status == 0 {
            let expected = describe.output.trimmingCharacters(in: .whitespacesAndNewlines)
            #expect(version == expected || version == expected + "-dirty", "price-alerts --version printed \(version), git describe is \(expected)")
        } else {
            #expect(version == "unknown", "price-alerts --version printed \(version) where git describe fails")
        }
    }
}
