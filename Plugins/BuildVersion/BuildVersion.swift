import Foundation
import PackagePlugin

/// Gives an executable target `buildVersion`: the `git describe --tags --always --dirty` of the source it is
/// built from, or "unknown" where there is no git or no repository (an image built from a tarball).
///
/// The command runs again when the repository's HEAD, index, branch or tags change, or one of the target's
/// own source files does; it rewrites the generated file only when the version changed, so nothing is
/// recompiled otherwise.
@main
struct BuildVersion: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appending(path: "BuildVersion.swift")
        let script = #"""
            version=$(git -C "$1" describe --tags --always --dirty 2>/dev/null) || version=unknown
            text="/// The \`git describe --tags --always --dirty\` of the source this was built from, or \"unknown\".
            let buildVersion = \"$version\""
            [ "$(cat "$2" 2>/dev/null)" = "$text" ] || printf '%s\n' "$text" >"$2"
            """#
        let sources = (target as? SourceModuleTarget)?.sourceFiles.map(\.url) ?? []
        return [.buildCommand(
            displayName: "git describe for \(target.name)",
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", script, "sh", context.package.directoryURL.path, output.path],
            inputFiles: GitState.files(around: context.package.directoryURL) + sources,
            outputFiles: [output])]
    }
}

/// The files of the git repository holding a directory whose change can change `git describe`.
enum GitState {
    static func files(around directory: URL) -> [URL] {
        guard let gitDirectory = gitDirectory(around: directory) else { return [] }
        let common = (try? String(contentsOf: gitDirectory.appending(path: "commondir"), encoding: .utf8))
            .map { URL(fileURLWithPath: $0.trimmingCharacters(in: .whitespacesAndNewlines), relativeTo: gitDirectory).standardizedFileURL }
            ?? gitDirectory
        var files = [gitDirectory.appending(path: "HEAD"), gitDirectory.appending(path: "index"),
                     common.appending(path: "packed-refs"), common.appending(path: "refs/tags")]
        if let head = try? String(contentsOf: gitDirectory.appending(path: "HEAD"), encoding: .utf8), head.hasPrefix("ref: ") {
            files.append(common.appending(path: head.dropFirst(5).trimmingCharacters(in: .whitespacesAndNewlines)))
        }
        return files.filter { FileManager.default.fileExists(atPath: $0.path) }
    }

    /// The `.git` directory of the repository holding `directory` (a worktree's `.git` file names it).
    static func gitDirectory(around directory: URL) -> URL? {
        var candidate = directory.standardizedFileURL
        while true {
            let dotGit = candidate.appending(path: ".git")
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: dotGit.path, isDirectory: &isDirectory) {
                if isDirectory.boolValue { return dotGit }
                guard let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir: ") else { return nil }
                return URL(fileURLWithPath: text.dropFirst(8).trimmingCharacters(in: .whitespacesAndNewlines), relativeTo: candidate)
                    .standardizedFileURL
            }
            let parent = candidate.deletingLastPathComponent()
            if parent.path == candidate.path { return nil }
            candidate = parent
        }
    }
}
