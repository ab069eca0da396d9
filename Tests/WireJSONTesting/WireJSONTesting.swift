import Foundation
import Money
import WireJSON

// What the tests of the wire coders share: Foundation's coders as the reference, a JSON value
// type, and random edits of JSON text.

/// Any JSON value, decoded the same way by every decoder: what the syntax tests compare.
public enum JSONValue: Codable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(from decoder: any Decoder) throws {
        if let container = try? decoder.singleValueContainer() {
            if container.decodeNil() { self = .null; return }
            if let value = try? container.decode(Bool.self) { self = .bool(value); return }
            if let value = try? container.decode(Double.self) { self = .number(value); return }
            if let value = try? container.decode(String.self) { self = .string(value); return }
            do {
                self = .array(try container.decode([JSONValue].self))
                return
            } catch let arrayError {
                // An array that fails inside (a number Foundation cannot read, found by the fuzzer) fails with
                // its element's error, not with the object's "found an array instead".
                do {
                    self = .object(try container.decode([String: JSONValue].self))
                    return
                } catch let objectError as DecodingError {
                    guard case .typeMismatch(_, let context) = objectError, context.debugDescription.hasSuffix("but found an array instead.") else {
                        throw objectError
                    }
                    throw arrayError
                }
            }
        }
        self = .object(try decoder.singleValueContainer().decode([String: JSONValue].self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }
}

/// A deterministic random source, so a failing case can be replayed.
public struct SplitMix64: RandomNumberGenerator {
    public var state: UInt64
    public init(state: UInt64) { self.state = state }
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Bytes that make JSON interesting to break.
private let syntaxBytes = Array(#"{}[]:,"\/ntrfbu0123456789.-+eE aé"#.utf8) + [0x00, 0x1F, 0x7F, 0x80, 0xC3, 0xE2, 0xF0, 0xFF]

/// `bytes` with one random edit: a byte replaced, deleted, inserted or a span repeated, or cut short.
public func mutate(_ bytes: [UInt8], using random: inout SplitMix64) -> [UInt8] {
    var bytes = bytes
    guard !bytes.isEmpty else { return [syntaxBytes[Int(random.next() % UInt64(syntaxBytes.count))]] }
    let at = Int(random.next() % UInt64(bytes.count))
    let byte = random.next() % 4 == 0 ? UInt8(truncatingIfNeeded: random.next()) : syntaxBytes[Int(random.next() % UInt64(syntaxBytes.count))]
    switch random.next() % 5 {
    case 0: bytes[at] = byte
    case 1: bytes.remove(at: at)
    case 2: bytes.insert(byte, at: at)
    case 3:
        let end = min(bytes.count, at + 1 + Int(random.next() % 8))
        bytes.insert(contentsOf: bytes[at..<end], at: end)
    default: bytes.removeSubrange(at...)
    }
    return bytes
}

/// Foundation's coders set up with the wire's conventions: the reference the wire coders are tested against.
public enum Reference {
    public static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.userInfo[CodingUserInfoKey(rawValue: "tickwire.money.stringsOnly")!] = true
        decoder.dateDecodingStrategy = .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            // The wire's own date parser: Foundation's ISO8601FormatStyle also takes malformed dates
            // ("2026-1-18T11:6:40Z", "…T11:06:40123Z", February 30), which the wire refuses. WireDate is
            // tested against Foundation on its own; here the subject is the JSON.
            if let date = WireDate.parse(text) { return date }
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not an ISO 8601 date: \(text)")
        }
        return decoder
    }()

    public static let encoder = makeEncoder([.withoutEscapingSlashes])
    public static let sortedEncoder = makeEncoder([.withoutEscapingSlashes, .sortedKeys])

    private static func makeEncoder(_ formatting: JSONEncoder.OutputFormatting) -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = formatting
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(WireDate.format(date))
        }
        return encoder
    }
}

/// Whether two values are the same on the wire: sorted keys, dates to the millisecond (Foundation's
/// date parser can be one unit in the last place off the nearest `Double`).
public func sameOnWire<T: Encodable>(_ a: T, _ b: T) throws -> Bool {
    try Reference.sortedEncoder.encode(a) == Reference.sortedEncoder.encode(b)
}

