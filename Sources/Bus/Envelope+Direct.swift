import BusContract
import Foundation
import WireJSON

// The direct codecs of the bus's own messages (see ``DirectWireEncodable``): the envelope around a direct payload,
// its header alone (what every subscriber reads to route and sequence), and the heartbeat.

extension Envelope: DirectWireEncodable where Payload: DirectWireEncodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        var dates = WireDateCache()
        writeWire(to: &out, dates: &dates)
    }

    /// ``writeWire(to:)`` with the envelope's time written through `dates`, which a writer of many envelopes keeps
    /// (most of them fall in the minute of the one before).
    @inlinable
    public func writeWire(to out: inout WireBuffer, dates: inout WireDateCache) {
        out.append(#"{"version":"#)
        out.appendInt(Int64(version))
        out.append(#","type":"#)
        out.appendString(type)
        out.append(#","seq":"#)
        out.appendUInt(seq)
        out.append(#","time":"#)
        out.appendDate(time, cache: &dates)
        out.append(#","source":"#)
        out.appendString(source)
        if let traceparent { out.append(#","traceparent":"#); out.appendString(traceparent) }
        if let tracestate { out.append(#","tracestate":"#); out.appendString(tracestate) }
        out.append(#","data":"#)
        data.writeWire(to: &out)
        out.append("}")
    }
}

extension Envelope: DirectWireDecodable where Payload: DirectWireDecodable {
    /// The envelope if the cursor is at its canonical object (``EnvelopeHeader/readWirePrefix(_:)``, then the payload's).
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> Envelope? {
        guard let header = EnvelopeHeader.readWirePrefix(&cursor), let data = Payload.readWire(&cursor), cursor.expect("}") else {
            return nil
        }
        return Envelope(header, around: data)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["version", "type", "seq", "time", "source", "traceparent", "tracestate", "data"] }
}

extension EnvelopeHeader {
    /// The header of the canonical envelope at the cursor, read up to and including `"data":`, where it leaves the
    /// cursor; nil for anything else (the tape decides): the version is exactly `1` here, the trace members strings.
    @inlinable
    public static func readWirePrefix(_ cursor: inout WireCursor) -> EnvelopeHeader? {
        guard cursor.expect(#"{"version":1,"type":"#), let type = cursor.string(),
              cursor.expect(#","seq":"#), let seq = cursor.uint64(),
              cursor.expect(#","time":"#), let time = cursor.date(),
              cursor.expect(#","source":"#), let source = cursor.string()
        else { return nil }
        var traceparent: String?
        guard cursor.string(#","traceparent":"#, &traceparent) else { return nil }
        var tracestate: String?
        guard cursor.string(#","tracestate":"#, &tracestate) else { return nil }
        guard cursor.expect(#","data":"#) else { return nil }
        return EnvelopeHeader(version: 1, type: type, seq: seq, time: time, source: source, traceparent: traceparent, tracestate: tracestate)
    }

    /// A header of these members.
    @inlinable @inline(__always)
    init(version: Int, type: String, seq: UInt64, time: Date, source: String, traceparent: String?, tracestate: String?) {
        self.version = version
        self.type = type
        self.seq = seq
        self.time = time
        self.source = source
        self.traceparent = traceparent
        self.tracestate = tracestate
    }
}

extension Heartbeat: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(service, forKey: "service")
        try object.encode(instance, forKey: "instance")
        try object.encode(topics, forKey: "topics")
        try object.encode(dropped, forKey: "dropped")
        try object.encode(intervalMilliseconds, forKey: "intervalMilliseconds")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        try self.init(
            service: object.decode(forKey: "service"), instance: object.decode(forKey: "instance"), topics: object.decode(forKey: "topics"),
            dropped: object.decode(forKey: "dropped"), intervalMilliseconds: object.decode(forKey: "intervalMilliseconds"))
    }
}

extension Heartbeat: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"service":"#)
        out.appendString(service)
        out.append(#","instance":"#)
        out.appendString(instance)
        out.append(#","topics":"#)
        out.appendInt(Int64(topics))
        out.append(#","dropped":"#)
        out.appendInt(Int64(dropped))
        out.append(#","intervalMilliseconds":"#)
        out.appendInt(Int64(intervalMilliseconds))
        out.append("}")
    }

    /// The heartbeat if the cursor is at its canonical object.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> Heartbeat? {
        guard cursor.expect(#"{"service":"#), let service = cursor.string(),
              cursor.expect(#","instance":"#), let instance = cursor.string(),
              cursor.expect(#","topics":"#), let topics = cursor.int64().flatMap({ Int(exactly: $0) }),
              cursor.expect(#","dropped":"#), let dropped = cursor.int64().flatMap({ Int(exactly: $0) }),
              cursor.expect(#","intervalMilliseconds":"#), let intervalMilliseconds = cursor.int64().flatMap({ Int(exactly: $0) }),
              cursor.expect("}")
        else { return nil }
        return Heartbeat(service: service, instance: instance, topics: topics, dropped: dropped, intervalMilliseconds: intervalMilliseconds)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["service", "instance", "topics", "dropped", "intervalMilliseconds"] }
}
