import Foundation
import Money

/// Benchmark 3: `total` of 1,000,000 transactions in EUR; benchmark 4: locale formatting.
enum ConversionBench {
    /// The rates both sides use (bench/conversion.py has the same table): a tree, so every
    /// shortest path is unique; GBP -> EUR needs the inverse of EUR -> GBP.
    static let rates: [(String, String, String)] = [
        ("USD", "EUR", "0.7361"),
        ("CAD", "USD", "0.7312"),
        ("AUD", "CAD", "0.9234"),
        ("SEK", "EUR", "0.08712"),
        ("JPY", "USD", "0.006672"),
        ("EUR", "GBP", "0.8571"),
    ]
    /// Transaction currencies in generator order.
    static let currencies = ["EUR", "USD", "CAD", "AUD", "SEK", "JPY", "GBP"]

    static func graph() throws -> RateGraph {
        try RateGraph(rates.map { ExchangeRate(from: $0.0, to: $0.1, rate: try ExactDecimal($0.2)) })
    }

    struct Transactions {
        var amounts: [ExactDecimal]
        var currency: [UInt8]
    }

    /// Deterministic transactions (splitmix64, seed 20261123), the same as bench/conversion.py:
    /// currency = r1 % 7; JPY amounts are whole yen r2 % 10^7, others cents r2 % 10^7 at scale 2;
    /// negative (a refund) when r1 >> 40 % 10 == 0.
    static func transactions(count: Int, seed: UInt64 = 20_261_123) -> Transactions {
        var random = SplitMix64(state: seed)
        var amounts: [ExactDecimal] = [], currency: [UInt8] = []
        amounts.reserveCapacity(count)
        currency.reserveCapacity(count)
        for _ in 0..<count {
            let r1 = random.next(), r2 = random.next()
            let c = Int(r1 % 7)
            var mantissa = Int128(r2 % 10_000_000)
            if (r1 >> 40) % 10 == 0 { mantissa = -mantissa }
            amounts.append(try! ExactDecimal(mantissa: mantissa, scale: currencies[c] == "JPY" ? 0 : 2))
            currency.append(UInt8(c))
        }
        return Transactions(amounts: amounts, currency: currency)
    }

    /// Each currency's derived rate to EUR once (as its exact factor), then convert (half-even, 2 places) and sum.
    static func total(_ transactions: Transactions, graph: RateGraph) throws -> ExactDecimal {
        let toEUR = try currencies.map { try graph.rate(from: $0, to: "EUR").factor }
        var total = try ExactDecimal(mantissa: 0, scale: 2)
        for index in transactions.amounts.indices {
            try total += toEUR[Int(transactions.currency[index])].convert(transactions.amounts[index], scale: 2)
        }
        return total
    }

    static let locales = [("de_AT", "EUR"), ("en_US", "USD"), ("sv_SE", "SEK")]

    /// 100,000 amounts formatted with MoneyFormatter.currency, cycling de_AT/EUR, en_US/USD, sv_SE/SEK.
    static func format(_ transactions: Transactions, count: Int) -> (Int, [String]) {
        var bytes = 0
        var firsts: [String] = []
        for index in 0..<count {
            let (locale, code) = locales[index % 3]
            let text = MoneyFormatter.currency(transactions.amounts[index], code: code, locale: locale, fractionDigits: 2)
            bytes &+= text.utf8.count
            if index < 3 { firsts.append(text) }
        }
        return (bytes, firsts)
    }
}
