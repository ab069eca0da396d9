import Foundation
import Market
import Money

/// CoinGecko's JSON: numbers as JSON numbers, times as ISO 8601 or milliseconds; errors as
/// `{"error": "coin not found"}` or `{"status": {"error_code": 429, "error_message": "..."}}`.
enum CoinGeckoWire {
    static let source = "coingecko"

    private struct Market: Decodable {
        let id: String
        let symbol: String
        let name: String
        let image: String?
        let currentPrice: ExactDecimal?
        let marketCap: ExactDecimal?
        let marketCapRank: Int?
        let totalVolume: ExactDecimal?
        let high24h: ExactDecimal?
        let low24h: ExactDecimal?
        let priceChange24h: ExactDecimal?
        let priceChangePercentage24h: ExactDecimal?
        let circulatingSupply: ExactDecimal?
        let totalSupply: ExactDecimal?
        let maxSupply: ExactDecimal?
        let ath: ExactDecimal?
        let lastUpdated: String?

        enum CodingKeys: String, CodingKey {
            case id, symbol, name, image, ath
            case currentPrice = "current_price", marketCap = "market_cap", marketCapRank = "market_cap_rank"
            case totalVolume = "total_volume", high24h = "high_24h", low24h = "low_24h"
            case priceChange24h = "price_change_24h", priceChangePercentage24h = "price_change_percentage_24h"
            case circulatingSupply = "circulating_supply", totalSupply = "total_supply", maxSupply = "max_supply"
            case lastUpdated = "last_updated"
        }
    }

    private struct Chart: Decodable {
        let prices: [Point]
    }

    /// `[1692921595000, 26140.796452782302]`: milliseconds and a price, nothing else.
    private struct Point: Decodable {
        let milliseconds: Int64
        let price: ExactDecimal

        init(from decoder: any Decoder) throws {
            var pair = try decoder.unkeyedContainer()
            milliseconds = try pair.decode(Int64.self)
            price = try pair.decode(ExactDecimal.self)
            guard pair.isAtEnd else {
                throw DecodingError.dataCorruptedError(in: pair, debugDescription: "more than [time, price]")
            }
        }
    }

    private struct ErrorBody: Decodable {
        struct Status: Decodable {
            let errorCode: Int
            let errorMessage: String

            enum CodingKeys: String, CodingKey {
                case errorCode = "error_code", errorMessage = "error_message"
            }
        }

        let error: String?
        let status: Status?
    }

    static func markets(from data: Data, origin: String, currency: String) throws(FeedError) -> [CoinMarket] {
        var markets: [CoinMarket] = []
        for coin in try Wire.decode([Market].self, from: data, origin: origin) {
            guard let price = coin.currentPrice else {
                throw Wire.malformed(origin, reason: "\(coin.id) has no current_price", data)
            }
            let quote = Quote(
                source: source, market: MarketPair(base: coin.symbol, quote: currency), last: price,
                high: coin.high24h, low: coin.low24h, quoteVolume: coin.totalVolume,
                change24h: coin.priceChange24h, changePercent24h: coin.priceChangePercentage24h,
                marketCap: coin.marketCap, marketCapRank: coin.marketCapRank,
                circulatingSupply: coin.circulatingSupply, totalSupply: coin.totalSupply,
                maxSupply: coin.maxSupply, allTimeHigh: coin.ath,
                time: try coin.lastUpdated.map { text throws(FeedError) in try Wire.isoDate(text, origin: origin, data) }
            )
            let info = CoinInfo(id: coin.id, symbol: coin.symbol.uppercased(), name: coin.name, image: coin.image ?? "")
            markets.append(CoinMarket(coin: info, quote: quote))
        }
        return markets
    }

    static func history(from data: Data, origin: String, id: String, currency: String) throws(FeedError) -> PriceHistory {
        let chart = try Wire.decode(Chart.self, from: data, origin: origin)
        let points = chart.prices.map { PricePoint(time: Wire.date(milliseconds: $0.milliseconds), price: $0.price) }
        return PriceHistory(asset: id, currency: currency.uppercased(), points: points)
    }

    /// CoinGecko's error body, if `data` is one.
    static func apiError(in data: Data, origin: String) -> FeedError? {
        guard let body = try? Wire.decode(ErrorBody.self, from: data, origin: origin) else {
            return nil
        }
        if let status = body.status {
            return .api(source: source, code: String(status.errorCode), message: status.errorMessage, url: origin)
        }
        if let error = body.error {
            return .api(source: source, code: "error", message: error, url: origin)
        }
        return nil
    }
}
