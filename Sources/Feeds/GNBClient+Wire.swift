import Foundation
import Market
import Money

/// GNB's JSON: arrays of objects whose numbers are strings (`{"from", "to", "rate": "1.359"}`).
enum GNBWire {
    private struct Rate: Decodable {
        let from: String
        let to: String
        let rate: ExactDecimal
    }

    private struct Transaction: Decodable {
        let sku: String
        let amount: ExactDecimal
        let currency: String
    }

    static func rates(from data: Data, origin: String) throws(FeedError) -> [ExchangeRate] {
        try Wire.decode([Rate].self, from: data, origin: origin).map {
            ExchangeRate(from: $0.from, to: $0.to, rate: $0.rate)
        }
    }

    static func transactions(from data: Data, origin: String) throws(FeedError) -> [GNBTransaction] {
        try Wire.decode([Transaction].self, from: data, origin: origin).map {
            GNBTransaction(sku: $0.sku, amount: $0.amount, currency: $0.currency)
        }
    }
}
