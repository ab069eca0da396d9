import BusContract
import Foundation
import Synchronization
import Tracing
import WireJSON

/// The body of every stream message: `{"version","type","seq","time","source","data"}`, and the W3C trace
/// context it was published in (`traceparent`, `tracestate`) when there is one.
public struct Envelope<Payload: Codable & Sendable>: Codable, Sendable {
    /// The envelope's version (``EnvelopeVersion``); a reader refuses one it does not know.
    public var version: Int
    /// What `data` is, e.g. `quote`, `rate`, `heartbeat`.
    public var type: String
    /// Position in this publisher's sequence for the topic, starting at 1, one more per message.
    public var seq: UInt64
    /// When it was published (UTC, milliseconds on the wire).
    public var time: Date
    /// Who produced the data (a feed such as `bitso`, or a service).
    public var source: String
    /// The W3C `traceparent` of the span it was published in; absent outside one or without a tracer.
    public var traceparent: String?
    /// The W3C `tracestate` that goes with ``traceparent``; absent when empty.
    public var tracestate: String?
    /// The payload.
    public var data: Payload

    /// An envelope around `data`, of the current version, with `trace` (see ``TraceContext``) if given.
    /// Inlinable, so a publish that knows the payload's type builds it without a generic copy of the payload.
    @inlinable
    public init(type: String, seq: UInt64, time: Date, source: String, trace: TraceContext? = nil, data: Payload) {
        self.version = EnvelopeVersion.current
        self.type = type
        self.seq = seq
        self.time = time
        self.source = source
        self.traceparent = trace?.traceparent
        self.tracestate = trace?.tracestate
        self.data = data
    }

    /// The envelope of `header` around `data`, built in one step (no payload copied by setting members afterwards).
    @inlinable @inline(__always)
    init(_ header: EnvelopeHeader, around data: Payload) {
        version = header.version
        type = header.type
        seq = header.seq
        time = header.time
        source = header.source
        traceparent = header.traceparent
        tracestate = header.tracestate
        self.data = data
    }

    /// The trace context it carries, nil without a `traceparent`.
    public var trace: TraceContext? {
        TraceContext(members: traceparent, tracestate: tracestate)
    }

    private enum CodingKeys: String, CodingKey { case version, type, seq, time, source, traceparent, tracestate, data }

    /// Reads an envelope; one without `version` (written before envelopes had one) is version 1, one of a
    /// version this reader does not know is refused.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try EnvelopeHeader.checked(container.decodeIfPresent(Int.self, forKey: .version), codingPath: container.codingPath)
        type = try container.decode(String.self, forKey: .type)
        seq = try container.decode(UInt64.self, forKey: .seq)
        time = try container.decode(Date.self, forKey: .time)
        source = try container.decode(String.self, forKey: .source)
        traceparent = container.traceMember(forKey: .traceparent)
        tracestate = container.traceMember(forKey: .tracestate)
        data = try container.decode(Payload.self, forKey: .data)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(version, forKey: .version)
        try container.encode(type, forKey: .type)
        try container.encode(seq, forKey: .seq)
        try container.encode(time, forKey: .time)
        try container.encode(source, forKey: .source)
        try container.encodeIfPresent(traceparent, forKey: .traceparent)
        try container.encodeIfPresent(tracestate, forKey: .tracestate)
        try container.encode(data, forKey: .data)
    }
}

extension Envelope: Equatable where Payload: Equatable {}

/// An envelope's fields without its data: what the bus reads to route and sequence.
public struct EnvelopeHeader: Decodable, Sendable, Equatable {
    /// See ``Envelope/version``.
    public var version: Int
    /// See ``Envelope/type``.
    public var type: String
    /// See ``Envelope/seq``.
    public var seq: UInt64
    /// See ``Envelope/time``.
    public var time: Date
    /// See ``Envelope/source``.
    public var source: String
    /// See ``Envelope/traceparent``.
    public var traceparent: String?
    /// See ``Envelope/tracestate``.
    public var tracestate: String?

    private enum CodingKeys: String, CodingKey { case version, type, seq, time, source, traceparent, tracestate }

