import Foundation
import Market
import Money
import Testing

@Suite struct MarketTests {
    /// A pair has a symbol for keys and a display name for people, and parses only well-formed symbols.
    @Test func marketPair() throws {
        let pair = MarketPair(base: "btc", quote: "mxn")
        #expect(pair.symbol == "BTC-MXN")
        #expect(pair.displayName == "BTC MXN")
        #expect(MarketPair(symbol: "BTC-MXN") == pair)
        #expect(MarketPair(symbol: "BTCMXN") == nil)
        #expect(MarketPair(symbol: "-MXN") == nil)
        #expect(MarketPair(symbol: "A-B-C") == nil)
    }

    /// On the wire a quote's money is decimal strings, and it decodes back to the same quote.
    @Test func quoteRoundTrip() throws {
        let quote = Quote(
            source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: try dec("57800.00"),
            high: try dec("58099.00"), volume: try dec("253.02784379"), marketCapRank: 1,
            time: Date(timeIntervalSince1970: 1_502_125_963)
        )
        let data = try JSONEncoder().encode(quote)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["last"] is String)
        #expect(object["high"] is String)
        #expect(object["volume"] is String)
        #expect(object["low"] == nil)
        #expect(try JSONDecoder().decode(Quote.self, from: data) == quote)
    }

    /// Masterdata values survive the wire unchanged.
    @Test func masterdataRoundTrip() throws {
        let asset = Asset(
            id: "1", kind: .cryptocoin, symbol: "BTC", name: "Bitcoin", iconLight: "l.svg", iconDark: "d.svg",
            amountPrecision: 4, pricePrecision: 2, averagePrice: try dec("8936.50")
        )
        let wallet = Wallet(
            id: "w", kind: .cryptocoin, name: "BTC Wallet", assetId: "1", assetSymbol: "BTC",
            balance: try dec("2.26908585"), isDefault: true, deleted: false, pendingTransactions: 30
        )
        let masterdata = Masterdata(assets: [asset], wallets: [wallet])
        let decoded = try JSONDecoder().decode(Masterdata.self, from: JSONEncoder().encode(masterdata))
        #expect(decoded == masterdata)
        #expect(decoded.asset(for: wallet) == asset)
    }
}
