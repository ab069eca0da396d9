import Money
import WireJSON

// `rate.*` streams carry one `ExchangeRate` per currency pair per poll: the wire codes them member by member
// (``WireCodable``) and, on the hot paths, directly (``DirectWireCodable``), which refines it.

extension ExchangeRate: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(from, forKey: "from")
        try object.encode(to, forKey: "to")
        try object.encode(rate, forKey: "rate")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        try self.init(from: object.decode(forKey: "from"), to: object.decode(forKey: "to"), rate: object.decode(forKey: "rate"))
    }
}

extension ExchangeRate: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"from":"#)
        out.appendString(from)
        out.append(#","to":"#)
        out.appendString(to)
        out.append(#","rate":"#)
        out.appendText(rate)
        out.append("}")
    }

    /// The rate if the cursor is at its canonical object.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> ExchangeRate? {
        guard cursor.expect(#"{"from":"#), let from = cursor.string(), cursor.expect(#","to":"#), let to = cursor.string(),
              cursor.expect(#","rate":"#), let rate = cursor.text(ExactDecimal.self), cursor.expect("}")
        else { return nil }
        return ExchangeRate(from: from, to: to, rate: rate)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["from", "to", "rate"] }
}