    /// Reads what ``Envelope/init(from:)`` reads, without the data.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try Self.checked(container.decodeIfPresent(Int.self, forKey: .version), codingPath: container.codingPath)
        type = try container.decode(String.self, forKey: .type)
        seq = try container.decode(UInt64.self, forKey: .seq)
        time = try container.decode(Date.self, forKey: .time)
        source = try container.decode(String.self, forKey: .source)
        traceparent = container.traceMember(forKey: .traceparent)
        tracestate = container.traceMember(forKey: .tracestate)
    }

    /// `version` if this reader knows it, 1 when it is absent; else a `dataCorrupted` error that says which versions it reads.
    @inlinable
    public static func checked(_ version: Int?, codingPath: [any CodingKey]) throws -> Int {
        guard let version else { return 1 }
        guard EnvelopeVersion.readable.contains(version) else {
            throw DecodingError.dataCorrupted(.init(
                codingPath: codingPath + [VersionKey()],
                debugDescription: "unsupported envelope version \(version): this reader knows versions \(EnvelopeVersion.readable.lowerBound) to \(EnvelopeVersion.readable.upperBound); upgrade it to read this publisher"))
        }
        return version
    }

    /// The `version` member, for the error of ``checked(_:codingPath:)``.
    @usableFromInline
    struct VersionKey: CodingKey {
        @usableFromInline var stringValue: String { "version" }
        @usableFromInline var intValue: Int? { nil }
        @usableFromInline init() {}
        @usableFromInline init?(stringValue: String) { nil }
        @usableFromInline init?(intValue: Int) { nil }
    }
}

/// One message from a stream: its topic, its header, and the JSON body to decode.
///
/// The body is checked once, here: a canonical envelope (the order and form Tickwire writes) by the direct header
/// read (``EnvelopeHeader/readWirePrefix(_:)``) and a step over its data, which leave the data where it is; anything
/// else by the tape's parse, which refuses what is not valid JSON. ``decode(_:)`` reads the payload from there.
public struct BusMessage: Sendable, Equatable {
    /// The topic frame.
    public let topic: Topic
    /// The envelope's fields.
    public let header: EnvelopeHeader
    /// The whole envelope JSON, as it came off the wire.
    public let body: Data
    /// The tape's parse of `body`, when the direct header read did not read it; nil when it did.
    @usableFromInline
    let document: WireDocument?
    /// Where the envelope's `data` value is in `body`, when the direct header read read it.
    @usableFromInline
    let dataRange: Range<Int>?

    /// Parses the two frames `[topic, json]` of a stream message.
    public init(frames: [Data]) throws {
        guard frames.count == 2 else { throw BusError.malformedFrames(count: frames.count) }
        try self.init(topic: TopicFrames.topic(of: frames[0]), body: frames[1])
    }

    /// Parses a topic and its envelope JSON.
    public init(topic: String, body: Data) throws {
        try self.init(topic: Topic(topic), body: body)
    }

    /// Parses the envelope JSON of a checked topic.
    init(topic: Topic, body: Data) throws {
        self.topic = topic
        self.body = body
        if let (header, dataRange) = Self.readCanonical(body) {
            self.header = header
            self.dataRange = dataRange
            document = nil
            return
        }
        do {
            let (document, header) = try Wire.parse(body) { try EnvelopeHeader(wire: $0) }
            self.document = document
            self.header = header
            dataRange = nil
        } catch {
            throw BusError.malformedEnvelope(topic: topic.rawValue, reason: describe(error))
        }
    }

    /// The header and where the data is, when `body` is a canonical envelope whose data is certainly valid JSON
    /// (``WireCursor/skipValue(depth:)``), all within the wire decoder's limits; nil for anything else, which the
    /// tape then reads and judges.
    private static func readCanonical(_ body: Data) -> (EnvelopeHeader, Range<Int>)? {
        let limits = Wire.decoder.limits
        // Within these the direct reads accept nothing the tape refuses (``WireJSONDecoder/decodeDirect(_:from:)``'s check).
        guard limits.maxDepth >= 16, limits.maxNumberLength >= 40 else { return nil }
        return body.withUnsafeBytes { bytes -> (EnvelopeHeader, Range<Int>)? in
            guard limits.maxStringLength >= bytes.count else { return nil }
            var cursor = WireCursor(bytes)
            guard let header = EnvelopeHeader.readWirePrefix(&cursor) else { return nil }
            let start = cursor.offset
            guard cursor.skipValue() else { return nil }
            let end = cursor.offset
            guard cursor.expect("}"), cursor.isAtEnd else { return nil }
            return (header, start..<end)
        }
    }

