import Capture
import Foundation
import Synchronization
import Testing

/// A temporary directory, removed after `body`.
func withDirectory<T>(_ body: (URL) throws -> T) throws -> T {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("capture-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    return try body(directory)
}

/// A clock the test moves by hand, in nanoseconds since the Unix epoch.
final class ManualClock: Sendable {
    private let value = Mutex<Int64>(1_795_000_000_000_000_000)
    var now: Int64 { value.withLock { $0 } }
    func advance(_ duration: Duration) { value.withLock { $0 += Int64(duration.components.seconds) * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000 } }
    var read: @Sendable () -> Int64 { { self.now } }
}

/// `count` records with envelopes that need escaping (quotes, a backslash, a newline, a tab, non-ASCII).
func sampleRecords(_ count: Int, from start: Int64 = 1_795_000_000_000_000_000) -> [CaptureRecord] {
    (0..<count).map { index in
        let envelope = #"{"type":"quote","seq":\#(index + 1),"source":"bitso","data":{"note":"a \"b\" \\ c\n\td €"}}"#
        return CaptureRecord(received: start + Int64(index) * 1_000, topic: "quote.bitso.BTC-MXN", envelope: Data(envelope.utf8))
    }
}

/// Every record of every file of `directory`, in order.
func readAll(_ directory: URL) throws -> [CaptureRecord] {
    var records: [CaptureRecord] = []
    for file in try CaptureReader.files(at: directory) {
        try CaptureReader.forEach(in: file) { records.append($0) }
    }
    return records
}

@Suite struct CaptureFormatTests {
    /// What is written is read back byte for byte, after a header naming the endpoints and prefixes.
    @Test func roundTrip() throws {
        try withDirectory { directory in
            let records = sampleRecords(1_000)
            let writer = try CaptureWriter(directory: directory, endpoints: ["tcp://127.0.0.1:7102"], prefixes: ["quote.", "price."])
            for record in records { try writer.append(record) }
            try writer.close()
            #expect(writer.files.count == 1)
            let reader = try CaptureReader(url: writer.files[0])
            #expect(reader.header.format == "tickwire-capture")
            #expect(reader.header.version == 1)
            #expect(reader.header.endpoints == ["tcp://127.0.0.1:7102"])
            #expect(reader.header.prefixes == ["quote.", "price."])
            var read: [CaptureRecord] = []
            while let record = try reader.next() { read.append(record) }
            #expect(read == records)
        }
    }

    /// The header's start time is RFC 3339 UTC with microseconds.
    @Test func startTimeIsRFC3339() {
        #expect(CaptureTime.rfc3339(nanoseconds: 1_795_000_000_123_456_789) == "2026-11-18T11:06:40.123456Z")
        #expect(CaptureTime.rfc3339(nanoseconds: 0) == "1970-01-01T00:00:00.000000Z")
    }

    /// A file rotates once its compressed size passes the limit: several files, each with its header, nothing lost.
    @Test func rotatesBySize() throws {
        try withDirectory { directory in
            let records = sampleRecords(20_000)
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [], rotation: CaptureRotation(maxBytes: 16_384))
            for record in records { try writer.append(record) }
            try writer.close()
            #expect(writer.files.count > 2)
            #expect(try CaptureReader.files(at: directory) == writer.files)
            for file in writer.files { #expect(try CaptureReader(url: file).header.endpoints == ["e"]) }
            #expect(try readAll(directory) == records)
        }
    }

    /// A file rotates once it is older than the limit, at a record or at a tick.
    @Test func rotatesByTime() throws {
        try withDirectory { directory in
            let clock = ManualClock()
            let writer = try CaptureWriter(
                directory: directory, endpoints: ["e"], prefixes: [], rotation: CaptureRotation(maxDuration: .seconds(60)), clock: clock.read)
            let records = sampleRecords(6)
            for record in records[0..<2] { try writer.append(record) }
            clock.advance(.seconds(61))
            try writer.append(records[2])
            clock.advance(.seconds(30))
            try writer.append(records[3])
            clock.advance(.seconds(31))
            try writer.tick()
            try writer.append(records[4])
            try writer.append(records[5])
            try writer.close()
            #expect(writer.files.count == 3)
            let perFile = try writer.files.map { file -> Int in
                var count = 0
                try CaptureReader.forEach(in: file) { _ in count += 1 }
                return count
            }
            #expect(perFile == [2, 2, 2])
            #expect(try readAll(directory) == records)
        }
    }

    /// A file whose writer never closed it (a crash) reads up to its last flush, then says it was cut short, naming
    /// the file, the next record's number and its offset.
    @Test func unfinishedFileReadsUpToItsLastFlush() throws {
        try withDirectory { directory in
            let clock = ManualClock()
            let records = sampleRecords(300)
            var writer: CaptureWriter? = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [], clock: clock.read)
            for record in records[0..<200] { try writer?.append(record) }
            clock.advance(.seconds(1))
            try writer?.tick()
            for record in records[200...] { try writer?.append(record) }
            let file = try #require(writer?.files.first)
            writer = nil
            let reader = try CaptureReader(url: file)
            var read: [CaptureRecord] = []
            let error = try #require(throws: CaptureError.self) {
                while let record = try reader.next() { read.append(record) }
            }
            #expect(read == Array(records[0..<200]))
            #expect(error.file == file.path)
            #expect(error.record == 201)
            #expect(error.offset == lineOffset(of: 200, in: records, file: file))
            #expect(error.description.contains("record 201 at byte \(error.offset)"))
        }
    }

    /// A file cut in the middle of a record yields the records before it, then an error at the cut record.
    @Test func truncatedFileStopsAtTheCutRecord() throws {
        try withDirectory { directory in
            let records = sampleRecords(500)
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
            for record in records { try writer.append(record) }
            try writer.close()
            let file = writer.files[0]
            let whole = try Data(contentsOf: file)
            // Find a cut that ends inside a record: the gzip stream decodes to some whole records and a part.
            try whole.prefix(whole.count * 2 / 3).write(to: file)
            let reader = try CaptureReader(url: file)
            var read: [CaptureRecord] = []
            let error = try #require(throws: CaptureError.self) {
                while let record = try reader.next() { read.append(record) }
            }
            #expect(read.count > 0 && read.count < records.count)
            #expect(read == Array(records[0..<read.count]))
            #expect(error.record == read.count + 1)
            #expect(error.offset == lineOffset(of: read.count, in: records, file: file))
        }
    }

    /// Corrupt compressed bytes, or a line that is not a record, stop the reader at that record with its offset.
    @Test func corruptFileStopsAtTheBadRecord() throws {
        try withDirectory { directory in
            let records = sampleRecords(3)
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
            for record in records { try writer.append(record) }
            try writer.close()
            let file = writer.files[0]
            var bytes = try Data(contentsOf: file)
            bytes[bytes.count / 2] ^= 0xFF
            bytes[bytes.count / 2 + 1] ^= 0x5A
            try bytes.write(to: file)
            #expect(throws: CaptureError.self) {
                try CaptureReader.forEach(in: file) { _ in }
            }

            // A well-compressed file whose second record is not JSON.
            let text = String(decoding: try gunzipped(records: records), as: UTF8.self).split(separator: "\n", omittingEmptySubsequences: false)
            let bad = directory.appendingPathComponent("bad.ndjson.gz")
            try gzip(Data((text[0...1] + ["{\"t\":1,\"topic\":"] + text[3...]).joined(separator: "\n").utf8), to: bad)
            let reader = try CaptureReader(url: bad)
            #expect(try reader.next() == records[0])
            let error = try #require(throws: CaptureError.self) { _ = try reader.next() }
            #expect(error.record == 2)
            #expect(error.offset == Int64(text[0].utf8.count + 1 + text[1].utf8.count + 1))
            #expect(try reader.next() == nil)
        }
    }

    /// A line of another writer (Python's `json.dumps`: spaces, members in another order, `\u` escapes) reads the same.
    @Test func otherWritersLinesRead() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("python.ndjson.gz")
            let header = #"{"format": "tickwire-capture", "version": 1, "started": "x", "endpoints": [], "prefixes": []}"#
            let line = #"{"topic": "quote.x.A-B", "t": 5, "envelope": "{\"a\":\"\u00e9\\n\"}"}"#
            try gzip(Data((header + "\n" + line + "\n").utf8), to: file)
            let reader = try CaptureReader(url: file)
            #expect(try reader.next() == CaptureRecord(received: 5, topic: "quote.x.A-B", envelope: Data(#"{"a":"é\n"}"#.utf8)))
            #expect(try reader.next() == nil)
        }
    }

    /// A file that is not a capture says so at record 0.
    @Test func notACapture() throws {
        try withDirectory { directory in
            let file = directory.appendingPathComponent("other.ndjson.gz")
            try gzip(Data("{\"format\":\"other\",\"version\":1,\"started\":\"x\",\"endpoints\":[],\"prefixes\":[]}\n".utf8), to: file)
            let error = try #require(throws: CaptureError.self) { _ = try CaptureReader(url: file) }
            #expect(error.record == 0)
            #expect(error.detail.contains("tickwire-capture"))
        }
    }

    /// An envelope that is not UTF-8 is refused, and nothing of it is written.
    @Test func nonUTF8EnvelopeIsRefused() throws {
        try withDirectory { directory in
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
            try writer.append(sampleRecords(1)[0])
            #expect(throws: CaptureError.self) {
                try writer.append(CaptureRecord(received: 1, topic: "quote.x.A-B", envelope: Data([0x7B, 0xFF, 0x7D])))
            }
            try writer.close()
            #expect(try readAll(directory) == sampleRecords(1))
        }
    }
}

