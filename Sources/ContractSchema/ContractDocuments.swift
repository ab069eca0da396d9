import BusContract

/// The contract as documents a program in any language can read: a JSON Schema bundle of every message,
/// an AsyncAPI 3.0 document of the streams and an OpenRPC document of each service's methods.
///
/// `tickwire-contract generate --out docs/contract` writes them; a test checks the committed ones are current.
public enum ContractDocuments {
    /// The schema bundle's file name.
    public static let schemaFile = "tickwire.schema.json"
    /// The AsyncAPI document's file name.
    public static let asyncAPIFile = "asyncapi.json"

    /// The OpenRPC document of `service`, relative to the contract folder.
    public static func openRPCFile(_ service: String) -> String { "openrpc/\(service).json" }

    /// Every document, by its path relative to the contract folder.
    public static func render(services: [ServiceSchema] = ContractCatalog.services) throws -> [String: String] {
        var files = [
            schemaFile: try schemaBundle(services: services).rendered(),
            asyncAPIFile: try asyncAPI(services: services).rendered(),
        ]
        for service in services {
            files[openRPCFile(service.name)] = try openRPC(service).rendered()
        }
        return files
    }

    /// Every named schema of every method and stream, the envelope and JSON-RPC's frames: the bundle's `$defs`.
    public static func definitions(services: [ServiceSchema] = ContractCatalog.services) -> [String: JSONValue] {
        var definitions: [String: JSONValue] = [:]
        func add(_ schema: JSONSchema) { definitions.merge(schema.definitions) { first, _ in first } }
        for service in services {
            service.methods.forEach { add($0.params); add($0.result) }
            service.streams.forEach { add($0.payload) }
        }
        [envelope(), rpcRequest, rpcResponse].forEach(add)
        return definitions
    }

    /// The JSON Schema bundle: `$defs` of every type, each referred to as `tickwire.schema.json#/$defs/<Name>`.
    public static func schemaBundle(services: [ServiceSchema] = ContractCatalog.services) -> JSONValue {
        [
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "$id": .string(schemaFile),
            "title": "Tickwire's messages",
            "description": "Every request, result, stream payload and envelope of Tickwire's services (see docs/protocol.md). Generated from the contract types by `swift run tickwire-contract generate --out docs/contract`; do not edit.",
            "$defs": .object(definitions(services: services)),
        ]
    }

    /// A stream message's body: `{"version","type","seq","time","source","traceparent","tracestate","data"}` around `payload` (or `null` in a
    /// retraction, type `deleted`); the generic `Envelope` when no stream is given.
    public static func envelope(_ stream: StreamSchema? = nil) -> JSONSchema {
        let data: JSONSchema = stream.map { .oneOf([$0.payload, .null], "The payload; `null` when the topic is retracted.") } ?? .any
        let type: JSONSchema = stream.map {
            .enumeration([$0.stream.kind, "deleted"], "The topic's kind, or `deleted` when the publisher retracts the topic.")
        } ?? .string
        let schema = JSONSchema.object("The body of every stream message; the first frame is the topic.", [
            "version": .optional(.integer(in: EnvelopeVersion.readable),
                                 "The envelope's version; absent (an envelope written before versions) means 1. A reader refuses a version it does not know."),
            "type": .required(type, "What `data` is: the topic's kind, or `deleted` for a retraction."),
            "seq": .required(.integer(minimum: 1), "Position in the publisher's sequence for the topic, one more per message: a gap means lost messages."),
            "time": .required(.time, "When it was published."),
            "source": .required(.string, "Who produced the data: a feed such as `bitso`, or a service."),
            "traceparent": .optional(.traceparent, "The W3C trace context of the span it was published in; absent outside one."),
            "tracestate": .optional(.tracestate, "The W3C trace state that goes with `traceparent`; absent when empty."),
            "data": .required(data, "The payload."),
        ])
        return stream == nil ? .named("Envelope", schema) : schema
    }

    /// A JSON-RPC 2.0 request as the services read it.
    static var rpcRequest: JSONSchema {
        .named("JSONRPCRequest", .object("A JSON-RPC 2.0 request, sent on a REQ socket.", [
            "jsonrpc": .required(.constant("2.0"), "Always \"2.0\"."),
            "id": .required(rpcID, "The caller's id, echoed in the response."),
            "method": .required(.string, "The method's name."),
            "params": .optional(.any, "The method's params, by name; may be left out for a method that takes none."),
            "timeoutMs": .optional(.integer(minimum: 0), "Tickwire's extension: how many milliseconds the caller still waits."),
            "traceparent": .optional(.traceparent, "Tickwire's extension: the W3C trace context of the caller's span, whose child the server's span is."),
            "tracestate": .optional(.tracestate, "Tickwire's extension: the W3C trace state that goes with `traceparent`."),
        ]))
    }

