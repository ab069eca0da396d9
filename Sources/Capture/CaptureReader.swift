import CZlib
import Foundation

/// Reads one capture file, record by record, without loading it whole.
///
/// A file cut short (a crashed recorder's: no gzip trailer) yields every complete record before the cut, then throws
/// at the record the cut falls in; a corrupt one throws at the first bad record. Either error names the file, the
/// record's number and the byte offset of its line in the decompressed text.
public final class CaptureReader {
    /// The file.
    public let url: URL
    /// Its header line.
    public let header: CaptureHeader
    /// Records read so far: the number of the one ``next()`` returned last.
    public private(set) var recordsRead = 0
    /// Where the line of the record ``next()`` returned last starts, in bytes of the decompressed text.
    public private(set) var recordOffset: Int64 = 0

    private let inflater: Inflater
    private var pending: [UInt8]
    private var start: Int
    /// Decompressed offset of `pending[start]`.
    private var offset: Int64 = 0
    private var ended = false
    private let decoder = JSONDecoder()

    fileprivate struct Line: Decodable {
        var t: Int64
        var topic: String
        var envelope: String
    }

    /// Opens `url` and reads its header.
    /// - Throws: when it cannot be opened, is not gzip, or its first line is not a capture header of a version read here.
    public init(url: URL) throws(CaptureError) {
        self.url = url
        let inflater = try Inflater(url: url)
        var pending: [UInt8] = []
        var start = 0
        guard let line = try Self.nextLine(inflater: inflater, pending: &pending, start: &start, file: url.path, record: 0, offset: 0) else {
            throw CaptureError(file: url.path, record: 0, offset: 0, "empty: no header line")
        }
        let header: CaptureHeader
        do {
            header = try JSONDecoder().decode(CaptureHeader.self, from: Data(line))
        } catch {
            throw CaptureError(file: url.path, record: 0, offset: 0, "the first line is not a capture header: \(error)")
        }
        guard header.format == CaptureHeader.formatName else {
            throw CaptureError(file: url.path, record: 0, offset: 0, "format \(header.format.debugDescription), not \(CaptureHeader.formatName)")
        }
        guard header.version == CaptureHeader.currentVersion else {
            throw CaptureError(file: url.path, record: 0, offset: 0, "version \(header.version): this reader reads version \(CaptureHeader.currentVersion)")
        }
        self.header = header
        self.inflater = inflater
        self.pending = pending
        self.start = start
        offset = Int64(line.count + 1)
    }

    /// The next record, or nil at the end of the file.
    /// - Throws: at a truncated or corrupt record (nothing after it is read).
    public func next() throws(CaptureError) -> CaptureRecord? {
        guard !ended else { return nil }
        let number = recordsRead + 1
        guard let line = try Self.nextLine(inflater: inflater, pending: &pending, start: &start, file: url.path, record: number, offset: offset) else {
            ended = true
            return nil
        }
        let record: CaptureRecord
        if let fast = RecordLine.parse(line) {
            record = fast
        } else {
            do {
                let parsed = try decoder.decode(Line.self, from: Data(line))
                record = CaptureRecord(received: parsed.t, topic: parsed.topic, envelope: Data(parsed.envelope.utf8))
            } catch {
                ended = true
                throw CaptureError(file: url.path, record: number, offset: offset, "not a capture record: \(String(decoding: line.prefix(80), as: UTF8.self).debugDescription)")
            }
        }
        recordsRead = number
        recordOffset = offset
        offset += Int64(line.count + 1)
        return record
    }

    /// Every record of `url` passed to `body` in order; throws at a bad one after passing those before it.
    public static func forEach(in url: URL, _ body: (CaptureRecord) throws -> Void) throws {
        let reader = try CaptureReader(url: url)
        while let record = try reader.next() { try body(record) }
    }