/// The decompressed offset of record `index`'s line (0-based; the header is the line before) in `file`.
func lineOffset(of index: Int, in records: [CaptureRecord], file: URL) -> Int64 {
    let text = (try? gunzip(file)) ?? Data()
    var offset: Int64 = 0
    var line = 0
    for byte in text {
        if line == index + 1 { break }
        offset += 1
        if byte == UInt8(ascii: "\n") { line += 1 }
    }
    return offset
}

/// What `gzip -dc` makes of `file` (as much as it can of a file cut short).
func gunzip(_ file: URL) throws -> Data {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "gzip -dc < \"$0\" 2>/dev/null; true", file.path]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return data
}

/// `data` gzipped into `file` by `gzip`.
func gzip(_ data: Data, to file: URL) throws {
    let plain = file.deletingPathExtension()
    try data.write(to: plain)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", "gzip -c < \"$0\" > \"$1\"", plain.path, file.path]
    try process.run()
    process.waitUntilExit()
    try FileManager.default.removeItem(at: plain)
}

/// The decompressed text of a capture of `records`.
func gunzipped(records: [CaptureRecord]) throws -> Data {
    try withDirectory { directory in
        let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
        for record in records { try writer.append(record) }
        try writer.close()
        return try gunzip(writer.files[0])
    }
}