/// Decodes `rounds` random edits of `json` as `T` with `decode` and with Foundation's reference decoder,
/// and lists every text on which they disagree: one accepts and the other refuses, or the values differ.
/// Yields now and then, so a long run leaves the cooperative threads to the tests that run beside it.
public func disagreementsWithFoundation<T: Codable>(
    _ json: Data, as type: T.Type, rounds: Int, seed: UInt64, decode: (Data) throws -> T
) async -> (disagreements: [String], accepted: Int) {
    var random = SplitMix64(state: seed)
    var disagreements: [String] = []
    var accepted = 0
    for round in 0..<rounds {
        if round % 20 == 0 { await Task.yield() }
        var bytes = Array(json)
        for _ in 0...(random.next() % 3) { bytes = mutate(bytes, using: &random) }
        switch disagreement(bytes, as: T.self, decode: decode) {
        case .some(let problem): disagreements.append(problem)
        case .none: if (try? decode(Data(bytes))) != nil { accepted += 1 }
        }
    }
    return (disagreements, accepted)
}

/// How `decode` and Foundation's reference decoder disagree on `bytes` as `T`: one accepts and the other
/// refuses, or the values differ; nil when they agree. A refusal for one of WireJSON's limits
/// (``WireJSONLimits``), which Foundation does not have, is no disagreement.
public func disagreement<T: Codable>(_ bytes: [UInt8], as type: T.Type, decode: (Data) throws -> T) -> String? {
    let data = Data(bytes)
    let text = String(decoding: bytes, as: UTF8.self)
    switch (Result { try decode(data) }, Result { try Reference.decoder.decode(T.self, from: data) }) {
    case (.success, .success) where String(validating: bytes, as: UTF8.self) == nil:
        return "the wire decoder accepts invalid UTF-8: \(text)"
    case (.success(let ours), .success(let theirs)):
        return (try? sameOnWire(ours, theirs)) == true ? nil : "values differ: \(text)"
    case (.failure, .failure):
        return nil
    case (.failure, .success) where String(validating: bytes, as: UTF8.self) == nil:
        // JSON text is UTF-8 (RFC 8259): the wire refuses invalid bytes that Foundation replaces.
        return nil
    case (.failure(let error), .success) where isRawControlCharacter(error) || syntaxError(error)?.limit != nil:
        // RFC 8259 forbids a raw control character in a string: the wire refuses it everywhere,
        // Foundation only in the strings it reads (not in the value of a key nobody asks for).
        return nil
    case (.failure(let error), .success) where syntaxError(error) != nil
        && (try? JSONSerialization.jsonObject(with: data, options: .fragmentsAllowed)) == nil:
        // Foundation's decoder checks only the strings it reads: a value nobody asks for (a repeated key's
        // second value, found by the fuzzer) may hold an invalid escape it lets through, which Foundation's
        // JSONSerialization, reading the whole text, refuses. The wire checks the whole text.
        return nil
    case (.failure, .success) where bytes.contains(0):
        // Foundation's decoder stops at a NUL byte outside a string and takes what came before it ("5\0"
        // reads as 5; found by the fuzzer): the wire refuses the NUL as text after the value, as RFC 8259 does.
        return nil
    case (.success, .failure(let error)) where foundationRefusedANumber(error):
        // Foundation's decoder on Linux cannot read some valid numbers as a Double ("-0.0e-1", "0e1", found by
        // the fuzzer; Swift's own Double("-0.0e-1") reads it): the wire reads them, as RFC 8259 allows.
        return nil
    case (.success, .failure(let error)):
        return "only the wire decoder accepts: \(text) (Foundation: \(error))"
    case (.failure(let error), .success):
        return "only Foundation accepts: \(text) (wire: \(error))"
    }
}

/// A value coded through its `Codable` conformance even when it is ``WireCodable``: the top level
/// goes through `encode(to:)`/`init(from:)` rather than the member-by-member fast path, which the
/// tests compare against it.
public struct ViaCodable<Value: Codable>: Codable {
    public var value: Value

    public init(_ value: Value) { self.value = value }
    public init(from decoder: any Decoder) throws { value = try Value(from: decoder) }
    public func encode(to encoder: any Encoder) throws { try value.encode(to: encoder) }
}

