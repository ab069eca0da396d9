import Foundation

/// A JSON value: what a schema is made of, and what the validator checks.
public enum JSONValue: Sendable, Hashable, Codable, ExpressibleByStringLiteral, ExpressibleByDictionaryLiteral,
    ExpressibleByArrayLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral {
    case null
    case bool(Bool)
    case integer(Int)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .integer(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// Parses JSON text.
    public init(parsing data: Data) throws {
        self = try JSONDecoder().decode(JSONValue.self, from: data)
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { self = .null }
        else if let value = try? container.decode(Bool.self) { self = .bool(value) }
        else if let value = try? container.decode(Int.self) { self = .integer(value) }
        else if let value = try? container.decode(Double.self) { self = .number(value) }
        else if let value = try? container.decode(String.self) { self = .string(value) }
        else if let value = try? container.decode([JSONValue].self) { self = .array(value) }
        else { self = .object(try container.decode([String: JSONValue].self)) }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .null: try container.encodeNil()
        case .bool(let value): try container.encode(value)
        case .integer(let value): try container.encode(value)
        case .number(let value): try container.encode(value)
        case .string(let value): try container.encode(value)
        case .array(let value): try container.encode(value)
        case .object(let value): try container.encode(value)
        }
    }

    /// The member `key` of an object, else nil.
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { members[key] } else { nil }
    }

    /// The text of a string, else nil.
    public var string: String? { if case .string(let text) = self { text } else { nil } }

    /// The elements of an array, else nil.
    public var array: [JSONValue]? { if case .array(let elements) = self { elements } else { nil } }

    /// Pretty JSON with sorted keys and a final newline: the committed documents' form, stable from run to run.
    public func rendered() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self) + "\n"
    }

    /// The value with every `$ref` to `#/$defs/` pointed at `prefix` instead (e.g. `#/components/schemas/`).
    public func rebasingReferences(to prefix: String) -> JSONValue {
        switch self {
        case .array(let elements): return .array(elements.map { $0.rebasingReferences(to: prefix) })
        case .object(var members):
            for (key, value) in members {
                if key == "$ref", let target = value.string, target.hasPrefix(JSONSchema.definitionsPrefix) {
                    members[key] = .string(prefix + target.dropFirst(JSONSchema.definitionsPrefix.count))
                } else {
                    members[key] = value.rebasingReferences(to: prefix)
                }
            }
            return .object(members)
        default: return self
        }
    }
}
