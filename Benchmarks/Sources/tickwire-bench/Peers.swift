import Foundation
import Subprocess
#if canImport(System)
import System
#else
import SystemPackage
#endif

/// Runs one Python peer script under bench/ and returns its last stdout line as JSON. Child processes are
/// started with swift-subprocess, not Foundation's `Process`, whose `run()` can crash on Linux with Swift 6.3.1
/// (swift-corelibs-foundation#5472).
struct Peers {
    let directory: String
    let python: String

    func run(_ script: String, _ arguments: [String]) async -> [String: Any]? {
        let result: ExecutionResult<Void, StringOutput<UTF8>, FileDescriptorOutput>
        do {
            result = try await Subprocess.run(
                python.contains("/") ? .path(FilePath(python)) : .name(python), arguments: Arguments(["\(directory)/\(script)"] + arguments),
                workingDirectory: FilePath(directory), output: .string(limit: 64 << 20), error: .currentStandardError)
        } catch {
            FileHandle.standardError.write(Data("peer \(script) did not run: \(error)\n".utf8))
            return nil
        }
        guard result.terminationStatus.isSuccess,
              let line = result.standardOutput.split(separator: "\n").last,
              let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        else {
            FileHandle.standardError.write(Data("peer \(script) failed (\(result.terminationStatus))\n".utf8))
            return nil
        }
        return object
    }
}

/// What `command` prints under /bin/sh, trimmed; empty when it fails.
func shell(_ command: String) async -> String {
    let result = try? await Subprocess.run(.path("/bin/sh"), arguments: ["-c", command], output: .string(limit: 1 << 20))
    return (result?.standardOutput ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
}

extension Dictionary where Key == String, Value == Any {
    func number(_ key: String) -> Double? { (self[key] as? NSNumber)?.doubleValue }
}
