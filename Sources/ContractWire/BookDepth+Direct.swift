import Foundation
import Market
import Money
import WireJSON

// `book.*` streams carry one `BookDepth` per market per change of its top levels: the wire codes them member by
// member (``WireCodable``) and, on the hot paths, directly (``DirectWireCodable``), which refines it.

extension BookDepth: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(source, forKey: "source")
        try object.encode(market, forKey: "market")
        try object.encode(sequence, forKey: "sequence")
        try object.encode(bids, forKey: "bids")
        try object.encode(asks, forKey: "asks")
        try object.encodeIfPresent(time, forKey: "time")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        try self.init(
            source: object.decode(forKey: "source"), market: object.decode(forKey: "market"), sequence: object.decode(forKey: "sequence"),
            bids: object.decode(forKey: "bids"), asks: object.decode(forKey: "asks"), time: object.decodeIfPresent(forKey: "time"))
    }
}

extension BookDepth: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"source":"#)
        out.appendString(source)
        out.append(#","market":{"base":"#)
        out.appendString(market.base)
        out.append(#","quote":"#)
        out.appendString(market.quote)
        out.append(#"},"sequence":"#)
        out.appendInt(sequence)
        out.append(#","bids":"#)
        BookLevel.writeWire(bids, to: &out)
        out.append(#","asks":"#)
        BookLevel.writeWire(asks, to: &out)
        if let time { out.append(#","time":"#); out.appendDate(time) }
        out.append("}")
    }

    /// The book if the cursor is at its canonical object; the market's codes as written.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> BookDepth? {
        guard cursor.expect(#"{"source":"#), let source = cursor.string(),
              cursor.expect(#","market":{"base":"#), let base = cursor.string(), cursor.expect(#","quote":"#),
              let quote = cursor.string(), cursor.expect(#"},"sequence":"#), let sequence = cursor.int64(),
              cursor.expect(#","bids":"#), let bids = BookLevel.readWireArray(&cursor),
              cursor.expect(#","asks":"#), let asks = BookLevel.readWireArray(&cursor)
        else { return nil }
        var time: Date?
        guard cursor.date(#","time":"#, &time), cursor.expect("}") else { return nil }
        return BookDepth(source: source, market: .asWritten(base: base, quote: quote), sequence: sequence, bids: bids, asks: asks, time: time)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["source", "market", "sequence", "bids", "asks", "time"] }
}

extension BookLevel: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(price, forKey: "price")
        try object.encode(size, forKey: "size")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        try self.init(price: object.decode(forKey: "price"), size: object.decode(forKey: "size"))
    }
}

extension BookLevel: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"price":"#)
        out.appendText(price)
        out.append(#","size":"#)
        out.appendText(size)
        out.append("}")
    }

    /// The level if the cursor is at its canonical object.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> BookLevel? {
        guard cursor.expect(#"{"price":"#), let price = cursor.text(ExactDecimal.self),
              cursor.expect(#","size":"#), let size = cursor.text(ExactDecimal.self), cursor.expect("}")
        else { return nil }
        return BookLevel(price: price, size: size)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["price", "size"] }

    /// Writes `levels` as a JSON array of their objects.
    @inlinable
    static func writeWire(_ levels: [BookLevel], to out: inout WireBuffer) {
        out.append("[")
        for (position, level) in levels.enumerated() {
            if position > 0 { out.append(",") }
            out.append(#"{"price":"#)
            out.appendText(level.price)
            out.append(#","size":"#)
            out.appendText(level.size)
            out.append("}")
        }
        out.append("]")
    }

    /// A JSON array of canonical level objects at the cursor, or nil.
    @inlinable
    static func readWireArray(_ cursor: inout WireCursor) -> [BookLevel]? {
        guard cursor.expect("[") else { return nil }
        var levels: [BookLevel] = []
        if cursor.peek("]") { return levels }
        repeat {
            guard let level = readWire(&cursor) else { return nil }
            levels.append(level)
        } while cursor.peek(",")
        return cursor.expect("]") ? levels : nil
    }
}
