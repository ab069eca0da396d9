import PresenterViews
import Foundation
import Testing
@testable import PresenterCore

struct CoinsViewTests {
    private func coins(currency: String = "USD") throws -> [CoinSnapshot] {
        [
            CoinSnapshot(symbol: "BTC", name: "Bitcoin", image: "https://example.com/btc.png", price: try SampleData.price("BTC", "70187.12345678", change: "3.12502", currency: currency), watched: true),
            CoinSnapshot(symbol: "XRP", name: "XRP", price: try SampleData.price("XRP", "0.52345678", change: "-1.5", currency: currency), watched: false),
            CoinSnapshot(symbol: "DOGE", name: "Dogecoin", price: nil, watched: false),
        ]
    }

    /// Prices in USD with the dollar's digits (more below 1), signed changes, trend flags.
    @Test func dollars() throws {
        let view = CoinsView.make(coins: try coins(), context: SampleData.context())
        #expect(view.currency == "USD")
        #expect(view.rows.map(\.priceText) == ["$70,187.12", "$0.523457", "no price"])
        #expect(view.rows[0].price?.raw == "70187.12345678")
        #expect(view.rows.map { $0.change24h?.text } == ["+3.13%", "-1.50%", nil])
        #expect(view.rows.map(\.trend) == [.up, .down, nil])
        #expect(view.rows.map(\.watched) == [true, false, false])
        #expect(view.dataAge?.seconds == 30)
    }

    /// A missing price is "no price" with a notice, never 0.
    @Test func missingPrice() throws {
        let view = CoinsView.make(coins: try coins(), context: SampleData.context())
        #expect(view.rows[2].price == nil)
        #expect(view.notices == ["No USD price yet for DOGE."])
    }

    /// Kronor in sv_SE; a USD price on a SEK page is not shown.
    @Test func kronor() throws {
        var list = try coins(currency: "SEK")
        list[1].price = try SampleData.price("XRP", "0.5", change: nil, currency: "USD")
        let view = CoinsView.make(coins: list, context: SampleData.context("sv_SE", currency: "SEK"))
        #expect(view.rows[0].priceText == "70\u{A0}187,12\u{A0}kr")
        #expect(view.rows[1].priceText == "no price")
        #expect(view.notices == [
            "Prices for XRP came in another currency than SEK and are not shown.",
            "No SEK price yet for DOGE.",
        ])
    }

    /// Prices older than five minutes are called out.
    @Test func stalePrices() throws {
        let list = [CoinSnapshot(symbol: "BTC", name: "Bitcoin", price: try SampleData.price("BTC", "70187", change: nil, age: 420), watched: false)]
        let view = CoinsView.make(coins: list, context: SampleData.context(), notices: ["converter is failing"])
        #expect(view.notices == ["converter is failing", "Prices are 7 min old."])
        #expect(view.dataAge?.asOf == "2025-06-15T14:59:40Z")
    }
}
