/// A stream topic: `kind.source.KEY`, e.g. `quote.bitso.BTC-MXN`, `status.bitso`, `price.BTC.SEK`.
///
/// Components are non-empty runs of letters, digits, `-` and `_`, joined by dots;
/// subscribers filter by prefix, so `quote.` receives every quote and
/// `quote.bitso.` every Bitso quote.
public struct Topic: Hashable, Sendable, Codable, CustomStringConvertible, Comparable {
    /// The topic as sent in the first frame.
    public let rawValue: String
    /// `rawValue`'s hash, computed once: topics key the publisher's and the subscriber's tables on every message, and
    /// hashing the text there each time was a tenth of a subscriber's cost per message.
    private let rawHash: Int

    /// A topic from its text; throws for an empty component or a character outside the grammar.
    public init(_ rawValue: String) throws(BusError) {
        guard Topic.isValid(rawValue) else { throw .invalidTopic(rawValue) }
        self.rawValue = rawValue
        rawHash = rawValue.hashValue
    }

    /// A topic spelled out in code, e.g. `Topic(constant: "portfolio.changed")`; the text must follow the grammar.
    public init(constant: StaticString) {
        let text = constant.description
        precondition(Topic.isValid(text), "invalid topic constant \(text)")
        self.rawValue = text
        rawHash = text.hashValue
    }

    /// A topic from its parts; `key` may be left out (`status.bitso`).
    public init(kind: String, source: String, key: String? = nil) throws(BusError) {
        try self.init([kind, source, key].compactMap { $0 }.joined(separator: "."))
    }

    /// The first component: what the message is (`quote`, `rate`, `heartbeat`, ...).
    public var kind: Substring { rawValue[..<(firstDot ?? rawValue.endIndex)] }
    /// The second component: who produced it (`bitso`, `ecb`, or an asset for `price`).
    public var source: Substring? {
        guard let firstDot else { return nil }
        let start = rawValue.utf8.index(after: firstDot)
        return rawValue[start..<(dot(after: start) ?? rawValue.endIndex)]
    }
    /// The rest after `kind.source.`, if any.
    public var key: Substring? {
        guard let firstDot, let secondDot = dot(after: rawValue.utf8.index(after: firstDot)) else { return nil }
        return rawValue[rawValue.utf8.index(after: secondDot)...]
    }

    // The components are found by scanning the UTF-8 bytes for dots: splitting the `String` by
    // `Character` runs grapheme breaking, which made these getters the publisher's largest cost.
    private var firstDot: String.Index? { dot(after: rawValue.startIndex) }

    private func dot(after start: String.Index) -> String.Index? {
        rawValue.utf8[start...].firstIndex(of: UInt8(ascii: "."))
    }

    public var description: String { rawValue }

    public static func < (lhs: Topic, rhs: Topic) -> Bool { lhs.rawValue < rhs.rawValue }

    /// Equal when the texts are (their hashes compared first).
    public static func == (lhs: Topic, rhs: Topic) -> Bool { lhs.rawHash == rhs.rawHash && lhs.rawValue == rhs.rawValue }

    /// Hashes the text's hash, computed once.
    public func hash(into hasher: inout Hasher) { hasher.combine(rawHash) }

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        try self.init(text)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    static func isValid(_ text: String) -> Bool {
        // Over the contiguous UTF-8 bytes (every native string has them): iterating `utf8` a byte at a
        // time made this check a tenth of a subscriber's parse of a message.
        text.utf8.withContiguousStorageIfAvailable { isValid(bytes: $0) } ?? isValid(bytes: Array(text.utf8))
    }

    private static func isValid(bytes: some Collection<UInt8>) -> Bool {
        var componentLength = 0
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "."):
                if componentLength == 0 { return false }
                componentLength = 0
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                componentLength += 1
            default:
                return false
            }
        }
        return componentLength > 0
    }
}

/// Errors of the bus that are not ZeroMQ's or JSON-RPC's.
public enum BusError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A topic outside the `kind.source.KEY` grammar.
    case invalidTopic(String)
    /// A stream message that is not two frames `[topic, json]`.
    case malformedFrames(count: Int)
    /// A stream message whose JSON is not an envelope.
    case malformedEnvelope(topic: String, reason: String)

    public var description: String {
        switch self {
        case .invalidTopic(let text): "invalid topic \"\(text)\": expected kind.source.KEY of letters, digits, - and _"
        case .malformedFrames(let count): "expected two frames [topic, json], got \(count)"
        case .malformedEnvelope(let topic, let reason): "malformed envelope on \(topic): \(reason)"
        }
    }
}
