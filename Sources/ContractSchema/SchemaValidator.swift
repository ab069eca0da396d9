import Foundation

/// Checks a JSON value against the subset of JSON Schema the contract uses (`$ref` into `$defs`, `type`,
/// `const`, `enum`, `pattern`, `minimum`, `maximum`, `properties`, `required`, `additionalProperties`, `items`, `oneOf`).
///
/// With `strict`, an object member its schema does not list is an error too: how the tests keep each
/// schema complete, while the documents let consumers ignore members added later.
public struct SchemaValidator: Sendable {
    /// The named schemas `$ref`s point at.
    public let definitions: [String: JSONValue]
    /// Whether members a schema does not list are errors.
    public let strict: Bool

    /// A validator over `definitions`.
    public init(definitions: [String: JSONValue], strict: Bool) {
        self.definitions = definitions
        self.strict = strict
    }

    /// Every way `value` fails `schema`, each as `path: reason`; empty when it conforms.
    public func errors(_ value: JSONValue, against schema: JSONValue, at path: String = "$") -> [String] {
        guard case .object(let keywords) = schema else { return [] }
        var errors: [String] = []
        if let target = keywords["$ref"]?.string {
            let name = String(target.dropFirst(JSONSchema.definitionsPrefix.count))
            guard let definition = definitions[name] else { return ["\(path): no definition \(target)"] }
            errors += self.errors(value, against: definition, at: path)
        }
        if let type = keywords["type"] {
            let allowed = type.array?.compactMap(\.string) ?? [type.string ?? ""]
            if !allowed.contains(where: { Self.has(value, type: $0) }) {
                return errors + ["\(path): expected \(allowed.joined(separator: " or ")), found \(Self.describe(value))"]
            }
        }
        if let constant = keywords["const"], constant != value { errors.append("\(path): expected \(Self.describe(constant)), found \(Self.describe(value))") }
        if let cases = keywords["enum"]?.array, !cases.contains(value) {
            errors.append("\(path): \(Self.describe(value)) is not one of \(cases.map(Self.describe).joined(separator: ", "))")
        }
        if let pattern = keywords["pattern"]?.string, let text = value.string,
           text.range(of: pattern, options: .regularExpression) == nil {
            errors.append("\(path): \"\(text)\" does not match \(pattern)")
        }
        if case .integer(let minimum)? = keywords["minimum"], case .integer(let number) = value, number < minimum {
            errors.append("\(path): \(number) is below \(minimum)")
        }
        if case .integer(let maximum)? = keywords["maximum"], case .integer(let number) = value, number > maximum {
            errors.append("\(path): \(number) is above \(maximum)")
        }
        if let alternatives = keywords["oneOf"]?.array {
            let matching = alternatives.filter { self.errors(value, against: $0, at: path).isEmpty }.count
            if matching != 1 {
                let reasons = alternatives.flatMap { self.errors(value, against: $0, at: path) }
                errors.append("\(path): matches \(matching) of oneOf's \(alternatives.count) schemas, not one\(matching == 0 ? " (" + reasons.prefix(4).joined(separator: "; ") + ")" : "")")
            }
        }
        if case .array(let elements) = value, let items = keywords["items"] {
            for (index, element) in elements.enumerated() { errors += self.errors(element, against: items, at: "\(path)[\(index)]") }
        }
        if case .object(let members) = value {
            let properties: [String: JSONValue] = if case .object(let properties)? = keywords["properties"] { properties } else { [:] }
            for name in keywords["required"]?.array?.compactMap(\.string) ?? [] where members[name] == nil {
                errors.append("\(path): missing required member \"\(name)\"")
            }
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                if let schema = properties[name] {
                    errors += self.errors(member, against: schema, at: "\(path).\(name)")
                } else if let additional = keywords["additionalProperties"] {
                    if additional == .bool(false) { errors.append("\(path): member \"\(name)\" is not allowed") }
                    else { errors += self.errors(member, against: additional, at: "\(path).\(name)") }
                } else if strict, keywords["properties"] != nil {
                    errors.append("\(path): member \"\(name)\" is not in the schema")
                }
            }
        }
        return errors
    }

    static func has(_ value: JSONValue, type: String) -> Bool {
        switch (type, value) {
        case ("null", .null), ("boolean", .bool), ("integer", .integer), ("number", .integer), ("number", .number),
             ("string", .string), ("array", .array), ("object", .object): true
        default: false
        }
    }

    static func describe(_ value: JSONValue) -> String {
        switch value {
        case .null: "null"
        case .bool(let flag): "\(flag)"
        case .integer(let number): "\(number)"
        case .number(let number): "\(number)"
        case .string(let text): "\"\(text)\""
        case .array: "an array"
        case .object: "an object"
        }
    }
}