    /// A JSON-RPC 2.0 response: a result or an error.
    static var rpcResponse: JSONSchema {
        .named("JSONRPCResponse", .oneOf([
            .object("A success.", [
                "jsonrpc": .required(.constant("2.0"), "Always \"2.0\"."),
                "id": .required(rpcID, "The request's id."),
                "result": .required(.any, "The method's result."),
            ]),
            .object("A failure.", [
                "jsonrpc": .required(.constant("2.0"), "Always \"2.0\"."),
                "id": .required(rpcID, "The request's id (`null` when it could not be read)."),
                "error": .required(.ref(RPCError.self), "What went wrong."),
            ]),
        ], "A JSON-RPC 2.0 response, received on the REQ socket."))
    }

    static var rpcID: JSONSchema {
        JSONSchema(json: ["type": ["string", "integer", "null"]])
    }

    /// The AsyncAPI 3.0 document of every stream: one channel per topic kind, each message the envelope around its payload.
    public static func asyncAPI(services: [ServiceSchema] = ContractCatalog.services) -> JSONValue {
        var servers: [String: JSONValue] = [:]
        var channels: [String: JSONValue] = [:]
        var operations: [String: JSONValue] = [:]
        var messages: [String: JSONValue] = [:]
        var publishers: [String: [String]] = [:]
        for service in services {
            guard let endpoint = service.publishes else { continue }
            servers[service.name] = [
                "host": .string(String(endpoint.dropFirst("tcp://".count))), "protocol": "zmq",
                "description": .string("\(service.name)'s ZeroMQ PUB socket (default endpoint; every service takes --pub). Subscribe by topic prefix; each message is two frames, [topic, envelope JSON]."),
            ]
            for stream in service.streams { publishers[stream.stream.kind, default: []].append(service.name) }
        }
        for stream in uniqueStreams(services) {
            let kind = stream.stream.kind
            let name = stream.stream.payload
            messages[kind] = [
                "name": .string(kind), "title": .string("\(kind) envelope"), "summary": .string(stream.summary),
                "contentType": "application/json",
                "payload": envelope(stream).json.rebasingReferences(to: "#/components/schemas/"),
                "x-payload-type": .string(name),
            ]
            var channel: [String: JSONValue] = [
                "address": .string(stream.address),
                "description": .string(stream.summary),
                "servers": .array((publishers[kind] ?? []).map { ["$ref": .string("#/servers/\($0)")] }),
                "messages": .object([kind: ["$ref": .string("#/components/messages/\(kind)")]]),
            ]
            if !stream.parameters.isEmpty {
                channel["parameters"] = .object(Dictionary(uniqueKeysWithValues: stream.parameters.map {
                    ($0.key, ["description": .string($0.value)])
                }))
            }
            channels[kind] = .object(channel)
            operations["publish-\(kind)"] = [
                "action": "send", "summary": .string("Publishes \(stream.address)."),
                "channel": ["$ref": .string("#/channels/\(kind)")],
                "messages": [["$ref": .string("#/channels/\(kind)/messages/\(kind)")]],
            ]
        }
        return [
            "asyncapi": "3.0.0",
            "info": [
                "title": "Tickwire streams", "version": "1.0.0",
                "description": "Every stream Tickwire's services publish over ZeroMQ PUB/SUB (see docs/protocol.md): late joiners call `snapshot` (Clone pattern), then apply newer messages. Generated from the contract types by `swift run tickwire-contract generate --out docs/contract`; do not edit.",
            ],
            "defaultContentType": "application/json",
            "servers": .object(servers),
            "channels": .object(channels),
            "operations": .object(operations),
            "components": [
                "messages": .object(messages),
                "schemas": .object(streamDefinitions(services).mapValues { $0.rebasingReferences(to: "#/components/schemas/") }),
            ],
        ]
    }

    /// The named schemas the streams' envelopes refer to.
    static func streamDefinitions(_ services: [ServiceSchema]) -> [String: JSONValue] {
        uniqueStreams(services).reduce(into: [:]) { definitions, stream in
            definitions.merge(envelope(stream).definitions) { first, _ in first }
        }
    }

    /// Each stream once (the heartbeat is every publisher's), in the services' order.
    static func uniqueStreams(_ services: [ServiceSchema]) -> [StreamSchema] {
        var seen: Set<String> = []
        return services.flatMap(\.streams).filter { seen.insert($0.stream.kind).inserted }
    }