    /// The trace context the message was published in, nil when it carries none.
    public var trace: TraceContext? {
        TraceContext(members: header.traceparent, tracestate: header.tracestate)
    }

    /// The `ServiceContext` to handle the message in, so the trace it was published in goes on: its trace
    /// context as the bootstrapped tracer reads it (empty when unreadable: a fresh trace), nil when it
    /// carries none. `ServiceContext.withValue(message.serviceContext ?? .current) { ... }`.
    public var serviceContext: ServiceContext? { trace?.serviceContext }

    /// Decodes the envelope if the message belongs to `stream`, else nil.
    @inlinable
    public func decode<Payload>(_ stream: TopicSpec<Payload>) throws -> Envelope<Payload>? {
        stream.matches(topic) ? try decode(Payload.self) : nil
    }

    /// Decodes the envelope if the message belongs to `stream`, else nil: the overload for a direct payload.
    @inlinable
    public func decode<Payload: DirectWireDecodable>(_ stream: TopicSpec<Payload>) throws -> Envelope<Payload>? {
        stream.matches(topic) ? try decode(Payload.self) : nil
    }

    /// Decodes the whole envelope with its typed payload. Inlinable, so the payload's decoding
    /// specializes where its type is known.
    @inlinable
    public func decode<Payload>(_ type: Payload.Type = Payload.self) throws -> Envelope<Payload> {
        try decodeWithTape(Payload.self)
    }

    /// Decodes the whole envelope with a direct payload: ``DirectWireDecodable/readWire(_:)`` over the data where
    /// the header was read directly and the data is canonical, else as the generic overload does (same value, same error).
    @inlinable
    public func decode<Payload: DirectWireDecodable>(_ type: Payload.Type = Payload.self) throws -> Envelope<Payload> {
        if let dataRange, let data = body.withUnsafeBytes({ bytes -> Payload? in
            var cursor = WireCursor(UnsafeRawBufferPointer(rebasing: bytes[dataRange]))
            guard let data = Payload.readWire(&cursor), cursor.isAtEnd else { return nil }
            return data
        }) {
            return Envelope(header, around: data)
        }
        return try decodeWithTape(Payload.self)
    }

    /// The payload decoded by the tape from the data's bytes alone where the header was read directly, else (or when
    /// that fails, for the error's coding path from the envelope's top) from the whole body's parse.
    @inlinable
    func decodeWithTape<Payload>(_ type: Payload.Type) throws -> Envelope<Payload> {
        if let dataRange, let data = body.withUnsafeBytes({ bytes in
            try? Wire.decoder.decode(Payload.self, from: UnsafeRawBufferPointer(rebasing: bytes[dataRange]))
        }) {
            return Envelope(header, around: data)
        }
        return try decodeFromDocument(Payload.self)
    }

    /// Today's decode: the payload from the tape's parse of the whole body (made here when the header was read
    /// directly), with its errors' coding paths from the envelope's top.
    @inlinable
    func decodeFromDocument<Payload>(_ type: Payload.Type) throws -> Envelope<Payload> {
        do {
            let document = try self.document ?? Wire.parse(body) { _ in () }.document
            return Envelope(header, around: try Wire.decode(Payload.self, forKey: "data", from: document))
        } catch {
            throw BusError.malformedEnvelope(topic: topic.rawValue, reason: describe(error))
        }
    }

    /// Equal when topic, header and body are.
    public static func == (lhs: BusMessage, rhs: BusMessage) -> Bool {
        lhs.topic == rhs.topic && lhs.header == rhs.header && lhs.body == rhs.body
    }
}

/// The topics of topic frames, each checked once (``Topic/init(_:)``) and then found by its bytes: a small table per
/// slot chosen by the calling thread (as ``Wire``'s spare buffers), indexed by the frame's length and last bytes. A
/// frame that is not there, or a slot another thread holds, is read and checked as ``BusMessage/init(topic:body:)`` does.
final class TopicFrames: Sendable {
    /// Topics by ``index(_:)``; empty until the slot's first topic.
    private let table = Mutex<[Topic?]>([])

    /// The slots (as many as ``Wire/SpareBuffer``'s).
    private static let slots: [TopicFrames] = (0..<16).map { _ in TopicFrames() }

    /// Entries per table (a power of two).
    private static let entries = 64

