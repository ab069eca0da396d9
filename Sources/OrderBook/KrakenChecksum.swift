import Market
import Money

/// Kraken's websocket v2 `book` checksum: CRC32 of the top 10 asks (lowest price first) then the top 10 bids (highest
/// first), each level's price and quantity written with the instrument's precision, the decimal point removed and
/// leading zeros stripped, all concatenated ("45285.2" and "0.00100000" make "452852100000").
public enum KrakenChecksum {
    /// How many levels of each side the checksum covers, whatever the subscribed depth.
    public static let depth = 10

    /// The checksum of `bids` (best first) and `asks` (best first), of which the first 10 count. A precision of nil
    /// writes each value with the digits it has (as parsed from v2's full-precision numbers); a value with more
    /// fractional digits than its precision is cut to it.
    public static func checksum(bids: [BookLevel], asks: [BookLevel], pricePrecision: Int? = nil, quantityPrecision: Int? = nil) -> UInt32 {
        CRC32.checksum(text(bids: bids, asks: asks, pricePrecision: pricePrecision, quantityPrecision: quantityPrecision).utf8)
    }

    /// The text the checksum is computed over, for logs when one does not match.
    public static func text(bids: [BookLevel], asks: [BookLevel], pricePrecision: Int? = nil, quantityPrecision: Int? = nil) -> String {
        var text = ""
        for level in asks.prefix(depth) + bids.prefix(depth) {
            text += digits(level.price, precision: pricePrecision)
            text += digits(level.size, precision: quantityPrecision)
        }
        return text
    }

    /// `value`'s digits at `precision` fractional digits, without point or leading zeros ("" for zero).
    static func digits(_ value: ExactDecimal, precision: Int?) -> String {
        let precision = precision ?? value.scale
        var magnitude = value.mantissa.magnitude
        for _ in 0..<max(value.scale - precision, 0) { magnitude /= 10 }
        guard magnitude != 0 else { return "" }
        return String(magnitude) + String(repeating: "0", count: max(precision - value.scale, 0))
    }
}

extension L2Book {
    /// Kraken's v2 checksum of this book's top 10 levels, with the instrument's price and quantity precisions.
    public func krakenChecksum(pricePrecision: Int? = nil, quantityPrecision: Int? = nil) -> UInt32 {
        let (bids, asks) = top(KrakenChecksum.depth)
        return KrakenChecksum.checksum(bids: bids, asks: asks, pricePrecision: pricePrecision, quantityPrecision: quantityPrecision)
    }
}
