import Conversion
import Bus
import ConverterCore
import Feeds
import Foundation
import Market
import TickwireContract
import Money
import Testing

/// A reference for the quiet-stone recording, independent of `Money`: amounts read from the JSON text as
/// integer cents, each currency's rate to EUR multiplied out by hand along the shortest path of
/// quiet-stone-2021-08-07-rates.json, each conversion rounded half-even with integer division.
private enum QuietStoneReference {
    /// 1 unit in EUR as numerator / denominator (powers of ten for the two-decimal rates).
    static let toEUR: [String: (numerator: Int, denominator: Int)] = [
        "EUR": (1, 1),
        "AUD": (127, 100),                          // AUD→EUR 1.27
        "CAD": (161 * 127, 100 * 100),              // CAD→AUD 1.61, AUD→EUR 1.27
        "USD": (93 * 161 * 127, 100 * 100 * 100),   // USD→CAD 0.93, CAD→AUD 1.61, AUD→EUR 1.27
    ]

    /// "34.9" → 3490; nil unless digits with at most two decimals.
    static func cents(_ text: String) -> Int? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let units = Int(parts[0]), units >= 0 else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 2, fraction.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return units * 100 + (Int(fraction.padding(toLength: 2, withPad: "0", startingAt: 0)) ?? 0)
    }

    /// p / q rounded half to even (p >= 0, q > 0).
    static func roundHalfEven(_ p: Int, _ q: Int) -> Int {
        let (quotient, remainder) = p.quotientAndRemainder(dividingBy: q)
        if 2 * remainder > q { return quotient + 1 }
        if 2 * remainder == q { return quotient.isMultiple(of: 2) ? quotient : quotient + 1 }
        return quotient
    }

    /// 1234567 → "12345.67".
    static func text(cents: Int) -> String {
        let fraction = cents % 100
        return "\(cents / 100)." + (fraction < 10 ? "0\(fraction)" : "\(fraction)")
    }
}

@Suite("GNB conversions")
struct GNBConversionTests {
    /// Every pair among EUR, USD and CAD is reachable from each base, with the given or derived rate and its path.
    @Test func everyPairOfTheSampleIsReachable() async throws {
        let book = try book(try await gnbSampleMessages())
        let expected: [String: [(String, String, [String])]] = [
            "EUR": [("CAD", "1.366", ["EUR", "CAD"]), ("USD", "1.359", ["EUR", "USD"])],
            "USD": [("CAD", "1.005376", ["USD", "EUR", "CAD"]), ("EUR", "0.736", ["USD", "EUR"])],
            "CAD": [("EUR", "0.732", ["CAD", "EUR"]), ("USD", "0.994788", ["CAD", "EUR", "USD"])],
        ]
        for (base, entries) in expected {
            let result = try rates(from: base, source: "gnb", in: book)
            #expect(result.base == base)
            #expect(result.source == "gnb")
            #expect(result.rates.map(\.currency) == entries.map(\.0), "from \(base)")
            for (entry, want) in zip(result.rates, entries) {
                #expect(entry.rate == (try dec(want.1)), "\(base)→\(entry.currency)")
                #expect(entry.path == want.2, "\(base)→\(entry.currency)")
                #expect(entry.rateExact, "\(base)→\(entry.currency)")
            }
        }
    }

    /// USD→CAD, missing from the sample, is derived through EUR: 0.736 × 1.366 = 1.005376 exactly.
    @Test func usdToCADIsDerivedThroughEUR() async throws {
        let book = try book(try await gnbSampleMessages())
        let result = try convert("100", "USD", "CAD", source: "gnb", in: book)
        #expect(result.rate == (try dec("1.005376")))
        #expect(result.rateExact)
        #expect(result.path == ["USD", "EUR", "CAD"])
        #expect(result.amount == (try dec("100.54")))  // 100.5376 rounded half-even to cents
        #expect(result.amount.scale == 2)
        #expect(result.currency == "CAD")
        #expect(result.source == "gnb")
    }

