import Conversion
import Bus
import ConverterCore
import Foundation
import Market
import TickwireContract
import Money
import Testing
import BusContract

@Suite("Conversion errors")
struct ConversionErrorTests {
    private func fiatBook() throws -> RateBook {
        try book([
            rateMessage("ecb", "EUR", "USD", "1.1"),
            rateMessage("ecb", "AUD", "NZD", "1.08"),
        ])
    }

    /// A code the source has never seen is `unknownCurrency` naming it, never a rate of 1.
    @Test func unknownCurrencyIsNamed() throws {
        let book = try fiatBook()
        #expect(throws: MoneyError.unknownCurrency("JPY")) { try convert("100", "EUR", "JPY", in: book) }
        #expect(throws: MoneyError.unknownCurrency("GBP")) { try convert("100", "GBP", "EUR", in: book) }
        #expect(throws: MoneyError.unknownCurrency("JPY")) { try rates(from: "JPY", in: book) }
        #expect(throws: MoneyError.unknownCurrency("GBP")) { try total([("5", "GBP")], to: "EUR", in: book) }
    }

    /// Two known currencies without a chain of rates is `noPath` naming both.
    @Test func noPathNamesBothCurrencies() throws {
        let book = try fiatBook()
        #expect(throws: MoneyError.noPath(from: "EUR", to: "NZD")) { try convert("1", "EUR", "NZD", in: book) }
        #expect(throws: MoneyError.noPath(from: "AUD", to: "USD")) { try convert("1", "aud", "usd", in: book) }
        // A total with one unconvertible item fails whole: no partial sum.
        #expect(throws: MoneyError.noPath(from: "NZD", to: "USD")) {
            try total([("10", "EUR"), ("5", "NZD")], to: "USD", in: book)
        }
        #expect(try rates(from: "EUR", in: book).rates.map(\.currency) == ["USD"])
    }

    /// Malformed codes are `invalidCurrencyCode`; lower-case codes are fine and upper-cased.
    @Test func invalidCodesAreRejected() throws {
        let book = try fiatBook()
        #expect(throws: MoneyError.invalidCurrencyCode("E$R")) { try convert("1", "E$R", "USD", in: book) }
        #expect(throws: MoneyError.invalidCurrencyCode("")) { try convert("1", "EUR", "", in: book) }
        #expect(throws: MoneyError.invalidCurrencyCode(" EUR")) { try total([("1", " EUR")], to: "USD", in: book) }
        #expect(throws: MoneyError.invalidCurrencyCode("U")) { try rates(from: "U", in: book) }
        let lower = try convert("2", "eur", "usd", in: book)
        #expect(lower.currency == "USD")
        #expect(lower.amount == (try dec("2.20")))
    }

    /// A crypto code with no quote has no price in `market`: an error, never a rate of 1.
    @Test func missingCryptoPairIsAnError() throws {
        let book = try book([rateMessage("ecb", "EUR", "USD", "1.1"), quoteMessage("bitso", "BTC", "MXN", last: "1200000")])
        #expect(throws: MoneyError.unknownCurrency("ETH")) { try convert("1", "ETH", "USD", in: book) }
        #expect(throws: MoneyError.noPath(from: "BTC", to: "USD")) { try convert("1", "BTC", "USD", in: book) }
        // A crypto quote with a last price of zero is not an edge either.
        let zero = try RateBookFixture.with(book, quoteMessage("coingecko", "ETH", "USD", last: "0"))
        #expect(throws: MoneyError.unknownCurrency("ETH")) { try convert("1", "ETH", "USD", in: zero) }
    }

    /// Decoding a request whose amount is not a decimal string fails before anything converts.
    @Test(arguments: [
        #"{"amount":"NaN","from":"EUR","to":"USD"}"#,
        #"{"amount":"","from":"EUR","to":"USD"}"#,
        #"{"amount":"1234567890123456789012345678901234567890","from":"EUR","to":"USD"}"#,
        #"{"amount":1234567890123456789012345678901234567890,"from":"EUR","to":"USD"}"#,
        #"{"amount":1.234567890123456789012345678901234567891,"from":"EUR","to":"USD"}"#,
        #"{"amount":"1,5","from":"EUR","to":"USD"}"#,
        #"{"amount":null,"from":"EUR","to":"USD"}"#,
        #"{"from":"EUR","to":"USD"}"#,
    ])
    func malformedAmountsDoNotDecode(json: String) {
        #expect(throws: (any Error).self) { try Wire.decode(ConvertRequest.self, from: Data(json.utf8)) }
    }

    /// The wire carries money as decimal strings, never JSON numbers, so a numeric amount is rejected with a clear reason.
    @Test(arguments: [
        #"{"amount":12.5,"from":"EUR","to":"USD"}"#,
        #"{"amount":100,"from":"EUR","to":"USD"}"#,
    ])
    func numericAmountsDoNotDecode(json: String) {
        let error = #expect(throws: DecodingError.self) { try Wire.decode(ConvertRequest.self, from: Data(json.utf8)) }
        #expect(error.map(describe)?.contains("decimal string") == true)
    }

    /// A well-formed request decodes with its exact amount and converts.
    @Test func wellFormedRequestDecodesAndConverts() throws {
        let request = try Wire.decode(ConvertRequest.self, from: Data(#"{"amount":"12.50","from":"EUR","to":"USD","source":"ecb"}"#.utf8))
        #expect(request == ConvertRequest(amount: try dec("12.50"), from: "EUR", to: "USD", source: "ecb"))
        var book = try fiatBook()
        let result = try Conversions.convert(request, in: &book)
        #expect(result.amount == (try dec("13.75")))
    }
}

/// Small helpers for building books in error tests.
enum RateBookFixture {
    /// `book` with `message` applied too.
    static func with(_ book: RateBook, _ message: StreamUpdate<FetcherUpdate>) throws -> RateBook {
        var copy = book
        try copy.apply(message)
        return copy
    }
}
