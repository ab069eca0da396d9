import Foundation

/// A capture's first line: what it is and what was followed (docs/capture.md).
public struct CaptureHeader: Codable, Sendable, Equatable {
    /// Always ``CaptureHeader/formatName``.
    public var format: String
    /// The format's version, ``CaptureHeader/currentVersion``.
    public var version: Int
    /// When the file was started, RFC 3339 UTC with microseconds.
    public var started: String
    /// The streams followed (`tcp://127.0.0.1:7102`, ...).
    public var endpoints: [String]
    /// The topic prefixes followed (`quote.`, ...); empty for every topic.
    public var prefixes: [String]

    /// The `format` of every capture.
    public static let formatName = "tickwire-capture"
    /// The version this library writes and reads.
    public static let currentVersion = 1

    /// A header of the current format, started at `started` (nanoseconds since the Unix epoch).
    public init(started: Int64, endpoints: [String], prefixes: [String]) {
        self.format = Self.formatName
        self.version = Self.currentVersion
        self.started = CaptureTime.rfc3339(nanoseconds: started)
        self.endpoints = endpoints
        self.prefixes = prefixes
    }

    /// Its line, without the newline; members in the documented order.
    var line: [UInt8] {
        var out = Array("{\"format\":".utf8)
        CaptureJSON.appendString(Array(format.utf8), to: &out)
        out += Array(",\"version\":\(version),\"started\":".utf8)
        CaptureJSON.appendString(Array(started.utf8), to: &out)
        out += Array(",\"endpoints\":".utf8)
        CaptureJSON.appendStrings(endpoints, to: &out)
        out += Array(",\"prefixes\":".utf8)
        CaptureJSON.appendStrings(prefixes, to: &out)
        out.append(UInt8(ascii: "}"))
        return out
    }
}

/// One captured message: when it arrived, its topic, and its envelope's bytes as they came.
public struct CaptureRecord: Sendable, Equatable {
    /// Receive time, nanoseconds since the Unix epoch (the line's `t`).
    public var received: Int64
    /// The topic frame (`quote.bitso.BTC-MXN`).
    public var topic: String
    /// The envelope frame: JSON text, UTF-8.
    public var envelope: Data

    /// A record of `envelope` on `topic`, received at `received` nanoseconds since the Unix epoch.
    public init(received: Int64, topic: String, envelope: Data) {
        self.received = received
        self.topic = topic
        self.envelope = envelope
    }

    /// Its line, without the newline: `{"t":N,"topic":"...","envelope":"..."}`; nil when the topic or envelope is
    /// not UTF-8 (JSON strings cannot carry other bytes).
    func line(into out: inout [UInt8]) -> Bool {
        let valid = envelope.withUnsafeBytes { String(validating: $0, as: UTF8.self) != nil }
        guard valid else { return false }
        out += Array("{\"t\":\(received),\"topic\":".utf8)
        CaptureJSON.appendString(Array(topic.utf8), to: &out)
        out += Array(",\"envelope\":".utf8)
        envelope.withUnsafeBytes { CaptureJSON.appendString($0, to: &out) }
        out.append(UInt8(ascii: "}"))
        return true
    }
}

/// Why a capture could not be written or read, and where: the file, the record (0 the header, 1 the first message)
/// and the byte offset of its line in the decompressed text.
public struct CaptureError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The file.
    public var file: String
    /// The bad record's number: 0 the header line, 1 the first message, ...
    public var record: Int
    /// Where the bad record's line starts, in bytes of the decompressed text.
    public var offset: Int64
    /// What was wrong.
    public var detail: String

    /// An error about `file` at `record`, `offset`.
    public init(file: String, record: Int, offset: Int64, _ detail: String) {
        self.file = file
        self.record = record
        self.offset = offset
        self.detail = detail
    }

    public var description: String { "\(file): record \(record) at byte \(offset): \(detail)" }
}

/// Capture times: nanoseconds since the Unix epoch, and their RFC 3339 form.
public enum CaptureTime {
    /// Now, in nanoseconds since the Unix epoch.
    public static func now() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }

    /// `nanoseconds` since the Unix epoch as RFC 3339 UTC with microseconds (`2026-11-26T18:25:00.123456Z`).
    public static func rfc3339(nanoseconds: Int64) -> String {
        let seconds = nanoseconds.quotientAndRemainder(dividingBy: 1_000_000_000)
        let (whole, fraction) = seconds.remainder < 0 ? (seconds.quotient - 1, seconds.remainder + 1_000_000_000) : seconds
        var time = time_t(whole)
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let micros = String(fraction / 1000)
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):"
            + "\(two(parts.tm_sec)).\(String(repeating: "0", count: 6 - micros.count))\(micros)Z"
    }
}

/// The few JSON pieces a capture line needs, written by hand (a line per message at 100,000 messages a second).
enum CaptureJSON {
    private static let hex = Array("0123456789abcdef".utf8)

    /// Appends `bytes` (UTF-8) as a JSON string: quotes, backslashes and control characters escaped.
    static func appendString(_ bytes: some Collection<UInt8>, to out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case UInt8(ascii: "\n"): out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case UInt8(ascii: "\r"): out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case UInt8(ascii: "\t"): out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: out += [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
    }

    /// Appends `strings` as a JSON array of strings.
    static func appendStrings(_ strings: [String], to out: inout [UInt8]) {
        out.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { out.append(UInt8(ascii: ",")) }
            appendString(Array(string.utf8), to: &out)
        }
        out.append(UInt8(ascii: "]"))
    }
}
