import Money
import TickwireContract
import WireJSON

// The converter's hot RPC messages (`convert`, `total`): the params a server reads and the result a client reads
// on every call, coded member by member (``WireCodable``) and directly (``DirectWireCodable``), which refines it.

extension ConvertRequest: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(amount, forKey: "amount")
        try object.encode(from, forKey: "from")
        try object.encode(to, forKey: "to")
        try object.encodeIfPresent(source, forKey: "source")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        try self.init(
            amount: object.decode(forKey: "amount"), from: object.decode(forKey: "from"), to: object.decode(forKey: "to"),
            source: object.decodeIfPresent(forKey: "source"))
    }
}

extension ConvertRequest: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"amount":"#)
        out.appendText(amount)
        out.append(#","from":"#)
        out.appendString(from)
        out.append(#","to":"#)
        out.appendString(to)
        if let source { out.append(#","source":"#); out.appendString(source) }
        out.append("}")
    }

    /// The request if the cursor is at its canonical object.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> ConvertRequest? {
        guard cursor.expect(#"{"amount":"#), let amount = cursor.text(ExactDecimal.self),
              cursor.expect(#","from":"#), let from = cursor.string(), cursor.expect(#","to":"#), let to = cursor.string()
        else { return nil }
        var source: String?
        guard cursor.string(#","source":"#, &source), cursor.expect("}") else { return nil }
        return ConvertRequest(amount: amount, from: from, to: to, source: source)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["amount", "from", "to", "source"] }
}

extension ConvertResult: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(amount, forKey: "amount")
        try object.encode(currency, forKey: "currency")
        try object.encode(rate, forKey: "rate")
        try object.encode(rateExact, forKey: "rateExact")
        try object.encode(path, forKey: "path")
        try object.encode(source, forKey: "source")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        try self.init(
            amount: object.decode(forKey: "amount"), currency: object.decode(forKey: "currency"), rate: object.decode(forKey: "rate"),
            rateExact: object.decode(forKey: "rateExact"), path: object.decode(forKey: "path"), source: object.decode(forKey: "source"))
    }
}

extension ConvertResult: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"amount":"#)
        out.appendText(amount)
        out.append(#","currency":"#)
        out.appendString(currency)
        out.append(#","rate":"#)
        out.appendText(rate)
        out.append(rateExact ? #","rateExact":true,"path":"# : #","rateExact":false,"path":"#)
        out.appendStrings(path)
        out.append(#","source":"#)
        out.appendString(source)
        out.append("}")
    }

    /// The result if the cursor is at its canonical object.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> ConvertResult? {
        guard cursor.expect(#"{"amount":"#), let amount = cursor.text(ExactDecimal.self),
              cursor.expect(#","currency":"#), let currency = cursor.string(),
              cursor.expect(#","rate":"#), let rate = cursor.text(ExactDecimal.self)
        else { return nil }
        let rateExact: Bool
        if cursor.expect(#","rateExact":true,"path":"#) {
            rateExact = true
        } else if cursor.expect(#","rateExact":false,"path":"#) {
            rateExact = false
        } else {
            return nil
        }
        guard let path = cursor.strings(), cursor.expect(#","source":"#), let source = cursor.string(), cursor.expect("}") else {
            return nil
        }
        return ConvertResult(amount: amount, currency: currency, rate: rate, rateExact: rateExact, path: path, source: source)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["amount", "currency", "rate", "rateExact", "path", "source"] }
}

extension TotalRequest: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(items, forKey: "items")
        try object.encode(to, forKey: "to")
        try object.encodeIfPresent(source, forKey: "source")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        try self.init(items: object.decode(forKey: "items"), to: object.decode(forKey: "to"), source: object.decodeIfPresent(forKey: "source"))
    }
}

extension TotalRequest: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``; each item as `CurrencyAmount`'s
    /// synthesized `Codable` writes it, `{"amount":…,"currency":…}`.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"items":["#)
        for (position, item) in items.enumerated() {
            out.append(position == 0 ? #"{"amount":"# : #",{"amount":"#)
            out.appendText(item.amount)
            out.append(#","currency":"#)
            out.appendString(item.currency)
            out.append("}")
        }
        out.append(#"],"to":"#)
        out.appendString(to)
        if let source { out.append(#","source":"#); out.appendString(source) }
        out.append("}")
    }

    /// The request if the cursor is at its canonical object.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> TotalRequest? {
        guard cursor.expect(#"{"items":["#) else { return nil }
        var items: [CurrencyAmount] = []
        if !cursor.peek("]") {
            repeat {
                guard cursor.expect(#"{"amount":"#), let amount = cursor.text(ExactDecimal.self),
                      cursor.expect(#","currency":"#), let currency = cursor.string(), cursor.expect("}")
                else { return nil }
                items.append(CurrencyAmount(amount: amount, currency: currency))
            } while cursor.peek(",")
            guard cursor.expect("]") else { return nil }
        }
        guard cursor.expect(#","to":"#), let to = cursor.string() else { return nil }
        var source: String?
        guard cursor.string(#","source":"#, &source), cursor.expect("}") else { return nil }
        return TotalRequest(items: items, to: to, source: source)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["items", "to", "source"] }
}
