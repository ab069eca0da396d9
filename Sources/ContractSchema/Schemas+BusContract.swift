import BusContract

extension Health: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A service's answer to `health`: how it is and how its upstreams are.", [
            "status": .required(.enumeration(["ok", "degraded"], ""), "`ok` when every upstream is reachable, else `degraded`."),
            "service": .required(.string, "The service's name."),
            "uptimeSeconds": .required(.integer, "Seconds since start."),
            "upstreams": .required(.map(.string), "Each upstream's state by name: `ok` or a sentence saying what is wrong."),
        ])
    }
}

extension RPCError: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A JSON-RPC 2.0 error object; also what a handler throws to answer with an error.", [
            "code": .required(.integer, "The error code: JSON-RPC's reserved ones, or Tickwire's in -32000...-32099."),
            "message": .required(.string, "A clear sentence saying what went wrong."),
            "data": .optional(.map(.string), "Details a program can read, e.g. `{\"pair\": \"USD-XYZ\"}`."),
        ])
    }
}

extension Heartbeat: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The payload of `heartbeat.<service>`.", [
            "service": .required(.string, "The publishing service."),
            "instance": .required(.string, "The publisher's run identity; a new value means it restarted."),
            "topics": .required(.integer, "How many topics it retains."),
            "dropped": .required(.integer, "Messages that did not reach every subscriber: published after its socket closed, or lost by a subscriber a high-water mark behind."),
            "intervalMilliseconds": .required(.integer, "How often heartbeats come."),
        ])
    }
}

extension Snapshot.Entry: JSONSchemaDescribable {
    public static var schemaName: String? { "SnapshotEntry" }
    public static var jsonSchema: JSONSchema {
        .object("One retained topic.", [
            "topic": .required(.topic, "The topic."),
            "seq": .required(.integer(minimum: 0), "The envelope's sequence number."),
            "body": .required(.string, "The envelope JSON."),
        ])
    }
}

extension Snapshot: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A publisher's last values: the answer to the `snapshot` method (Clone pattern). Each entry is exactly what the stream would carry: its topic, and the envelope JSON as text, with the sequence number it stands at. The topics it holds no value of (retracted) are in `retracted` with their sequence numbers, so a subscriber takes their next message without seeing a gap.", [
            "publisher": .required(.string, "The publishing service."),
            "instance": .required(.string, "The publisher's run identity."),
            "entries": .required(.array(.ref(Snapshot.Entry.self)), "The topics, sorted."),
            "retracted": .optional(
                .map(.integer(minimum: 1)),
                "The topics under the prefix the publisher numbers but holds no value of (retracted, or only ever published without retain), keyed by topic, each with the sequence number it stands at: a subscriber holds no value of them and takes seq + 1 as their next message. Left out when empty; a reader reads a missing one as empty."),
        ])
    }
}

extension SnapshotRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("Parameters of the `snapshot` method.", [
            "prefix": .required(.string, "Only topics starting with this (\"\" for all)."),
        ])
    }
}
