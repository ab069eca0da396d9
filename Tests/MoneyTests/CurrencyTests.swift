import Money
import Testing

@Suite("Currency")
struct CurrencyTests {
    @Test(arguments: [
        ("EUR", 2), ("USD", 2), ("JPY", 0), ("KWD", 3), ("BHD", 3), ("TND", 3), ("CLF", 4), ("UYW", 4), ("SEK", 2), ("MXN", 2),
        ("ISK", 0), ("KRW", 0), ("XOF", 0), ("VND", 0), ("XCG", 2), ("ZWG", 2), ("SLE", 2), ("VED", 2), ("XAD", 2),
    ])
    func isoFiats(code: String, minorUnits: Int) throws {
        let currency = try Currency(code: code)
        #expect(currency.kind == .fiat)
        #expect(currency.minorUnits == minorUnits)
        #expect(currency.code == code)
        #expect(Currency.iso(code) == currency)
    }

    @Test func isoTableIsComplete() {
        let all = Currency.isoCurrencies
        #expect(all.count == 165)
        #expect(all.map(\.code) == all.map(\.code).sorted())
        #expect(all.allSatisfy { $0.code.utf8.count == 3 && $0.kind == .fiat && [0, 2, 3, 4].contains($0.minorUnits) })
        #expect(all.filter { $0.minorUnits == 3 }.map(\.code) == ["BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"])
        #expect(all.filter { $0.minorUnits == 4 }.map(\.code) == ["CLF", "UYW"])
        #expect(all.filter { $0.minorUnits == 0 }.map(\.code) == [
            "BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI", "VND", "VUV", "XAF", "XOF", "XPF",
        ])
        for withdrawnOrUnitless in ["BGN", "HRK", "ANG", "SLL", "ZWL", "CUC", "XDR", "XXX", "XTS"] {
            #expect(Currency.iso(withdrawnOrUnitless) == nil, "\(withdrawnOrUnitless)")
        }
    }

    @Test func cryptoAndCommodities() throws {
        let btc = try Currency(code: "BTC")
        #expect(btc.kind == .crypto && btc.minorUnits == 8)
        #expect(try Currency(code: "usdt") == Currency(code: "USDT"))
        #expect(try Currency(code: "usdt").code == "USDT")
        #expect(try Currency(code: "1INCH").kind == .crypto)
        for metal in ["XAU", "XAG", "XPT", "XPD"] {
            let currency = try Currency(code: metal)
            #expect(currency.kind == .commodity && currency.minorUnits == 4)
            #expect(Currency.iso(metal) == nil)
        }
        #expect(Currency.iso("BTC") == nil)
        #expect(Currency.iso("xyz") == nil)
        #expect(Currency.iso("eur") == .eur)
    }

    @Test func namedConstants() {
        #expect([Currency.eur, .usd, .sek, .mxn, .gbp, .jpy].map(\.code) == ["EUR", "USD", "SEK", "MXN", "GBP", "JPY"])
        #expect(Currency.jpy.minorUnits == 0 && Currency.gbp.minorUnits == 2)
        #expect(Currency.eur.description == "EUR")
    }

    @Test func lowerCaseIsUpperCased() throws {
        let currency = try Currency(code: "eUr")
        #expect(currency == .eur)
    }

    @Test(arguments: ["", "E", "EUR ", " EUR", "EU-R", "€", "EURO_", "ABCDEFGHIJKLM", "ÉUR", "EUR\n"])
    func invalidCodes(code: String) {
        #expect(throws: MoneyError.invalidCurrencyCode(code)) { try Currency(code: code) }
        #expect(Currency.iso(code) == nil)
    }

    @Test func invalidCodeMessage() {
        #expect(MoneyError.invalidCurrencyCode("E").description == #"not a currency code: "E" (expected 2 to 12 ASCII letters or digits)"#)
    }

    @Test func lengthLimits() throws {
        #expect(try Currency(code: "OP").kind == .crypto)
        #expect(try Currency(code: "ABCDEFGHIJKL").code == "ABCDEFGHIJKL")
    }
}