    /// The capture files of `path`: itself if a file, else the `.ndjson.gz` files in it, by name (which is by start time).
    public static func files(at path: URL) throws(CaptureError) -> [URL] {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path.path, isDirectory: &isDirectory) else {
            throw CaptureError(file: path.path, record: 0, offset: 0, "no such file or directory")
        }
        guard isDirectory.boolValue else { return [path] }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path.path)
        } catch {
            throw CaptureError(file: path.path, record: 0, offset: 0, "cannot list: \(error)")
        }
        return names.filter { $0.hasSuffix(".ndjson.gz") }.sorted().map { path.appendingPathComponent($0) }
    }

    /// The next whole line (without its newline), or nil at a clean end; throws at a cut or corrupt stream.
    private static func nextLine(
        inflater: Inflater, pending: inout [UInt8], start: inout Int, file: String, record: Int, offset: Int64
    ) throws(CaptureError) -> ArraySlice<UInt8>? {
        var searched = start
        while true {
            if let newline = pending[searched...].firstIndex(of: UInt8(ascii: "\n")) {
                let line = pending[start..<newline]
                start = newline + 1
                return line
            }
            if start > 0 && start == pending.count {
                pending.removeAll(keepingCapacity: true)
                start = 0
            } else if start > 1 << 16 {
                pending.removeSubrange(..<start)
                start = 0
            }
            searched = pending.count
            switch inflater.more(into: &pending) {
            case .data:
                continue
            case .end:
                guard start == pending.count else {
                    throw CaptureError(file: file, record: record, offset: offset, "the last line has no newline: the file was cut short")
                }
                return nil
            case .truncated:
                throw CaptureError(file: file, record: record, offset: offset,
                                   start == pending.count ? "the file ends without the gzip trailer (cut short after its last flush)"
                                                          : "the file was cut short inside this record")
            case .corrupt(let reason):
                throw CaptureError(file: file, record: record, offset: offset, "corrupt gzip data: \(reason)")
            case .unreadable(let reason):
                throw CaptureError(file: file, record: record, offset: offset, "cannot read: \(reason)")
            }
        }
    }
}

/// A gzip file's decompressed bytes, a chunk at a time (concatenated gzip members read as one stream).
final class Inflater {
    enum Outcome {
        case data, end, truncated
        case corrupt(String)
        case unreadable(String)
    }

    private let descriptor: Int32
    private let stream: UnsafeMutablePointer<z_stream>
    private var input = [UInt8](repeating: 0, count: 1 << 16)
    private var inputStart = 0
    private var inputEnd = 0
    private var output = [UInt8](repeating: 0, count: 1 << 17)
    private var memberEnded = false
    private var eof = false

    init(url: URL) throws(CaptureError) {
        descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CaptureError(file: url.path, record: 0, offset: 0, "cannot open: \(String(cString: strerror(errno)))")
        }
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits 15 + 32: gzip (or zlib) headers recognised.
        let status = inflateInit2_(stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            close(descriptor)
            stream.deallocate()
            throw CaptureError(file: url.path, record: 0, offset: 0, "zlib's inflateInit2 failed (\(status))")
        }
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        close(descriptor)
    }

    /// Appends the next decompressed bytes to `out`.
    func more(into out: inout [UInt8]) -> Outcome {
        while true {
            if inputStart == inputEnd {
                if eof { return memberEnded ? .end : .truncated }
                let count = input.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0 {
                    if errno == EINTR { continue }
                    return .unreadable(String(cString: strerror(errno)))
                }
                inputStart = 0
                inputEnd = count
                if count == 0 {
                    eof = true
                    continue
                }
            }
            if memberEnded {
                // Bytes after a member's end: another member follows.
                guard inflateReset(stream) == Z_OK else { return .corrupt("cannot start the next gzip member") }
                memberEnded = false
            }
            let (status, produced, consumed) = input.withUnsafeMutableBufferPointer { input in
                output.withUnsafeMutableBufferPointer { output in
                    stream.pointee.next_in = input.baseAddress! + inputStart
                    stream.pointee.avail_in = UInt32(inputEnd - inputStart)
                    stream.pointee.next_out = output.baseAddress
                    stream.pointee.avail_out = UInt32(output.count)
                    let status = inflate(stream, Z_NO_FLUSH)
                    return (status, output.count - Int(stream.pointee.avail_out), (inputEnd - inputStart) - Int(stream.pointee.avail_in))
                }
            }
            inputStart += consumed
            switch status {
            case Z_OK, Z_BUF_ERROR:
                break
            case Z_STREAM_END:
                memberEnded = true
            default:
                let message = stream.pointee.msg.map { String(cString: $0) } ?? "zlib status \(status)"
                return .corrupt(message)
            }
            if produced > 0 {
                out.append(contentsOf: output[..<produced])
                return .data
            }
        }
    }
}

