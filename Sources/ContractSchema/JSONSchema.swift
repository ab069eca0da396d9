/// A JSON Schema (draft 2020-12) of one type, with the named schemas it refers to.
///
/// Built with the static helpers below (`.object`, `.array`, `.money`, `.ref(Quote.self)`, ...); a named
/// type is written once under `$defs` and referred to by `$ref` everywhere else.
public struct JSONSchema: Sendable, Equatable {
    /// The schema itself.
    public var json: JSONValue
    /// Every named schema it refers to, directly or not, by name.
    public var definitions: [String: JSONValue]

    /// A schema and the definitions it needs.
    public init(json: JSONValue, definitions: [String: JSONValue] = [:]) {
        self.json = json
        self.definitions = definitions
    }

    /// Where `$ref`s point in the schema bundle.
    public static let definitionsPrefix = "#/$defs/"

    /// One member of an object schema: its schema, whether it must be present, and what it means.
    public struct Property: Sendable {
        let schema: JSONSchema
        let isRequired: Bool
        let description: String

        /// A member every value has.
        public static func required(_ schema: JSONSchema, _ description: String) -> Property {
            Property(schema: schema, isRequired: true, description: description)
        }

        /// A member left out when it has no value (never `null`).
        public static func optional(_ schema: JSONSchema, _ description: String) -> Property {
            Property(schema: schema, isRequired: false, description: description)
        }
    }

    /// An object with `properties`; required ones are listed in declaration order.
    public static func object(_ description: String, _ properties: KeyValuePairs<String, Property>) -> JSONSchema {
        var members: [String: JSONValue] = [:]
        var definitions: [String: JSONValue] = [:]
        for (name, property) in properties {
            members[name] = property.schema.json.describing(property.description)
            definitions.merge(property.schema.definitions) { first, _ in first }
        }
        var json: [String: JSONValue] = ["type": "object", "properties": .object(members)]
        let required = properties.filter(\.value.isRequired).map { JSONValue.string($0.key) }
        if !required.isEmpty { json["required"] = .array(required) }
        return JSONSchema(json: JSONValue.object(json).describing(description), definitions: definitions)
    }

    /// An array of `element`s.
    public static func array(_ element: JSONSchema) -> JSONSchema {
        JSONSchema(json: ["type": "array", "items": element.json], definitions: element.definitions)
    }

    /// An object keyed by any string, each value a `value`.
    public static func map(_ value: JSONSchema) -> JSONSchema {
        JSONSchema(json: ["type": "object", "additionalProperties": value.json], definitions: value.definitions)
    }

    /// One of `cases`' raw values.
    public static func enumeration(_ cases: [String], _ description: String) -> JSONSchema {
        JSONSchema(json: JSONValue.object(["type": "string", "enum": .array(cases.map(JSONValue.string))]).describing(description))
    }

    /// Exactly `value`.
    public static func constant(_ value: String) -> JSONSchema { JSONSchema(json: ["const": .string(value)]) }

    /// A whole number from `range`.
    public static func integer(in range: ClosedRange<Int>) -> JSONSchema {
        JSONSchema(json: ["type": "integer", "minimum": .integer(range.lowerBound), "maximum": .integer(range.upperBound)])
    }

    /// Any of `schemas` (exactly one must match).
    public static func oneOf(_ schemas: [JSONSchema], _ description: String) -> JSONSchema {
        JSONSchema(
            json: JSONValue.object(["oneOf": .array(schemas.map(\.json))]).describing(description),
            definitions: schemas.reduce(into: [:]) { $0.merge($1.definitions) { first, _ in first } })
    }

    /// A string.
    public static let string = JSONSchema(json: ["type": "string"])
    /// A whole number.
    public static let integer = JSONSchema(json: ["type": "integer"])
    /// A whole number at least `minimum`.
    public static func integer(minimum: Int) -> JSONSchema { JSONSchema(json: ["type": "integer", "minimum": .integer(minimum)]) }
    /// `true` or `false`.
    public static let boolean = JSONSchema(json: ["type": "boolean"])
    /// `null`.
    public static let null = JSONSchema(json: ["type": "null"])
    /// Any JSON value.
    public static let any = JSONSchema(json: [:])

    /// Money: a decimal string such as `"1298.99"` (`Money` in `$defs`).
    public static var money: JSONSchema {
        namedString("Money", pattern: "^-?[0-9]+(\\.[0-9]+)?$",
                    "An exact decimal as a string of plain digits, keeping its scale, e.g. \"1298.99\"; never a JSON number.")
    }
    /// A time: ISO 8601 UTC with milliseconds, `"2026-11-26T07:00:00.000Z"` (`Time` in `$defs`).
    public static var time: JSONSchema {
        namedString("Time", format: "date-time", pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z$",
                    "ISO 8601 UTC with milliseconds, e.g. \"2026-11-26T07:00:00.000Z\".")
    }
    /// A currency or asset code: 2 to 12 upper-case ASCII letters or digits (`CurrencyCode` in `$defs`).
    public static var currency: JSONSchema {
        namedString("CurrencyCode", pattern: "^[A-Z0-9]{2,12}$",
                    "A currency or asset code: 2 to 12 upper-case ASCII letters or digits, e.g. \"EUR\", \"BTC\", \"XAU\".")
    }
    /// A stream topic: `kind.source.KEY` (`Topic` in `$defs`).
    public static var topic: JSONSchema {
        namedString("Topic", pattern: "^[A-Za-z0-9_-]+(\\.[A-Za-z0-9_-]+)*$",
                    "A stream topic: non-empty runs of letters, digits, - and _ joined by dots, e.g. \"quote.bitso.BTC-MXN\".")
    }

    /// A W3C `traceparent` in version 00's layout, of any two-hex-digit version (a reader ignores version ff)
    /// (`Traceparent` in `$defs`).
    public static var traceparent: JSONSchema {
        namedString("Traceparent", pattern: "^[0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2}$",
                    "W3C trace context's traceparent: version, trace id, parent span id and flags in lower-case hex, e.g. \"00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01\". A reader that cannot read it ignores it and starts a fresh trace.")
    }
    /// A W3C `tracestate` (`Tracestate` in `$defs`).
    public static var tracestate: JSONSchema {
        namedString("Tracestate", "W3C trace context's tracestate: vendors' comma-separated key=value members, passed on unread with the traceparent.")
    }

    /// A string schema named `name` in `$defs`, of `format` and `pattern` when given.
    private static func namedString(_ name: String, format: String? = nil, pattern: String? = nil, _ description: String) -> JSONSchema {
        var json: [String: JSONValue] = ["type": "string", "description": .string(description)]
        if let format { json["format"] = .string(format) }
        if let pattern { json["pattern"] = .string(pattern) }
        return named(name, JSONSchema(json: .object(json)))
    }

    /// `T`'s schema: a `$ref` to its definition when it is named, else the schema itself.
    public static func ref<T: JSONSchemaDescribable>(_ type: T.Type) -> JSONSchema {
        guard let name = T.schemaName else { return T.jsonSchema }
        return named(name, T.jsonSchema)
    }

    /// A `$ref` to `schema` defined as `name`.
    static func named(_ name: String, _ schema: JSONSchema) -> JSONSchema {
        var definitions = schema.definitions
        definitions[name] = schema.json
        return JSONSchema(json: ["$ref": .string(definitionsPrefix + name)], definitions: definitions)
    }
}

extension JSONValue {
    /// The schema with `description` added (nothing when it is empty).
    func describing(_ description: String) -> JSONValue {
        guard !description.isEmpty, case .object(var members) = self else { return self }
        members["description"] = .string(description)
        return .object(members)
    }
}
