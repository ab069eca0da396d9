import PresenterViews
import Foundation
import TickwireContract
import Testing
@testable import PresenterCore

struct PortfolioViewTests {
    static func valuation(offline: Bool) throws -> Valuation {
        Valuation(
            currency: "USD",
            holdings: [try CoinViewTests.holding()],
            totalValue: try SampleData.decimal("35093.56"), totalCost: try SampleData.decimal("36000.00"), totalGain: try SampleData.decimal("-906.44"),
            pricesAsOf: SampleData.now.addingTimeInterval(-300), priceAgeSeconds: 300, offline: offline,
            warnings: ["ETH: no USD price"]
        )
    }

    static func trades() throws -> [Trade] {
        [
            Trade(id: "t1", asset: "BTC", amount: try SampleData.decimal("0.2"), price: try SampleData.decimal("60000"), currency: "USD",
                  date: Date(timeIntervalSince1970: 1_740_000_000), recordedAt: SampleData.now),
            Trade(id: "t2", asset: "BTC", amount: try SampleData.decimal("0.3"), price: try SampleData.decimal("80000"), currency: "USD",
                  date: Date(timeIntervalSince1970: 1_749_000_000), recordedAt: SampleData.now),
        ]
    }

    /// Trades newest first with amount, price and a locale date; totals with a signed gain.
    @Test func tradesAndTotals() throws {
        let view = PortfolioView.make(valuation: try Self.valuation(offline: false), trades: try Self.trades(), context: SampleData.context("de_AT"))
        #expect(view.trades.map(\.id) == ["t2", "t1"])
        #expect(view.trades[0].amount.text == "0,30000000\u{A0}BTC")
        #expect(view.trades[0].price.text == "80.000,00\u{A0}$")
        #expect(view.trades[0].dateText == "4. Juni 2025")
        #expect(view.trades[0].date == "2025-06-04T01:20:00Z")
        #expect(view.totalValue.text == "35.093,56\u{A0}$")
        #expect(view.totalCost.text == "36.000,00\u{A0}$")
        #expect(view.totalGain.text == "-906,44\u{A0}$")
        #expect(view.trend == .down)
        #expect(view.holdings.map(\.asset) == ["BTC"])
        #expect(view.notices == ["ETH: no USD price"])
    }

    /// Offline, the view says how old the stored prices are and why.
    @Test func offline() throws {
        let view = PortfolioView.make(valuation: try Self.valuation(offline: true), trades: [], context: SampleData.context())
        #expect(view.offline)
        #expect(view.notices == [
            "Prices are 5 min old: the converter is unreachable.",
            "ETH: no USD price",
            "No trades yet: add one from a coin's page.",
        ])
        #expect(view.dataAge?.seconds == 300)
    }
}