    /// T2006's two sales total 14.99 EUR: 10.00 USD → 7.36 and 7.63 EUR → 7.63.
    @Test func t2006TotalsFourteenNinetyNine() async throws {
        let book = try book(try await gnbSampleMessages())
        let transactions = try await GNBClient.test.transactions().filter { $0.sku == "T2006" }
        #expect(transactions.count == 2)
        var copy = book
        let result = try Conversions.total(
            TotalRequest(items: transactions.map { CurrencyAmount(amount: $0.amount, currency: $0.currency) }, to: "EUR", source: "gnb"),
            in: &copy)
        #expect(result.total == (try dec("14.99")))
        #expect(result.total.description == "14.99")
        #expect(result.currency == "EUR")
        #expect(result.source == "gnb")
        #expect(result.items.map(\.converted) == [try dec("7.36"), try dec("7.63")])
        #expect(result.items.map(\.path) == [["USD", "EUR"], ["EUR"]])
        #expect(result.items.map(\.currency) == ["USD", "EUR"])
    }

    /// Each item is rounded before summing: three 0.005 EUR → USD items at 1.359 give 3 × 0.01, not round(0.020385).
    @Test func totalIsTheSumOfRoundedItems() async throws {
        let book = try book(try await gnbSampleMessages())
        let result = try total([("0.005", "EUR"), ("0.005", "EUR"), ("0.005", "EUR")], to: "USD", source: "gnb", in: book)
        // 0.005 × 1.359 = 0.006795 → 0.01 each; the sum 0.03 differs from 0.015 × 1.359 = 0.020385 → 0.02.
        #expect(result.items.map(\.converted) == Array(repeating: try dec("0.01"), count: 3))
        #expect(result.total == (try dec("0.03")))
    }

    /// The whole 5,061-sale recording totals, per SKU in EUR, exactly what integer-cents arithmetic gives.
    @Test func quietStoneTotalsMatchAnIndependentReference() async throws {
        let rates = try Wire.decode([ExchangeRate].self, from: FeedFixture.gnbRatesLarge.data())
        #expect(rates.count == 6)
        let book = try book(try rates.map { try rateMessage("gnb", $0.from, $0.to, $0.rate.description) })
        let raw = try JSONDecoder().decode([[String: String]].self, from: FeedFixture.gnbTransactionsLarge.data())
        #expect(raw.count == 5061)

        var expectedCents: [String: Int] = [:]
        var items: [String: [CurrencyAmount]] = [:]
        for transaction in raw {
            let sku = try #require(transaction["sku"])
            let amountText = try #require(transaction["amount"])
            let currency = try #require(transaction["currency"])
            let rate = try #require(QuietStoneReference.toEUR[currency], "unexpected currency \(currency)")
            let cents = try #require(QuietStoneReference.cents(amountText), "unexpected amount \(amountText)")
            expectedCents[sku, default: 0] += QuietStoneReference.roundHalfEven(cents * rate.numerator, rate.denominator)
            items[sku, default: []].append(CurrencyAmount(amount: try dec(amountText), currency: currency))
        }
        #expect(expectedCents.count == 16)
        // One figure pinned from a separate computation with exact fractions, to guard the reference itself.
        #expect(expectedCents["A6102"] == 1_125_632)
        #expect(expectedCents.values.reduce(0, +) == 19_711_040)

        for sku in items.keys.sorted() {
            var copy = book
            let result = try Conversions.total(TotalRequest(items: items[sku] ?? [], to: "EUR", source: "gnb"), in: &copy)
            let want = try #require(expectedCents[sku])
            #expect(result.total.description == QuietStoneReference.text(cents: want), "SKU \(sku)")
            #expect(result.items.count == items[sku]?.count)
        }
        var copy = book
        let usd = try Conversions.convert(ConvertRequest(amount: 1, from: "USD", to: "EUR", source: "gnb"), in: &copy)
        #expect(usd.path == ["USD", "CAD", "AUD", "EUR"])
        #expect(usd.rate == (try dec("1.901571")))  // 0.93 × 1.61 × 1.27
    }
}
