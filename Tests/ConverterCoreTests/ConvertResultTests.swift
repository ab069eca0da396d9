import Conversion
import ConverterCore
import Foundation
import TickwireContract
import Money
import Testing

@Suite("Convert results")
struct ConvertResultTests {
    /// The inverse of a given rate is exact as a fraction but not as a decimal: 1/1.1 is rounded to 18 places and flagged.
    @Test func inverseRateIsFlaggedInexact() throws {
        let book = try book([rateMessage("ecb", "EUR", "USD", "1.1")])
        let result = try convert("100", "USD", "EUR", in: book)
        #expect(result.rate == (try dec("0.909090909090909091")))
        #expect(!result.rateExact)
        #expect(result.path == ["USD", "EUR"])
        #expect(result.amount == (try dec("90.91")))
        let entry = try #require(try rates(from: "USD", in: book).rates.first)
        #expect(entry.currency == "EUR")
        #expect(!entry.rateExact)
    }

    /// Results are rounded half-even to the target's minor units: ties go to the even cent, JPY has none, BHD three.
    @Test func roundsHalfEvenToMinorUnits() throws {
        let book = try book([
            rateMessage("ecb", "EUR", "USD", "1.5"),
            rateMessage("ecb", "USD", "JPY", "155.59"),
            rateMessage("ecb", "USD", "BHD", "0.3765"),
        ])
        #expect(try convert("0.01", "EUR", "USD", in: book).amount.description == "0.02")  // 0.015 → 0.02
        #expect(try convert("0.03", "EUR", "USD", in: book).amount.description == "0.04")  // 0.045 → 0.04
        #expect(try convert("0.05", "EUR", "USD", in: book).amount.description == "0.08")  // 0.075 → 0.08
        #expect(try convert("10", "USD", "JPY", in: book).amount.description == "1556")    // 1555.9
        #expect(try convert("1", "EUR", "JPY", in: book).amount.description == "233")      // 233.385
        #expect(try convert("1", "USD", "BHD", in: book).amount.description == "0.376")    // 0.3765 → even 6
        #expect(try convert("-0.03", "EUR", "USD", in: book).amount.description == "-0.04")
    }

    /// A total in an empty request is zero at the target's scale; items already in the target keep their value.
    @Test func totalEdgeCases() throws {
        let book = try book([rateMessage("ecb", "EUR", "USD", "1.1")])
        let empty = try total([], to: "USD", in: book)
        #expect(empty.total.description == "0.00")
        #expect(empty.items.isEmpty)
        #expect(empty.source == "ecb")
        let same = try total([("2.5", "USD"), ("1", "EUR")], to: "usd", in: book)
        #expect(same.currency == "USD")
        #expect(same.items.map(\.converted) == [try dec("2.50"), try dec("1.10")])
        #expect(same.items.map(\.path) == [["USD"], ["EUR", "USD"]])
        #expect(same.total.description == "3.60")
    }
}
