import Foundation
import Money
import Testing

/// One GNB transaction as the fixtures give it.
struct Transaction: Decodable {
    let sku: String
    let amount: ExactDecimal
    let currency: String
}

/// The fixture files copied from ../shared/fixtures/gnb.
enum Fixture: String {
    case sampleRates = "rates"
    case sampleTransactions = "transactions"
    case quietStoneRates = "quiet-stone-2021-08-07-rates"
    case quietStoneTransactions = "quiet-stone-2021-08-07-transactions"

    /// The raw bytes of the fixture.
    func data() throws -> Data {
        let url = try #require(Bundle.module.url(forResource: rawValue, withExtension: "json", subdirectory: "Fixtures"))
        return try Data(contentsOf: url)
    }

    /// The fixture decoded as rates.
    func rates() throws -> [ExchangeRate] {
        try JSONDecoder().decode([ExchangeRate].self, from: data())
    }

    /// The fixture decoded as transactions.
    func transactions() throws -> [Transaction] {
        try JSONDecoder().decode([Transaction].self, from: data())
    }
}

/// Shorthand for a decimal literal in tests; records an issue (and yields zero) if the text does not parse.
func dec(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> ExactDecimal {
    do {
        return try ExactDecimal(text)
    } catch {
        Issue.record("\"\(text)\" does not parse: \(error)", sourceLocation: sourceLocation)
        return .zero
    }
}

/// A small deterministic PRNG (SplitMix64) so shuffles and random cases are reproducible.
struct SplitMix64: RandomNumberGenerator {
    var state: UInt64

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
