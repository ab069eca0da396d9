import Foundation
import Money
import TickwireContract
import WireJSON

// The direct codec of `price.*`'s payload (see ``DirectWireEncodable``): the members of `encode(wire:)`, in its order.

extension AssetPrice: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"asset":"#)
        out.appendString(asset)
        out.append(#","currency":"#)
        out.appendString(currency)
        out.append(#","price":"#)
        out.appendText(price)
        if let changePercent24h { out.append(#","changePercent24h":"#); out.appendText(changePercent24h) }
        out.append(#","path":"#)
        out.appendStrings(path)
        if let quoteTime { out.append(#","quoteTime":"#); out.appendDate(quoteTime) }
        if let source { out.append(#","source":"#); out.appendString(source) }
        out.append("}")
    }

    /// The price if the cursor is at its canonical object.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> AssetPrice? {
        guard cursor.expect(#"{"asset":"#), let asset = cursor.string(),
              cursor.expect(#","currency":"#), let currency = cursor.string(),
              cursor.expect(#","price":"#), let price = cursor.text(ExactDecimal.self)
        else { return nil }
        var changePercent24h: ExactDecimal?
        guard cursor.money(#","changePercent24h":"#, &changePercent24h), cursor.expect(#","path":"#), let path = cursor.strings()
        else { return nil }
        var quoteTime: Date?
        var source: String?
        guard cursor.date(#","quoteTime":"#, &quoteTime), cursor.string(#","source":"#, &source), cursor.expect("}") else { return nil }
        return AssetPrice(
            asset: asset, currency: currency, price: price, changePercent24h: changePercent24h, path: path, quoteTime: quoteTime,
            source: source)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["asset", "currency", "price", "changePercent24h", "path", "quoteTime", "source"] }
}
