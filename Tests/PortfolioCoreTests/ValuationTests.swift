import PortfolioEngine
import Foundation
import TickwireContract
import Money
import PortfolioCore
import Testing

@Suite("Valuations")
struct ValuationTests {
    private func trade(_ id: String, _ asset: String, _ amount: String, _ price: String, _ currency: String) throws -> Trade {
        Trade(id: id, asset: asset, amount: try dec(amount), price: try dec(price), currency: currency,
              date: now.addingTimeInterval(-86_400), recordedAt: now.addingTimeInterval(-86_400))
    }

    private func price(_ asset: String, _ currency: String, _ value: String, age: TimeInterval) throws -> (String, StoredPrice) {
        (Valuations.priceKey(asset: asset, currency: currency),
         StoredPrice(asset: asset, currency: currency, price: try dec(value), changePercent24h: nil, updatedAt: now.addingTimeInterval(-age)))
    }

    /// A USD portfolio worked out by hand: amounts, rounded values, same-currency and converted costs,
    /// gains, totals over what is known, warnings for what is not, and the oldest price's age.
    @Test func valuationWorkedByHand() throws {
        let trades = try [
            trade("b1", "BTC", "0.5", "30000.00", "USD"),   // cost 15000.00
            trade("b2", "BTC", "0.25", "40000", "EUR"),     // converted elsewhere: 10900.00 USD
            trade("d1", "DOGE", "5", "0.005", "USD"),       // 0.025 → 0.02 (half-even)
            trade("e1", "ETH", "1.5", "2000.333", "USD"),   // 3000.4995 → 3000.50; no ETH price
            trade("s1", "SOL", "10", "20", "EUR"),          // no converted cost
        ]
        let prices = Dictionary(uniqueKeysWithValues: try [
            price("BTC", "USD", "61234.567", age: 120),    // 0.75 × 61234.567 = 45925.92525 → 45925.93
            price("DOGE", "USD", "0.085", age: 30),        // 5 × 0.085 = 0.425 → 0.42 (half-even)
            price("SOL", "USD", "25.5", age: 600),         // 10 × 25.5 = 255
            price("ETH", "EUR", "1800", age: 5000),        // another currency: not used
        ])
        let valuation = try Valuations.valuation(
            activities: trades, prices: prices, currency: .usd, converted: [CurrencyAmount(amount: 10_000, currency: "EUR"): try dec("10900.00")],
            offline: true, now: now, warnings: ["earlier warning"])

        #expect(valuation.currency == "USD")
        #expect(valuation.holdings.map(\.asset) == ["BTC", "DOGE", "ETH", "SOL"])
        let byAsset = Dictionary(uniqueKeysWithValues: valuation.holdings.map { ($0.asset, $0) })

        let btc = try #require(byAsset["BTC"])
        #expect(btc.amount == (try dec("0.75")))
        #expect(btc.trades == 2)
        #expect(btc.price == (try dec("61234.567")))
        #expect(btc.value == (try dec("45925.93")))
        #expect(btc.cost == (try dec("25900.00")))
        #expect(btc.gain == (try dec("20025.93")))
        #expect(btc.priceTime == now.addingTimeInterval(-120))

        let doge = try #require(byAsset["DOGE"])
        #expect(doge.value == (try dec("0.42")))
        #expect(doge.cost == (try dec("0.02")))
        #expect(doge.gain == (try dec("0.40")))

        let eth = try #require(byAsset["ETH"])
        #expect(eth.amount == (try dec("1.5")))
        #expect(eth.price == nil)
        #expect(eth.value == nil)
        #expect(eth.cost == (try dec("3000.50")))
        #expect(eth.gain == nil)
        #expect(eth.priceTime == nil)

        let sol = try #require(byAsset["SOL"])
        #expect(sol.value == (try dec("255.00")))
        #expect(sol.cost == nil)
        #expect(sol.gain == nil)

        #expect(valuation.totalValue.description == "46181.35")   // 45925.93 + 0.42 + 255
        #expect(valuation.totalCost.description == "28900.52")    // 25900.00 + 0.02 + 3000.50
        #expect(valuation.totalGain.description == "20026.33")    // 20025.93 + 0.40
        #expect(valuation.pricesAsOf == now.addingTimeInterval(-600))
        #expect(valuation.priceAgeSeconds == 600)
        #expect(valuation.offline)
        #expect(valuation.warnings == [
            "earlier warning",
            "no USD price for ETH yet: its value and unrealized gain are unknown",
            "the amounts of SOL in EUR could not be converted to USD: its cost basis, gains and fees are unknown",
        ])
    }

    /// Values and costs round to the valuation currency's minor units: none for JPY.
    @Test func roundsToTheCurrencysMinorUnits() throws {
        let trades = try [trade("t", "BTC", "0.123", "10000001", "JPY")]  // 1230000.123 → 1230000
        let prices = Dictionary(uniqueKeysWithValues: [try price("BTC", "JPY", "11000000.5", age: 0)])  // 1353000.0615 → 1353000
        let valuation = try Valuations.valuation(activities: trades, prices: prices, currency: .jpy, converted: [:], offline: false, now: now)
        let btc = try #require(valuation.holdings.first)
        #expect(btc.cost == 1_230_000)
        #expect(btc.value == 1_353_000)
        #expect(btc.gain == 123_000)
        #expect(valuation.totalGain.description == "123000")
        #expect(valuation.priceAgeSeconds == 0)
        #expect(valuation.warnings.isEmpty)
        #expect(valuation.offline == false)
    }

    /// Holding values and same-currency costs are written at the currency's minor units, like the totals.
    @Test func holdingAmountsAtMinorUnits() throws {
        let trades = try [trade("s", "SOL", "10", "20", "USD")]                               // cost 200
        let prices = Dictionary(uniqueKeysWithValues: [try price("SOL", "USD", "25.5", age: 0)])  // value 255.0
        let valuation = try Valuations.valuation(activities: trades, prices: prices, currency: .usd, converted: [:], offline: false, now: now)
        let sol = try #require(valuation.holdings.first)
        #expect(sol.value == 255)
        #expect(sol.cost == 200)
        #expect(valuation.totalValue.description == "255.00")
        #expect(sol.value?.description == "255.00")
        #expect(sol.cost?.description == "200.00")
        #expect(sol.gain?.description == "55.00")
    }

    /// No trades: zero totals at the currency's scale, no price age, no warnings.
    @Test func emptyPortfolio() throws {
        let valuation = try Valuations.valuation(activities: [], prices: [:], currency: .eur, converted: [:], offline: false, now: now)
        #expect(valuation.holdings.isEmpty)
        #expect(valuation.totalValue.description == "0.00")
        #expect(valuation.totalCost.description == "0.00")
        #expect(valuation.pricesAsOf == nil)
        #expect(valuation.priceAgeSeconds == nil)
        #expect(valuation.warnings.isEmpty)
    }

    /// A price stamped after `now` (clock skew) gives an age of 0, never negative.
    @Test func futurePriceHasAgeZero() throws {
        let trades = try [trade("t", "BTC", "1", "1", "USD")]
        let prices = Dictionary(uniqueKeysWithValues: [try price("BTC", "USD", "2", age: -30)])
        let valuation = try Valuations.valuation(activities: trades, prices: prices, currency: .usd, converted: [:], offline: false, now: now)
        #expect(valuation.priceAgeSeconds == 0)
        #expect(valuation.totalValue == 2)
    }

    /// Holdings count sells and transfers: what is held is what came in less what went out, at the FIFO cost of the
    /// rest; an asset moved out entirely is not held.
    @Test func sellsAndTransfersReduceHoldings() throws {
        let activities = try [
            activity("b1", .buy, "BTC", "1", at: "100", day: 1),
            activity("b2", .buy, "BTC", "1", at: "200", day: 2),
            activity("s", .sell, "BTC", "1.5", at: "300", day: 3),
            activity("d", .buy, "DOGE", "10", at: "1", day: 1),
            activity("o", .transferOut, "DOGE", "10", day: 2),
        ]
        let prices = Dictionary(uniqueKeysWithValues: [try price("BTC", "USD", "250", age: 10)])
        let valuation = try Valuations.valuation(activities: activities, prices: prices, currency: .usd, converted: [:], offline: false, now: now)
        #expect(valuation.holdings.map(\.asset) == ["BTC"])
        let btc = try #require(valuation.holdings.first)
        #expect(btc.amount == (try dec("0.5")) && btc.trades == 3)
        #expect(btc.cost?.description == "100.00")   // half of the second lot
        #expect(btc.value?.description == "125.00")
        #expect(btc.gain?.description == "25.00")
        #expect(valuation.totalCost.description == "100.00" && valuation.totalGain.description == "25.00")
        #expect(valuation.warnings.isEmpty)
    }
}
