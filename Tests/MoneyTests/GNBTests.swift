import Foundation
import Money
import Testing

/// The GNB rule: each transaction is converted to EUR with the exact derived rate and rounded half-even
/// to 2 decimals; a SKU's total is the sum of the rounded amounts.
private func totalsInEUR(rates: [ExchangeRate], transactions: [Transaction]) throws -> [String: ExactDecimal] {
    let graph = try RateGraph(rates)
    var toEUR: [String: DerivedRate] = [:]
    for currency in Set(transactions.map(\.currency)) {
        toEUR[currency] = try graph.rate(from: currency, to: "EUR")
    }
    var totals: [String: ExactDecimal] = [:]
    for transaction in transactions {
        let rate = try #require(toEUR[transaction.currency])
        let eur = try rate.convert(transaction.amount, scale: 2)
        try totals[transaction.sku, default: .zero] += eur
    }
    return totals
}

/// A deliberately simple reference, independent of `Money`: amounts read from the raw JSON text into integer
/// cents, rates to EUR written out by hand as integer fractions, each conversion rounded half-even by integer
/// quotient and remainder.
private enum Reference {
    /// 1 unit of the currency in EUR as numerator / denominator, derived by hand along the shortest path
    /// of quiet-stone-2021-08-07-rates.json.
    static let quietStoneToEUR: [String: (numerator: Int, denominator: Int)] = [
        "EUR": (1, 1),
        "AUD": (127, 100),  // AUD→EUR 1.27
        "CAD": (161 * 127, 100 * 100),  // CAD→AUD 1.61, AUD→EUR 1.27
        "USD": (93 * 161 * 127, 100 * 100 * 100),  // USD→CAD 0.93, CAD→AUD 1.61, AUD→EUR 1.27
    ]

    /// "34.9" → 3490 cents; nil for anything but digits with at most two decimals.
    static func cents(_ text: String) -> Int? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard (1...2).contains(parts.count), let units = Int(parts[0]) else { return nil }
        let fraction = parts.count == 2 ? String(parts[1]) : ""
        guard fraction.count <= 2, fraction.allSatisfy(\.isASCII) else { return nil }
        guard let hundredths = Int(fraction.padding(toLength: 2, withPad: "0", startingAt: 0)) else { return nil }
        return units * 100 + hundredths
    }

    /// p / q rounded half to even, for p >= 0 and q > 0.
    static func roundHalfEven(_ p: Int, _ q: Int) -> (value: Int, wasTie: Bool) {
        let (quotient, remainder) = p.quotientAndRemainder(dividingBy: q)
        if 2 * remainder > q { return (quotient + 1, false) }
        if 2 * remainder == q { return (quotient % 2 == 0 ? quotient : quotient + 1, true) }
        return (quotient, false)
    }

    /// Totals in cents per SKU, and how many conversions were exact ties.
    static func totals(rawTransactions: [[String: String]]) throws -> (cents: [String: Int], ties: Int) {
        var totals: [String: Int] = [:]
        var ties = 0
        for raw in rawTransactions {
            let sku = try #require(raw["sku"])
            let amountText = try #require(raw["amount"])
            let amount = try #require(cents(amountText))
            let currency = try #require(raw["currency"])
            let rate = try #require(quietStoneToEUR[currency])
            let (eurCents, wasTie) = roundHalfEven(amount * rate.numerator, rate.denominator)
            totals[sku, default: 0] += eurCents
            if wasTie { ties += 1 }
        }
        return (totals, ties)
    }

    /// 1234567 cents → "12345.67".
    static func text(cents: Int) -> String {
        let fraction = String(cents % 100)
        return "\(cents / 100)." + (fraction.count == 1 ? "0" + fraction : fraction)
    }
}

@Suite("GNB totals")
struct GNBTests {
    @Test func sampleT2006Is1499() throws {
        let transactions = try Fixture.sampleTransactions.transactions()
        let totals = try totalsInEUR(rates: Fixture.sampleRates.rates(), transactions: transactions)
        #expect(totals["T2006"]?.description == "14.99")
        #expect(totals["M2007"]?.description == "25.31")  // 34.57 × 0.732 = 25.30524
        #expect(totals["R2008"]?.description == "13.21")  // 17.95 × 0.736 = 13.2112
        #expect(totals["B2009"]?.description == "15.63")  // 21.23 × 0.736 = 15.62528
        let graph = try RateGraph(Fixture.sampleRates.rates())
        #expect(try graph.convert(dec("10.00"), from: "USD", to: "EUR", scale: 2).description == "7.36")
    }

    @Test func quietStoneMatchesTheIndependentReference() throws {
        let transactions = try Fixture.quietStoneTransactions.transactions()
        #expect(transactions.count == 5061)
        let totals = try totalsInEUR(rates: Fixture.quietStoneRates.rates(), transactions: transactions)
        let raw = try JSONDecoder().decode([[String: String]].self, from: Fixture.quietStoneTransactions.data())
        let reference = try Reference.totals(rawTransactions: raw)
        #expect(totals.count == 16)
        #expect(Set(totals.keys) == Set(reference.cents.keys))
        #expect(reference.ties == 112, "exact half-cent ties make banker's rounding matter")
        for (sku, cents) in reference.cents {
            #expect(totals[sku]?.description == Reference.text(cents: cents), "\(sku)")
        }
    }

    @Test func quietStoneSpotChecks() throws {
        let graph = try RateGraph(Fixture.quietStoneRates.rates())
        // 34.9 CAD × 2.0447 = 71.36003
        #expect(try graph.convert(dec("34.9"), from: "CAD", to: "EUR", scale: 2).description == "71.36")
        // 33.4 USD × 1.901571 = 63.5124714
        #expect(try graph.convert(dec("33.4"), from: "USD", to: "EUR", scale: 2).description == "63.51")
        // 29.1 AUD × 1.27 = 36.957
        #expect(try graph.convert(dec("29.1"), from: "AUD", to: "EUR", scale: 2).description == "36.96")
        // 20.5 AUD × 1.27 = 26.035, a tie: half-even keeps 26.04 (4 is even); half-up would too
        #expect(try graph.convert(dec("20.5"), from: "AUD", to: "EUR", scale: 2).description == "26.04")
        // 15.5 AUD × 1.27 = 19.685, a tie: half-even 19.68, half-up 19.69
        #expect(try graph.convert(dec("15.5"), from: "AUD", to: "EUR", scale: 2).description == "19.68")
        #expect(try graph.convert(dec("15.5"), from: "AUD", to: "EUR", scale: 2, rule: .halfUp).description == "19.69")
    }

    @Test func quietStoneTotalsFromPythonDecimal() throws {
        // Computed outside Swift with Python's decimal module (ROUND_HALF_EVEN per transaction), from the same fixture.
        let expected = [
            "A6102": "11256.32", "E1726": "11623.32", "F0975": "11886.72", "G9869": "11596.36",
            "K6093": "14353.28", "M4679": "11790.77", "N5263": "12489.77", "O7762": "13348.34",
            "P5615": "13872.51", "Q3729": "12478.18", "S1353": "12123.80", "S4408": "12753.05",
            "U8908": "11828.27", "W7892": "10685.96", "X6379": "12791.82", "Y8170": "12231.93",
        ]
        let totals = try totalsInEUR(rates: Fixture.quietStoneRates.rates(), transactions: Fixture.quietStoneTransactions.transactions())
        #expect(totals.mapValues(\.description) == expected)
    }
}
