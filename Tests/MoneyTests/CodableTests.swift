import Foundation
import Money
import Testing

@Suite("JSON")
struct CodableTests {
    private struct Wrapper: Codable, Equatable {
        let r: ExactDecimal
    }

    private func decode(_ json: String) throws -> ExactDecimal {
        try JSONDecoder().decode(Wrapper.self, from: Data(json.utf8)).r
    }

    @Test func encodesAsString() throws {
        let data = try JSONEncoder().encode(Wrapper(r: dec("1298.990")))
        #expect(String(decoding: data, as: UTF8.self) == #"{"r":"1298.990"}"#)
        let negative = try JSONEncoder().encode([dec("-0.001")])
        #expect(String(decoding: negative, as: UTF8.self) == #"["-0.001"]"#)
    }

    @Test func decodesFromString() throws {
        #expect(try decode(#"{"r":"0.86713"}"#).description == "0.86713")
        #expect(try decode(#"{"r":"2.50"}"#).description == "2.50")
        #expect(try decode(#"{"r":"1.5e-7"}"#).description == "0.00000015")
    }

    @Test(arguments: [
        ("0.86713", "0.86713"), ("1e-7", "0.0000001"), ("1.359", "1.359"), ("0.1", "0.1"), ("-0.000001", "-0.000001"),
        ("1E3", "1000"), ("-2.345E+2", "-234.5"), ("12345678901234567890.123456789", "12345678901234567890.123456789"),
        ("99999999999999999999999999999999999999", "99999999999999999999999999999999999999"),
        ("0.12345678901234567890123456789012345678", "0.12345678901234567890123456789012345678"),
        ("-0.00000000000000000000000000000000000001", "-0.00000000000000000000000000000000000001"),
        ("7", "7"), ("-0", "0"),
    ])
    func decodesFromNumberExactly(number: String, expected: String) throws {
        let value = try decode(#"{"r":\#(number)}"#)
        #expect(value.description == expected)
    }

    @Test func numberAndStringAgreeByValue() throws {
        #expect(try decode(#"{"r":2.50}"#) == decode(#"{"r":"2.50"}"#))
    }

    @Test func rejectsNumbersItCannotHold() {
        #expect(throws: DecodingError.self) { try decode(#"{"r":123456789012345678901234567890123456789}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"r":1e-39}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"r":"abc"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"r":"NaN"}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"r":null}"#) }
        #expect(throws: DecodingError.self) { try decode(#"{"r":true}"#) }
    }

    @Test func errorMessageNamesTheText() throws {
        do {
            _ = try decode(#"{"r":"1,5"}"#)
            Issue.record("decoded \"1,5\"")
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription == #"not a decimal number: "1,5""#)
        }
    }

    @Test func amountsAndRatesRoundTrip() throws {
        let amount = CurrencyAmount(amount: dec("12.50"), currency: "EUR")
        let amountJSON = try JSONEncoder().encode(amount)
        #expect(try JSONDecoder().decode(CurrencyAmount.self, from: amountJSON) == amount)
        #expect(amount.description == "12.50 EUR")
        let rate = try JSONDecoder().decode(ExchangeRate.self, from: Data(#"{"from":"EUR","to":"USD","rate":"1.359"}"#.utf8))
        #expect(rate == ExchangeRate(from: "EUR", to: "USD", rate: dec("1.359")))
        #expect(rate.description == "1 EUR = 1.359 USD")
        let numeric = try JSONDecoder().decode(ExchangeRate.self, from: Data(#"{"from":"EUR","to":"USD","rate":1.359}"#.utf8))
        #expect(numeric.rate.description == "1.359")
    }

    @Test func currencyIsABareCode() throws {
        #expect(String(decoding: try JSONEncoder().encode([Currency.eur]), as: UTF8.self) == #"["EUR"]"#)
        let decoded = try JSONDecoder().decode([Currency].self, from: Data(#"["sek","BTC"]"#.utf8))
        #expect(decoded == [Currency.sek, try Currency(code: "BTC")])
        #expect(throws: DecodingError.self) { try JSONDecoder().decode([Currency].self, from: Data(#"["E"]"#.utf8)) }
    }
}
