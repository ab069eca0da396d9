import Foundation
@testable import RatesFetcherCore
@testable import RatesFetcherEngine
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// What a flush saw: a folder or a file, the file's size, and what the target held at that moment.
private struct Flush: Equatable {
    var isFolder: Bool
    var size: Int
    var target: String
}

@Suite("A file replaced durably")
struct DurableFileTests {
    /// The new contents are flushed in a temporary file before the rename, and the folder after it; nothing else is left.
    @Test func flushesTheFileThenTheFolder() throws {
        let folder = try stateDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("coins.json")
        try Data("old".utf8).write(to: file)

        var flushes: [Flush] = []
        try DurableFile.replace(file, with: Data("new list".utf8)) { descriptor in
            var info = stat()
            guard fstat(descriptor, &info) == 0 else { return -1 }
            flushes.append(Flush(
                isFolder: (info.st_mode & S_IFMT) == S_IFDIR, size: Int(info.st_size),
                target: (try? String(contentsOf: file, encoding: .utf8)) ?? ""))
            return fsync(descriptor)
        }
        #expect(flushes.count == 2)
        #expect(flushes.first == Flush(isFolder: false, size: 8, target: "old"))
        #expect(flushes.last?.isFolder == true && flushes.last?.target == "new list")
        #expect(try String(contentsOf: file, encoding: .utf8) == "new list")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["coins.json"])
    }

    /// A failed flush of the new contents keeps the old ones, names the step, and leaves no temporary file.
    @Test func failedFlushKeepsTheOldContents() throws {
        let folder = try stateDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("coins.json")
        try Data("old".utf8).write(to: file)

        #expect {
            try DurableFile.replace(file, with: Data("new list".utf8)) { _ in
                errno = EIO
                return -1
            }
        } throws: { error in
            "\(error)".hasPrefix("fsync \(folder.path)/.coins.json.") && "\(error)".hasSuffix(".tmp: Input/output error")
        }
        #expect(try String(contentsOf: file, encoding: .utf8) == "old")
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["coins.json"])
    }
}