/// The record lines this library writes (`{"t":N,"topic":"...","envelope":"..."}`, no spaces), read without a JSON
/// decoder; nil for any other shape, which the reader then hands to `JSONDecoder`. Measured (bench/PROFILE.md,
/// "Replay"): JSONDecoder took 31 % of a replay's CPU on these lines (the envelope string's unescaping), this ~3 %.
private enum RecordLine {
    static func parse(_ line: ArraySlice<UInt8>) -> CaptureRecord? {
        line.withUnsafeBufferPointer { parse($0) }
    }

    private static func parse(_ line: UnsafeBufferPointer<UInt8>) -> CaptureRecord? {
        var index = 0
        func expect(_ text: StaticString) -> Bool {
            let count = text.utf8CodeUnitCount
            guard line.count - index >= count else { return false }
            let matches = text.withUTF8Buffer { expected in expected.elementsEqual(line[index..<(index + count)]) }
            if matches { index += count }
            return matches
        }
        guard expect("{\"t\":") else { return nil }
        var negative = false
        if index < line.count, line[index] == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        // Nanoseconds since 1970 have 19 digits; accumulated negatively, so Int64.min reads too.
        var t: Int64 = 0
        var digits = 0
        while index < line.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(line[index]) {
            let (times, overflowTimes) = t.multipliedReportingOverflow(by: 10)
            let (next, overflowMinus) = times.subtractingReportingOverflow(Int64(line[index] - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowMinus else { return nil }
            t = next
            index += 1
            digits += 1
        }
        guard digits > 0, negative || t != .min, expect(",\"topic\":"), let topic = string(line, &index), expect(",\"envelope\":"),
              let envelope = string(line, &index), expect("}"), index == line.count,
              let topicText = topic.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }),
              envelope.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) != nil else { return nil }
        return CaptureRecord(received: negative ? t : -t, topic: topicText, envelope: envelope)
    }

    /// The bytes of a JSON string at `index` (its opening quote), unescaped; nil when malformed or when it has a `\\u`
    /// escape (left to JSONDecoder).
    private static func string(_ line: UnsafeBufferPointer<UInt8>, _ index: inout Int) -> Data? {
        guard index < line.count, line[index] == UInt8(ascii: "\"") else { return nil }
        index += 1
        var bytes = Data(count: line.count - index)
        var position = index
        let written = bytes.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Int? in
            var count = 0
            while position < line.count {
                let byte = line[position]
                if byte == UInt8(ascii: "\"") {
                    position += 1
                    return count
                }
                if byte == UInt8(ascii: "\\") {
                    guard position + 1 < line.count else { return nil }
                    switch line[position + 1] {
                    case UInt8(ascii: "\""): out[count] = UInt8(ascii: "\"")
                    case UInt8(ascii: "\\"): out[count] = UInt8(ascii: "\\")
                    case UInt8(ascii: "/"): out[count] = UInt8(ascii: "/")
                    case UInt8(ascii: "n"): out[count] = UInt8(ascii: "\n")
                    case UInt8(ascii: "r"): out[count] = UInt8(ascii: "\r")
                    case UInt8(ascii: "t"): out[count] = UInt8(ascii: "\t")
                    case UInt8(ascii: "b"): out[count] = 8
                    case UInt8(ascii: "f"): out[count] = 12
                    default: return nil
                    }
                    count += 1
                    position += 2
                    continue
                }
                if byte < 0x20 { return nil }
                out[count] = byte
                count += 1
                position += 1
            }
            return nil
        }
        guard let written else { return nil }
        index = position
        bytes.count = written
        return bytes
    }
}
