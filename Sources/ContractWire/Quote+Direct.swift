import Foundation
import Market
import Money
import WireJSON

// The direct codec of `quote.*`'s payload (see ``DirectWireEncodable``): the members of `encode(wire:)`, in its
// order, as constant key fragments; the market's object is written and read inline.

extension Quote: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"source":"#)
        out.appendString(source)
        out.append(#","market":{"base":"#)
        out.appendString(market.base)
        out.append(#","quote":"#)
        out.appendString(market.quote)
        out.append(#"},"last":"#)
        out.appendText(last)
        if let open { out.append(#","open":"#); out.appendText(open) }
        if let high { out.append(#","high":"#); out.appendText(high) }
        if let low { out.append(#","low":"#); out.appendText(low) }
        if let volume { out.append(#","volume":"#); out.appendText(volume) }
        if let quoteVolume { out.append(#","quoteVolume":"#); out.appendText(quoteVolume) }
        if let vwap { out.append(#","vwap":"#); out.appendText(vwap) }
        if let ask { out.append(#","ask":"#); out.appendText(ask) }
        if let bid { out.append(#","bid":"#); out.appendText(bid) }
        if let change24h { out.append(#","change24h":"#); out.appendText(change24h) }
        if let changePercent24h { out.append(#","changePercent24h":"#); out.appendText(changePercent24h) }
        if let marketCap { out.append(#","marketCap":"#); out.appendText(marketCap) }
        if let marketCapRank { out.append(#","marketCapRank":"#); out.appendInt(Int64(marketCapRank)) }
        if let circulatingSupply { out.append(#","circulatingSupply":"#); out.appendText(circulatingSupply) }
        if let totalSupply { out.append(#","totalSupply":"#); out.appendText(totalSupply) }
        if let maxSupply { out.append(#","maxSupply":"#); out.appendText(maxSupply) }
        if let allTimeHigh { out.append(#","allTimeHigh":"#); out.appendText(allTimeHigh) }
        if let time { out.append(#","time":"#); out.appendDate(time) }
        out.append("}")
    }

    /// The quote if the cursor is at its canonical object; the market's codes as written (see ``MarketPair/readWire(_:)``).
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> Quote? {
        guard cursor.expect(#"{"source":"#), let source = cursor.string(),
              cursor.expect(#","market":{"base":"#), let base = cursor.string(), cursor.expect(#","quote":"#),
              let quote = cursor.string(), cursor.expect(#"},"last":"#), let last = cursor.text(ExactDecimal.self)
        else { return nil }
        var open, high, low, volume, quoteVolume, vwap, ask, bid, change24h, changePercent24h, marketCap: ExactDecimal?
        var circulatingSupply, totalSupply, maxSupply, allTimeHigh: ExactDecimal?
        var marketCapRank: Int?
        var time: Date?
        guard cursor.money(#","open":"#, &open), cursor.money(#","high":"#, &high), cursor.money(#","low":"#, &low),
              cursor.money(#","volume":"#, &volume), cursor.money(#","quoteVolume":"#, &quoteVolume),
              cursor.money(#","vwap":"#, &vwap), cursor.money(#","ask":"#, &ask), cursor.money(#","bid":"#, &bid),
              cursor.money(#","change24h":"#, &change24h), cursor.money(#","changePercent24h":"#, &changePercent24h),
              cursor.money(#","marketCap":"#, &marketCap), cursor.integer(#","marketCapRank":"#, &marketCapRank),
              cursor.money(#","circulatingSupply":"#, &circulatingSupply), cursor.money(#","totalSupply":"#, &totalSupply),
              cursor.money(#","maxSupply":"#, &maxSupply), cursor.money(#","allTimeHigh":"#, &allTimeHigh),
              cursor.date(#","time":"#, &time), cursor.expect("}")
        else { return nil }
        return Quote(
            source: source, market: .asWritten(base: base, quote: quote), last: last, open: open, high: high, low: low, volume: volume,
            quoteVolume: quoteVolume, vwap: vwap, ask: ask, bid: bid, change24h: change24h, changePercent24h: changePercent24h,
            marketCap: marketCap, marketCapRank: marketCapRank, circulatingSupply: circulatingSupply,
            totalSupply: totalSupply, maxSupply: maxSupply, allTimeHigh: allTimeHigh, time: time)
    }

    /// The members in wire order.
    public static var wireKeys: [StaticString] {
        [
            "source", "market", "last", "open", "high", "low", "volume", "quoteVolume", "vwap", "ask", "bid", "change24h",
            "changePercent24h", "marketCap", "marketCapRank", "circulatingSupply", "totalSupply", "maxSupply", "allTimeHigh", "time",
        ]
    }
}

extension MarketPair: DirectWireCodable {
    /// Writes the bytes `encode(wire:)` writes through ``WireJSONEncoder``.
    @inlinable
    public func writeWire(to out: inout WireBuffer) {
        out.append(#"{"base":"#)
        out.appendString(base)
        out.append(#","quote":"#)
        out.appendString(quote)
        out.append("}")
    }

    /// The pair if the cursor is at its canonical object, its codes as written (not upper-cased), as `init(wire:)` reads them.
    @inlinable
    public static func readWire(_ cursor: inout WireCursor) -> MarketPair? {
        guard cursor.expect(#"{"base":"#), let base = cursor.string(),
              cursor.expect(#","quote":"#), let quote = cursor.string(), cursor.expect("}")
        else { return nil }
        return asWritten(base: base, quote: quote)
    }

    /// The pair of these codes as they are: the public initializer upper-cases them, the wire keeps them as written.
    @inlinable @inline(__always)
    static func asWritten(base: String, quote: String) -> MarketPair {
        var pair = blank
        pair.base = base
        pair.quote = quote
        return pair
    }

    /// An empty pair made once, which ``asWritten(base:quote:)`` fills in, so that reading a pair upper-cases nothing.
    @usableFromInline
    static let blank = MarketPair(base: "", quote: "")

    /// The members in wire order.
    public static var wireKeys: [StaticString] { ["base", "quote"] }
}