    /// The topic a topic frame names; throws ``BusError/invalidTopic(_:)`` as ``Topic/init(_:)`` does.
    static func topic(of frame: Data) throws -> Topic {
        let slot = slots[Wire.SpareBuffer.slot]
        let found = frame.withUnsafeBytes { bytes -> Topic? in
            let index = index(bytes)
            return slot.table.withLockIfAvailable { table -> Topic? in
                guard index < table.count, let topic = table[index] else { return nil }
                let same = topic.rawValue.utf8.withContiguousStorageIfAvailable { text in
                    text.count == bytes.count && (bytes.isEmpty || memcmp(text.baseAddress!, bytes.baseAddress!, bytes.count) == 0)
                }
                return same == true ? topic : nil
            } ?? nil
        }
        if let found { return found }
        let topic = try Topic(String(decoding: frame, as: UTF8.self))
        frame.withUnsafeBytes { bytes in
            let index = index(bytes)
            slot.table.withLockIfAvailable { table in
                if table.isEmpty { table = Array(repeating: nil, count: entries) }
                table[index] = topic
            }
        }
        return topic
    }

    /// The table position of a frame: its length mixed with its last 8 bytes (where topics of one kind and source differ).
    private static func index(_ bytes: UnsafeRawBufferPointer) -> Int {
        var word = UInt64(bytes.count)
        if bytes.count >= 8 {
            word ^= bytes.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)
        } else {
            for byte in bytes { word = word << 8 | UInt64(byte) }
        }
        return Int(truncatingIfNeeded: (word &* 0x9E37_79B9_7F4A_7C15) >> 58) & (entries - 1)
    }
}

/// A short human reason for a decoding failure: what was wrong, and where.
public func describe(_ error: any Error) -> String {
    guard let decoding = error as? DecodingError else { return String(describing: error) }
    func path(_ codingPath: [any CodingKey]) -> String {
        codingPath.isEmpty ? "the top level" : codingPath.map { $0.intValue.map(String.init) ?? $0.stringValue }
            .joined(separator: ".")
    }
    switch decoding {
    case .keyNotFound(let key, let context):
        return "missing \"\((context.codingPath + [key]).map(\.stringValue).joined(separator: "."))\""
    case .typeMismatch(let type, let context):
        return "\(path(context.codingPath)) should be \(type)"
    case .valueNotFound(let type, let context):
        return "\(path(context.codingPath)) should be \(type), found null"
    case .dataCorrupted(let context):
        let underlying = context.underlyingError.map { ": \($0)" } ?? ""
        return context.codingPath.isEmpty
            ? "not valid JSON\(underlying)"
            : "\(path(context.codingPath)): \(context.debugDescription)"
    @unknown default:
        return String(describing: error)
    }
}

extension Envelope: WireCodable {
    /// The members of the `Codable` conformance, in its order (see ``WireCodable``).
    /// Inlinable, as is `init(wire:)`: specialized for a payload type, its member is coded without
    /// a conformance look-up at run time.
    @inlinable
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(version, forKey: "version")
        try object.encode(type, forKey: "type")
        try object.encode(seq, forKey: "seq")
        try object.encode(time, forKey: "time")
        try object.encode(source, forKey: "source")
        try object.encodeIfPresent(traceparent, forKey: "traceparent")
        try object.encodeIfPresent(tracestate, forKey: "tracestate")
        try object.encode(data, forKey: "data")
    }

    /// Reads what `init(from:)` reads.
    @inlinable
    public init(wire object: WireObjectReader) throws {
        let version = try EnvelopeHeader.checked(object.decodeIfPresent(forKey: "version"), codingPath: [])
        self.init(
            type: try object.decode(forKey: "type"), seq: try object.decode(forKey: "seq"),
            time: try object.decode(forKey: "time"), source: try object.decode(forKey: "source"),
            data: try object.decode(forKey: "data"))
        self.version = version
        self.traceparent = object.traceMember(forKey: "traceparent")
        self.tracestate = object.traceMember(forKey: "tracestate")
    }
}

extension EnvelopeHeader: WireDecodable {
    /// Reads what `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        version = try EnvelopeHeader.checked(object.decodeIfPresent(forKey: "version"), codingPath: [])
        type = try object.decode(forKey: "type")
        seq = try object.decode(forKey: "seq")
        time = try object.decode(forKey: "time")
        source = try object.decode(forKey: "source")
        traceparent = object.traceMember(forKey: "traceparent")
        tracestate = object.traceMember(forKey: "tracestate")
    }
}