/// Whether a ``WireCodable`` value's fast path writes the same bytes as its `Codable` conformance,
/// and reads the same value as it from those bytes and from `rounds` random edits of them (or
/// refuses alike); any other type passes.
public func fastPathMatchesCodable<T: Codable>(_ value: T, rounds: Int = 200, seed: UInt64 = 1) throws -> Bool {
    guard T.self is any WireCodable.Type else { return true }
    let encoder = WireJSONEncoder(), decoder = WireJSONDecoder(userInfo: [ExactDecimal.stringsOnly: true])
    let fast = try encoder.encode(value)
    guard fast == (try encoder.encode(ViaCodable(value))) else { return false }
    var random = SplitMix64(state: seed)
    let edits = (0..<rounds).map { _ in Data(mutate(Array(fast), using: &random)) }
    for text in [fast] + edits {
        switch (Result { try decoder.decode(T.self, from: text) }, Result { try decoder.decode(ViaCodable<T>.self, from: text).value }) {
        case (.success(let a), .success(let b)): if try !sameOnWire(a, b) { return false }
        case (.failure, .failure): continue
        default: return false
        }
    }
    return true
}

/// How a ``DirectWireDecodable`` type's direct decode (``WireJSONDecoder/decodeDirect(_:from:)``: its in-order fast
/// path, else the tape) and the tape alone (``WireJSONDecoder/decode(_:from:)-(_,Data)``) disagree on `bytes`; nil
/// when they agree. Agreeing is the same value (`==`, and the same bytes when written again, so money keeps its
/// scale) or the same error, word for word. The fast path on its own (`readWire` reading the whole text) must
/// also read what the tape reads, within the default limits (tighter ones keep `decodeDirect` off it).
public func directDisagreement<T: DirectWireDecodable & Codable & Equatable>(
    _ bytes: [UInt8], as type: T.Type, decoder: WireJSONDecoder = WireJSONDecoder()
) -> String? {
    let text = String(decoding: bytes, as: UTF8.self)
    let direct = Result { try bytes.withUnsafeBytes { try decoder.decodeDirect(T.self, from: $0) } }
    let tape = Result { try decoder.decode(T.self, from: Data(bytes)) }
    let fast = bytes.withUnsafeBytes { bytes -> T? in
        var cursor = WireCursor(bytes)
        guard let value = T.readWire(&cursor), cursor.isAtEnd else { return nil }
        return value
    }
    switch (direct, tape) {
    case (.success(let ours), .success(let theirs)):
        guard sameValue(ours, theirs) else { return "\(T.self): the direct decode reads another value: \(text)" }
    case (.failure(let ours), .failure(let theirs)):
        guard "\(ours)" == "\(theirs)" else { return "\(T.self): the direct decode refuses otherwise (\(ours)) than the tape (\(theirs)): \(text)" }
    case (.success, .failure(let error)):
        return "\(T.self): only the direct decode accepts: \(text) (tape: \(error))"
    case (.failure(let error), .success):
        return "\(T.self): only the tape accepts: \(text) (direct: \(error))"
    }
    guard decoder.limits == .default else { return nil }
    switch (fast, tape) {
    case (.some(let ours), .success(let theirs)) where !sameValue(ours, theirs):
        return "\(T.self): the fast path reads another value: \(text)"
    case (.some, .failure(let error)):
        return "\(T.self): the fast path accepts what the tape refuses: \(text) (tape: \(error))"
    default:
        return nil
    }
}

/// Whether `a` and `b` are the same value: equal, and written as the same bytes through `Codable`.
private func sameValue<T: Codable & Equatable>(_ a: T, _ b: T) -> Bool {
    let encoder = WireJSONEncoder()
    return a == b && (try? encoder.encode(ViaCodable(a))) == (try? encoder.encode(ViaCodable(b)))
}

/// Whether the wire refused a text for a raw control character inside a string.
private func isRawControlCharacter(_ error: any Error) -> Bool {
    syntaxError(error)?.reason == "unescaped control character in a string"
}

/// Whether Foundation refused a JSON number it met where a ``JSONValue`` tried a `Double` and found it could not read it.
private func foundationRefusedANumber(_ error: any Error) -> Bool {
    guard case .typeMismatch(_, let context)? = error as? DecodingError else { return false }
    return context.debugDescription.hasSuffix("but found number instead.")
}

/// The syntax error behind a wire decoder's refusal of invalid JSON.
private func syntaxError(_ error: any Error) -> JSONSyntaxError? {
    guard case .dataCorrupted(let context)? = error as? DecodingError else { return nil }
    return context.underlyingError as? JSONSyntaxError
}
