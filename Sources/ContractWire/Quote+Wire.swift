import Foundation
import Money
import Market
import TickwireContract
import WireJSON

// `quote.*` streams carry one `Quote` per market per poll: the wire codes them member by member.

extension Quote: WireCodable {
    /// The members of the synthesized `Codable` conformance, in its order (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(source, forKey: "source")
        try object.encode(market, forKey: "market")
        try object.encode(last, forKey: "last")
        try object.encodeIfPresent(open, forKey: "open")
        try object.encodeIfPresent(high, forKey: "high")
        try object.encodeIfPresent(low, forKey: "low")
        try object.encodeIfPresent(volume, forKey: "volume")
        try object.encodeIfPresent(quoteVolume, forKey: "quoteVolume")
        try object.encodeIfPresent(vwap, forKey: "vwap")
        try object.encodeIfPresent(ask, forKey: "ask")
        try object.encodeIfPresent(bid, forKey: "bid")
        try object.encodeIfPresent(change24h, forKey: "change24h")
        try object.encodeIfPresent(changePercent24h, forKey: "changePercent24h")
        try object.encodeIfPresent(marketCap, forKey: "marketCap")
        try object.encodeIfPresent(marketCapRank, forKey: "marketCapRank")
        try object.encodeIfPresent(circulatingSupply, forKey: "circulatingSupply")
        try object.encodeIfPresent(totalSupply, forKey: "totalSupply")
        try object.encodeIfPresent(maxSupply, forKey: "maxSupply")
        try object.encodeIfPresent(allTimeHigh, forKey: "allTimeHigh")
        try object.encodeIfPresent(time, forKey: "time")
    }

    /// Reads what the synthesized `init(from:)` reads.
    public init(wire object: WireObjectReader) throws {
        // A type of another module is made through its public initializer, then its members are read in.
        try self.init(source: object.decode(forKey: "source"), market: object.decode(forKey: "market"), last: object.decode(forKey: "last"))
        open = try object.decodeIfPresent(forKey: "open")
        high = try object.decodeIfPresent(forKey: "high")
        low = try object.decodeIfPresent(forKey: "low")
        volume = try object.decodeIfPresent(forKey: "volume")
        quoteVolume = try object.decodeIfPresent(forKey: "quoteVolume")
        vwap = try object.decodeIfPresent(forKey: "vwap")
        ask = try object.decodeIfPresent(forKey: "ask")
        bid = try object.decodeIfPresent(forKey: "bid")
        change24h = try object.decodeIfPresent(forKey: "change24h")
        changePercent24h = try object.decodeIfPresent(forKey: "changePercent24h")
        marketCap = try object.decodeIfPresent(forKey: "marketCap")
        marketCapRank = try object.decodeIfPresent(forKey: "marketCapRank")
        circulatingSupply = try object.decodeIfPresent(forKey: "circulatingSupply")
        totalSupply = try object.decodeIfPresent(forKey: "totalSupply")
        maxSupply = try object.decodeIfPresent(forKey: "maxSupply")
        allTimeHigh = try object.decodeIfPresent(forKey: "allTimeHigh")
        time = try object.decodeIfPresent(forKey: "time")
    }
}

extension MarketPair: WireCodable {
    /// The members of the synthesized `Codable` conformance (see ``WireCodable``).
    public func encode(wire object: WireObjectWriter) throws {
        try object.encode(base, forKey: "base")
        try object.encode(quote, forKey: "quote")
    }

    /// Reads what the synthesized `init(from:)` reads: the codes as written, not upper-cased.
    public init(wire object: WireObjectReader) throws {
        self.init(base: "", quote: "")
        base = try object.decode(forKey: "base")
        quote = try object.decode(forKey: "quote")
    }
}
