import Foundation
import Market
import Money

/// WazirX's JSON: an array of tickers with prices as strings, or `{"code", "message"}` on error.
enum WazirXWire {
    static let source = "wazirx"

    private struct Ticker: Decodable {
        let symbol: String
        let baseAsset: String
        let quoteAsset: String
        let lastPrice: ExactDecimal
        let openPrice: ExactDecimal?
        let lowPrice: ExactDecimal?
        let highPrice: ExactDecimal?
        let volume: ExactDecimal?
        let bidPrice: ExactDecimal?
        let askPrice: ExactDecimal?
        let at: Int64?
    }

    private struct APIError: Decodable {
        let code: Int
        let message: String
    }

    static func tickers(from data: Data, origin: String) throws(FeedError) -> [Quote] {
        var quotes: [Quote] = []
        for ticker in try Wire.decode([Ticker].self, from: data, origin: origin) {
            guard !ticker.baseAsset.isEmpty, !ticker.quoteAsset.isEmpty else {
                throw Wire.malformed(origin, reason: "ticker \(ticker.symbol) has no base or quote asset", data)
            }
            var quote = Quote(
                source: source, market: MarketPair(base: ticker.baseAsset, quote: ticker.quoteAsset),
                last: ticker.lastPrice, open: ticker.openPrice, high: ticker.highPrice, low: ticker.lowPrice,
                volume: ticker.volume, ask: ticker.askPrice, bid: ticker.bidPrice,
                time: ticker.at.map(Wire.date(milliseconds:))
            )
            if let open = ticker.openPrice, open > .zero {
                do {
                    let change = try ticker.lastPrice - open
                    quote.change24h = change
                    quote.changePercent24h = try (change * ExactDecimal(100)).divided(by: open, scale: 4)
                } catch {
                    throw Wire.malformed(origin, reason: "cannot compute the change of \(ticker.symbol): \(error)", data)
                }
            }
            quotes.append(quote)
        }
        return quotes
    }

    /// WazirX's error body (`{"code": -1121, "message": "Invalid symbol."}`), if `data` is one.
    static func apiError(in data: Data, origin: String) -> FeedError? {
        guard let body = try? Wire.decode(APIError.self, from: data, origin: origin) else { return nil }
        return .api(source: source, code: String(body.code), message: body.message, url: origin)
    }
}
