import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Replaces a file so that after a crash or a power loss it holds either its old contents or the new ones, never
/// an empty or half-written file: the data goes to a temporary file beside it, which is flushed to disk (`fsync`),
/// renamed over the file, and then the folder is flushed so the rename itself is on disk. (Foundation's `.atomic`
/// renames without either flush.)
enum DurableFile {
    /// Replaces `url`'s contents with `data` durably; `sync` flushes a descriptor (`fsync`; a test's stand-in
    /// records the calls). A failure before the rename leaves the old contents and no temporary file; a failure to
    /// flush the folder (after the rename) leaves the new contents, perhaps not yet on disk. A folder whose file
    /// system cannot flush folders (`EINVAL`) is taken as flushed.
    static func replace(_ url: URL, with data: Data, sync: (Int32) -> Int32 = { fsync($0) }) throws {
        let folder = url.deletingLastPathComponent().path
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        let file = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard file >= 0 else { throw DurableFileError(step: "create", path: temporary, code: errno) }
        var renamed = false
        defer { if !renamed { unlink(temporary) } }
        do {
            defer { close(file) }
            try data.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) in
                var offset = 0
                while offset < bytes.count {
                    let written = write(file, bytes.baseAddress! + offset, bytes.count - offset)
                    if written < 0, errno == EINTR { continue }
                    guard written > 0 else { throw DurableFileError(step: "write", path: temporary, code: written < 0 ? errno : EIO) }
                    offset += written
                }
            }
            guard sync(file) == 0 else { throw DurableFileError(step: "fsync", path: temporary, code: errno) }
        }
        guard rename(temporary, url.path) == 0 else { throw DurableFileError(step: "rename", path: url.path, code: errno) }
        renamed = true
        let directory = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard directory >= 0 else { throw DurableFileError(step: "open", path: folder, code: errno) }
        defer { close(directory) }
        guard sync(directory) == 0 || errno == EINVAL else { throw DurableFileError(step: "fsync", path: folder, code: errno) }
    }
}

/// A step of a durable write failed.
struct DurableFileError: Error, CustomStringConvertible {
    /// What was being done: `create`, `write`, `fsync`, `rename` or `open`.
    var step: String
    /// The file or folder it was done to.
    var path: String
    /// The `errno` it failed with.
    var code: Int32

    var description: String { "\(step) \(path): \(String(cString: strerror(code)))" }
}
