import CZlib
#if canImport(Glibc)
import Glibc
#endif
import Foundation

/// When a capture file is closed and the next one begun (with a header of its own).
public struct CaptureRotation: Sendable, Equatable {
    /// After this many compressed bytes (nil: no limit by size).
    public var maxBytes: Int64?
    /// After this long since the file began (nil: no limit by time).
    public var maxDuration: Duration?

    /// A rotation after `maxBytes` compressed bytes or `maxDuration`, whichever comes first.
    public init(maxBytes: Int64? = nil, maxDuration: Duration? = nil) {
        self.maxBytes = maxBytes
        self.maxDuration = maxDuration
    }
}

/// Writes captures into a directory: gzip NDJSON files, a header line each, rotated by ``CaptureRotation``.
///
/// The compressed stream is flushed (`Z_SYNC_FLUSH`) to the file at least every `flushInterval`, so a crash loses
/// at most that much and a file cut short reads up to its last flush. Not thread-safe: one thread owns a writer.
public final class CaptureWriter {
    /// The directory the files go to.
    public let directory: URL
    /// The files begun so far, in order.
    public private(set) var files: [URL] = []
    /// Records written, over every file.
    public private(set) var records = 0
    /// Compressed bytes written, over every file.
    public private(set) var bytesWritten: Int64 = 0

    private let endpoints: [String]
    private let prefixes: [String]
    private let rotation: CaptureRotation
    private let flushInterval: Int64
    private let namePrefix: String
    private let clock: @Sendable () -> Int64
    private var file: GzipFile?
    private var fileStarted: Int64 = 0
    private var lastFlush: Int64 = 0
    private var line: [UInt8] = []
    private var sequence = 0

    /// A writer into `directory` (made if missing), whose files are named `<namePrefix>-<UTC start>-<n>.ndjson.gz`
    /// and whose headers name `endpoints` and `prefixes`; `clock` gives nanoseconds since the Unix epoch.
    public init(
        directory: URL, endpoints: [String], prefixes: [String], rotation: CaptureRotation = CaptureRotation(),
        flushInterval: Duration = .seconds(1), namePrefix: String = "capture", clock: @escaping @Sendable () -> Int64 = CaptureTime.now
    ) throws(CaptureError) {
        self.directory = directory
        self.endpoints = endpoints
        self.prefixes = prefixes
        self.rotation = rotation
        self.flushInterval = flushInterval.nanoseconds
        self.namePrefix = namePrefix
        self.clock = clock
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CaptureError(file: directory.path, record: 0, offset: 0, "cannot make the directory: \(error)")
        }
    }

    deinit { file?.abandon() }

    /// The file being written, if one is open.
    public var currentFile: URL? { file?.url }

    /// Appends one message; begins a file first where none is open or the current one is due for rotation.
    /// - Throws: for a topic or envelope that is not UTF-8 (nothing is written), or a failed write.
    public func append(_ record: CaptureRecord) throws(CaptureError) {
        line.removeAll(keepingCapacity: true)
        guard record.line(into: &line) else {
            throw CaptureError(file: file?.url.path ?? directory.path, record: (file?.records ?? 0) + 1, offset: file?.textBytes ?? 0,
                               "the envelope on \(record.topic) is not UTF-8 text")
        }
        line.append(UInt8(ascii: "\n"))
        let now = clock()
        try rotateIfDue(now: now)
        let open = try openFile(now: now)
        try open.write(line, flush: false)
        open.records += 1
        records += 1
        try flushIfDue(now: now)
    }

    /// Flushes the compressed stream to the file when `flushInterval` has passed since the last flush, and rotates a
    /// file that is due by time: the writer's owner calls it at least every `flushInterval`, records or not.
    public func tick() throws(CaptureError) {
        let now = clock()
        try rotateIfDue(now: now)
        try flushIfDue(now: now)
    }

    /// Flushes what is written so far to the file (`Z_SYNC_FLUSH`): readable up to here even if the process dies.
    public func flush() throws(CaptureError) {
        guard let file else { return }
        let before = file.compressedBytes
        try file.write([], flush: true)
        bytesWritten += file.compressedBytes - before
        lastFlush = clock()
    }

    /// Finishes the current file (the gzip trailer) and closes it; the next ``append(_:)`` begins a new one.
    public func close() throws(CaptureError) {
        guard let file else { return }
        self.file = nil
        let before = file.compressedBytes
        try file.finish()
        bytesWritten += file.compressedBytes - before
    }

    private func flushIfDue(now: Int64) throws(CaptureError) {
        guard file != nil, now - lastFlush >= flushInterval else { return }
        try flush()
    }

    private func rotateIfDue(now: Int64) throws(CaptureError) {
        guard let file else { return }
        let full = rotation.maxBytes.map { file.compressedBytes >= $0 } ?? false
        let old = rotation.maxDuration.map { now - fileStarted >= $0.nanoseconds } ?? false
        if full || old { try close() }
    }

    private func openFile(now: Int64) throws(CaptureError) -> GzipFile {
        if let file { return file }
        let stamp = CaptureTime.rfc3339(nanoseconds: now).prefix(19).filter { $0 != "-" && $0 != ":" }
        var opened: GzipFile?
        while opened == nil {
            sequence += 1
            let url = directory.appendingPathComponent("\(namePrefix)-\(stamp)Z-\(String(format: "%04d", sequence)).ndjson.gz")
            opened = try GzipFile(creating: url)
        }
        guard let opened else { preconditionFailure("unreachable") }
        let header = CaptureHeader(started: now, endpoints: endpoints, prefixes: prefixes)
        try opened.write(header.line + [UInt8(ascii: "\n")], flush: true)
        bytesWritten += opened.compressedBytes
        file = opened
        files.append(opened.url)
        fileStarted = now
        lastFlush = now
        return opened
    }
}