@Suite struct DocumentedPythonReaderTests {
    /// docs/capture.md's Python reader (standard library only) reads a capture this library wrote: every record's time,
    /// topic, envelope seq and data, in order.
    @Test func pythonReaderReadsACapture() throws {
        let docs = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("docs/capture.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let section = try #require(text.range(of: "## Reading it with Python's standard library"))
        let start = try #require(text.range(of: "```python\n", range: section.upperBound..<text.endIndex))
        let end = try #require(text.range(of: "```", range: start.upperBound..<text.endIndex))
        let reader = String(text[start.upperBound..<end.lowerBound])
        #expect(reader.split(separator: "\n").count <= 15, "the reader stays about 10 lines")
        try withDirectory { directory in
            let records = sampleRecords(3)
            let writer = try CaptureWriter(directory: directory, endpoints: ["e"], prefixes: [])
            for record in records { try writer.append(record) }
            try writer.close()
            let script = directory.appendingPathComponent("reader.py")
            try reader.write(to: script, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
            process.arguments = ["python3", script.path, writer.files[0].path]
            let pipe = Pipe()
            process.standardOutput = pipe
            try process.run()
            let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.count == 3)
            #expect(lines.first == "\(records[0].received) quote.bitso.BTC-MXN 1 {'note': 'a \"b\" \\\\ c\\n\\td €'}")
        }
    }
}
