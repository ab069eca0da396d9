import BusContract
import Foundation
import Money

/// A contract type that describes its JSON form as a JSON Schema.
///
/// Implemented beside each type in this module (Swift cannot reflect a `Codable` conformance); the
/// ContractSchemaTests keep each schema true to what the services send, against their recorded answers.
public protocol JSONSchemaDescribable {
    /// The name of its definition under `$defs`, or nil for a schema written in place (arrays, strings).
    static var schemaName: String? { get }
    /// Its schema.
    static var jsonSchema: JSONSchema { get }
}

extension JSONSchemaDescribable {
    /// The type's own name.
    public static var schemaName: String? { String(describing: Self.self) }
}

extension String: JSONSchemaDescribable {
    public static var schemaName: String? { nil }
    public static var jsonSchema: JSONSchema { .string }
}

extension Int: JSONSchemaDescribable {
    public static var schemaName: String? { nil }
    public static var jsonSchema: JSONSchema { .integer }
}

extension UInt64: JSONSchemaDescribable {
    public static var schemaName: String? { nil }
    public static var jsonSchema: JSONSchema { .integer(minimum: 0) }
}

extension Bool: JSONSchemaDescribable {
    public static var schemaName: String? { nil }
    public static var jsonSchema: JSONSchema { .boolean }
}

extension Date: JSONSchemaDescribable {
    public static var schemaName: String? { nil }
    public static var jsonSchema: JSONSchema { .time }
}

extension ExactDecimal: JSONSchemaDescribable {
    public static var schemaName: String? { nil }
    public static var jsonSchema: JSONSchema { .money }
}

extension Array: JSONSchemaDescribable where Element: JSONSchemaDescribable {
    public static var schemaName: String? { nil }
    public static var jsonSchema: JSONSchema { .array(.ref(Element.self)) }
}

extension Dictionary: JSONSchemaDescribable where Key == String, Value: JSONSchemaDescribable {
    public static var schemaName: String? { nil }
    public static var jsonSchema: JSONSchema { .map(.ref(Value.self)) }
}

extension NoParams: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema { .object("No parameters: `{}`, or `params` left out.", [:]) }
}