extension Duration {
    /// The duration in whole nanoseconds.
    var nanoseconds: Int64 { components.seconds * 1_000_000_000 + components.attoseconds / 1_000_000_000 }
}

/// One gzip file being written: a deflate stream into a file descriptor.
final class GzipFile {
    let url: URL
    /// Lines written (the header not counted).
    var records = 0
    /// Decompressed bytes written, the header included.
    private(set) var textBytes: Int64 = 0
    /// Compressed bytes in the file.
    private(set) var compressedBytes: Int64 = 0
    private var stream = z_stream()
    private let descriptor: Int32
    private var output = [UInt8](repeating: 0, count: 1 << 16)

    /// Creates `url` (nil when it exists already) and starts a gzip stream in it.
    init?(creating url: URL) throws(CaptureError) {
        self.url = url
        let descriptor = open(url.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        if descriptor < 0 {
            if errno == EEXIST { return nil }
            throw CaptureError(file: url.path, record: 0, offset: 0, "cannot create: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        // windowBits 15 + 16: a gzip header and trailer around the deflate stream.
        let status = deflateInit2_(&stream, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            close(descriptor)
            throw CaptureError(file: url.path, record: 0, offset: 0, "zlib's deflateInit2 failed (\(status))")
        }
    }

    /// Compresses `bytes` into the file; with `flush`, then flushes the stream (`Z_SYNC_FLUSH`) so all of it is in the file.
    func write(_ bytes: [UInt8], flush: Bool) throws(CaptureError) {
        textBytes += Int64(bytes.count)
        try deflateAll(bytes, mode: flush ? Z_SYNC_FLUSH : Z_NO_FLUSH)
    }

    /// Ends the stream (its trailer) and closes the file.
    func finish() throws(CaptureError) {
        defer {
            deflateEnd(&stream)
            close(descriptor)
        }
        try deflateAll([], mode: Z_FINISH)
    }

    /// Closes without finishing (the writer was dropped unclosed): what was flushed stays readable.
    func abandon() {
        deflateEnd(&stream)
        close(descriptor)
    }

    private func deflateAll(_ bytes: [UInt8], mode: Int32) throws(CaptureError) {
        var input = bytes
        var failure: CaptureError?
        input.withUnsafeMutableBufferPointer { input in
            stream.next_in = input.baseAddress
            stream.avail_in = UInt32(input.count)
            repeat {
                let produced = output.withUnsafeMutableBufferPointer { output -> Int in
                    stream.next_out = output.baseAddress
                    stream.avail_out = UInt32(output.count)
                    let status = deflate(&stream, mode)
                    if status == Z_STREAM_ERROR {
                        failure = CaptureError(file: url.path, record: records, offset: textBytes, "zlib's deflate failed (\(status))")
                    }
                    return output.count - Int(stream.avail_out)
                }
                if failure != nil { return }
                if produced > 0, let error = writeOut(produced) {
                    failure = error
                    return
                }
                // Done once deflate left room in the output: it had nothing more to give for this mode.
                if stream.avail_out != 0 && stream.avail_in == 0 { break }
            } while true
            stream.next_in = nil
        }
        if let failure { throw failure }
    }

    private func writeOut(_ count: Int) -> CaptureError? {
        var written = 0
        while written < count {
            let result = output.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress! + written, count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                return CaptureError(file: url.path, record: records, offset: textBytes, "write failed: \(String(cString: strerror(errno)))")
            }
            written += result
        }
        compressedBytes += Int64(count)
        return nil
    }
}
