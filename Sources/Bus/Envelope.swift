import Foundation
import WireJSON

/// The body of every stream message: `{"type","seq","time","source","data"}`.
public struct Envelope<Payload: Codable & Sendable>: Codable, Sendable {
    /// What `data` is, e.g. `quote`, `rate`, `heartbeat`.
    public var type: String
    /// Position in this publisher's sequence for the topic, starting at 1, one more per message.
    public var seq: UInt64
    /// When it was published (UTC, milliseconds on the wire).
    public var time: Date
    /// Who produced the data (a feed such as `bitso`, or a service).
    public var source: String
    /// The payload.
    public var data: Payload

    /// An envelope around `data`.
    public init(type: String, seq: UInt64, time: Date, source: String, data: Payload) {
        self.type = type
        self.seq = seq
        self.time = time
        self.source = source
        self.data = data
    }
}

extension Envelope: Equatable where Payload: Equatable {}

/// An envelope's fields without its data: what the bus reads to route and sequence.
public struct EnvelopeHeader: Decodable, Sendable, Equatable {
    /// See ``Envelope/type``.
    public var type: String
    /// See ``Envelope/seq``.
    public var seq: UInt64
    /// See ``Envelope/time``.
    public var time: Date
    /// See ``Envelope/source``.
    public var source: String
}

/// One message from a stream: its topic, its header, and the JSON body to decode.
///
/// The body is parsed once, here, which also checks that it is valid JSON; ``decode(_:)`` reads the
/// payload from that parse.
public struct BusMessage: Sendable, Equatable {
    /// The topic frame.
    public let topic: Topic
    /// The envelope's fields.
    public let header: EnvelopeHeader
    /// The whole envelope JSON, as it came off the wire.
    public var body: Data { document.data }
    @usableFromInline
    let document: WireDocument

    /// Parses the two frames `[topic, json]` of a stream message.
    public init(frames: [Data]) throws {
        guard frames.count == 2 else { throw BusError.malformedFrames(count: frames.count) }
        try self.init(topic: String(decoding: frames[0], as: UTF8.self), body: frames[1])
    }

    /// Parses a topic and its envelope JSON.
    public init(topic: String, body: Data) throws {
        self.topic = try Topic(topic)
        do {
            (document, header) = try Wire.parse(body) { try EnvelopeHeader(wire: $0) }
        } catch {
            throw BusError.malformedEnvelope(topic: topic, reason: describe(error))
        }
    }

    /// Decodes the envelope if the message belongs to `stream`, else nil.
    @inlinable
    public func decode<Payload>(_ stream: TopicSpec<Payload>) throws -> Envelope<Payload>? {
        stream.matches(topic) ? try decode(Payload.self) : nil
    }

    /// Decodes the whole envelope with its typed payload. Inlinable, so the payload's decoding
    /// specializes where its type is known.
    @inlinable
    public func decode<Payload>(_ type: Payload.Type = Payload.self) throws -> Envelope<Payload> {
        do {
            let data = try Wire.decode(Payload.self, forKey: "data", from: document)
            return Envelope(type: header.type, seq: header.seq, time: header.time, source: header.source, data: data)
        } catch {
            throw BusError.malformedEnvelope(topic: topic.rawValue, reason: describe(error))
        }
    }

    /// Equal when topic, header and body are.
    public static func == (lhs: BusMessage, rhs: BusMessage) -> Bool {
        lhs.topic == rhs.topic && lhs.header == rhs.header && lhs.body == rhs.body
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
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    /// Inlinable, as is `init(wire:)`: specialized for a payload type, its member is coded without
    /// a conformance look-up at run time.
    @inlinable
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(type, forKey: "type")
        try object.encode(seq, forKey: "seq")
        try object.encode(time, forKey: "time")
        try object.encode(source, forKey: "source")
        try object.encode(data, forKey: "data")
    }

    /// Reads what the synthesized `init(from:)` reads.
    @inlinable
    public init(wire object: WireObjectReader) throws {
        self.init(
            type: try object.decode(forKey: "type"), seq: try object.decode(forKey: "seq"),
            time: try object.decode(forKey: "time"), source: try object.decode(forKey: "source"),
            data: try object.decode(forKey: "data"))
    }
}

extension EnvelopeHeader: WireDecodable {
    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        type = try object.decode(forKey: "type")
        seq = try object.decode(forKey: "seq")
        time = try object.decode(forKey: "time")
        source = try object.decode(forKey: "source")
    }
}