    /// The JSON-RPC error codes a service may answer with: JSON-RPC's own, Tickwire's general ones, and its own.
    static func errors(_ service: ServiceSchema) -> [(name: String, code: Int, message: String)] {
        var errors: [(name: String, code: Int, message: String)] = [
            ("ParseError", RPCError.Code.parseError, "The request is not JSON."),
            ("InvalidRequest", RPCError.Code.invalidRequest, "JSON, but not a JSON-RPC 2.0 request."),
            ("MethodNotFound", RPCError.Code.methodNotFound, "No such method."),
            ("InvalidParams", RPCError.Code.invalidParams, "The params do not fit the method, or a value in them is invalid."),
            ("InternalError", RPCError.Code.internalError, "The server failed."),
            ("Unavailable", RPCError.Code.unavailable, "A service this one depends on is unavailable, or its data has not arrived yet."),
            ("NotFound", RPCError.Code.notFound, "The thing asked for does not exist."),
            ("DeadlineExceeded", RPCError.Code.deadlineExceeded, "The call's deadline passed before an answer."),
            ("Forbidden", RPCError.Code.forbidden, "The method changes state and the caller's key is not a writer's."),
        ]
        if service.name != "rates-fetcher" {
            errors += [
                ("UnknownCurrency", RPCError.Code.unknownCurrency, "A currency nobody quotes."),
                ("NoPath", RPCError.Code.noPath, "No chain of rates joins the two currencies."),
                ("InvalidRate", RPCError.Code.invalidRate, "A rate that is zero, negative or otherwise unusable."),
                ("UnknownSource", RPCError.Code.unknownSource, "A rate source the converter does not hold."),
            ]
        }
        return errors
    }

    /// The OpenRPC 1.3 document of `service`'s methods: params by name, the result, and the errors it may answer.
    public static func openRPC(_ service: ServiceSchema) -> JSONValue {
        let prefix = "#/components/schemas/"
        let definitions = definitions(services: [service])
        let errors = errors(service)
        let methods: [JSONValue] = service.methods.map { method in
            var params: [JSONValue] = []
            let paramsSchema = resolve(method.params, in: definitions)
            if case .object(let members)? = paramsSchema["properties"] {
                let required = Set((paramsSchema["required"]?.array ?? []).compactMap(\.string))
                params = members.keys.sorted().map { name in
                    var schema = members[name]!.rebasingReferences(to: prefix)
                    let description = schema["description"]
                    if case .object(var fields) = schema { fields["description"] = nil; schema = .object(fields) }
                    var param: [String: JSONValue] = ["name": .string(name), "required": .bool(required.contains(name)), "schema": schema]
                    param["description"] = description
                    return .object(param)
                }
            }
            var entry: [String: JSONValue] = [
                "name": .string(method.method.name),
                "summary": .string(method.summary),
                "paramStructure": "by-name",
                "params": .array(params),
                "result": ["name": .string(method.method.result), "schema": method.result.json.rebasingReferences(to: prefix)],
                "errors": .array(errors.map { ["$ref": .string("#/components/errors/\($0.name)")] }),
                "x-params-type": .string(method.method.params),
            ]
            if method.method.changesState {
                entry["x-changes-state"] = true
                entry["description"] = "Changes state: answers only writers' keys when the service runs with --keys."
            }
            return .object(entry)
        }
        return [
            "openrpc": "1.3.2",
            "info": [
                "title": .string("Tickwire \(service.name)"), "version": "1.0.0",
                "description": .string("\(service.summary) JSON-RPC 2.0 over a ZeroMQ REQ socket (see docs/protocol.md). Generated from the contract types by `swift run tickwire-contract generate --out docs/contract`; do not edit."),
            ],
            "servers": [["name": .string(service.name), "url": .string(service.requests),
                         "summary": service.requests == ContractCatalog.pluginEndpoint
                             ? "The plugin's own REP endpoint (the presenter's --plugin NAME=REP[,PUB] names it)."
                             : "The default REP endpoint (every service takes --rep)."]],
            "methods": .array(methods),
            "components": [
                "schemas": .object(definitions.mapValues { $0.rebasingReferences(to: prefix) }),
                "errors": .object(Dictionary(uniqueKeysWithValues: errors.map {
                    ($0.name, ["code": .integer($0.code), "message": .string($0.message)])
                })),
            ],
        ]
    }

    /// `schema` itself when it is a `$ref` into `definitions`.
    static func resolve(_ schema: JSONSchema, in definitions: [String: JSONValue]) -> JSONValue {
        guard let target = schema.json["$ref"]?.string else { return schema.json }
        return definitions[String(target.dropFirst(JSONSchema.definitionsPrefix.count))] ?? schema.json
    }
}
