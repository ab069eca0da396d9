import Money
import Testing

/// Every ordering of `items` (Heap's algorithm).
private func permutations<T>(_ items: [T]) -> [[T]] {
    var result: [[T]] = []
    var array = items
    func generate(_ count: Int) {
        if count <= 1 {
            result.append(array)
            return
        }
        for index in 0..<count {
            generate(count - 1)
            array.swapAt(count % 2 == 0 ? index : 0, count - 1)
        }
    }
    generate(array.count)
    return result
}

private func rate(_ from: String, _ to: String, _ value: String) -> ExchangeRate {
    ExchangeRate(from: from, to: to, rate: dec(value))
}

/// Every pair's path and exact fraction, as comparable text.
private func snapshot(_ graph: RateGraph) throws -> [String] {
    var lines: [String] = []
    for from in graph.currencies {
        for derived in try graph.rates(from: from) {
            lines.append(derived.description + (derived.usesInverse ? " (inverse)" : ""))
            #expect(try graph.rate(from: from, to: derived.to) == derived)
        }
    }
    return lines
}

@Suite("RateGraph on the GNB fixtures")
struct FixtureGraphTests {
    @Test func sampleShortestPaths() throws {
        let graph = try RateGraph(Fixture.sampleRates.rates())
        #expect(graph.currencies == ["CAD", "EUR", "USD"])
        let expected: [(String, String, [String], String)] = [
            ("CAD", "EUR", ["CAD", "EUR"], "0.732"),
            ("CAD", "USD", ["CAD", "EUR", "USD"], "0.994788"),
            ("EUR", "CAD", ["EUR", "CAD"], "1.366"),
            ("EUR", "USD", ["EUR", "USD"], "1.359"),
            ("USD", "CAD", ["USD", "EUR", "CAD"], "1.005376"),
            ("USD", "EUR", ["USD", "EUR"], "0.736"),
        ]
        for (from, to, path, value) in expected {
            let derived = try graph.rate(from: from, to: to)
            #expect(derived.path == path, "\(from)→\(to)")
            #expect(derived.decimal().description == value, "\(from)→\(to)")
            #expect(!derived.usesInverse)
        }
        #expect(try graph.rates(from: "USD").map(\.to) == ["CAD", "EUR"])
    }

    @Test func quietStoneShortestPaths() throws {
        let graph = try RateGraph(Fixture.quietStoneRates.rates())
        #expect(graph.currencies == ["AUD", "CAD", "EUR", "USD"])
        let expected: [(String, String, [String], String)] = [
            ("AUD", "CAD", ["AUD", "CAD"], "0.62"),
            ("AUD", "EUR", ["AUD", "EUR"], "1.27"),
            ("AUD", "USD", ["AUD", "CAD", "USD"], "0.6696"),
            ("CAD", "AUD", ["CAD", "AUD"], "1.61"),
            ("CAD", "EUR", ["CAD", "AUD", "EUR"], "2.0447"),
            ("CAD", "USD", ["CAD", "USD"], "1.08"),
            ("EUR", "AUD", ["EUR", "AUD"], "0.79"),
            ("EUR", "CAD", ["EUR", "AUD", "CAD"], "0.4898"),
            ("EUR", "USD", ["EUR", "AUD", "CAD", "USD"], "0.528984"),
            ("USD", "AUD", ["USD", "CAD", "AUD"], "1.4973"),
            ("USD", "CAD", ["USD", "CAD"], "0.93"),
            ("USD", "EUR", ["USD", "CAD", "AUD", "EUR"], "1.901571"),
        ]
        var seen = 0
        for from in graph.currencies {
            for derived in try graph.rates(from: from) {
                let match = try #require(expected.first { $0.0 == from && $0.1 == derived.to })
                #expect(derived.path == match.2)
                #expect(derived.hops == match.2.count - 1)
                #expect(derived.decimal().description == match.3)
                seen += 1
            }
        }
        #expect(seen == expected.count)
        let usdEur = try graph.rate(from: "USD", to: "EUR")
        #expect(usdEur.numerator == dec("1901571") && usdEur.denominator == dec("1000000"))
    }

    @Test func sampleIsIndependentOfRateOrder() throws {
        let rates = try Fixture.sampleRates.rates()
        let reference = try snapshot(RateGraph(rates))
        #expect(reference.count == 6)
        for permutation in permutations(rates) {
            #expect(try snapshot(RateGraph(permutation)) == reference)
        }
    }

    @Test func quietStoneIsIndependentOfRateOrder() throws {
        let rates = try Fixture.quietStoneRates.rates()
        let reference = try snapshot(RateGraph(rates))
        #expect(reference.count == 12)
        let all = permutations(rates)
        #expect(all.count == 720)
        for permutation in all {
            #expect(try snapshot(RateGraph(permutation)) == reference)
        }
    }

    @Test func mixedGraphWithTiesAndInversesIsIndependentOfRateOrder() throws {
        var rates = try Fixture.quietStoneRates.rates()
        rates += [
            rate("EUR", "SEK", "11.2"), rate("USD", "MXN", "18.5"), rate("SEK", "NOK", "0.98"), rate("MXN", "NOK", "0.55"),
            rate("BTC", "USD", "64000.5"), rate("BTC", "EUR", "59000.25"), rate("XAU", "USD", "2400.1"), rate("GBP", "EUR", "1.17"),
            rate("JPY", "GBP", "0.0052"), rate("CHF", "JPY", "170.3"), rate("CHF", "SEK", "12.1"),
        ]
        let reference = try snapshot(RateGraph(rates))
        var generator = SplitMix64(state: 20_210_807)
        for _ in 0..<200 {
            #expect(try snapshot(RateGraph(rates.shuffled(using: &generator))) == reference)
        }
        let graph = try RateGraph(rates)
        #expect(try graph.rate(from: "NOK", to: "USD").path == ["NOK", "MXN", "USD"])
        #expect(try graph.rate(from: "XAU", to: "NOK").path == ["XAU", "USD", "MXN", "NOK"])
        #expect(try graph.rate(from: "EUR", to: "CHF").path == ["EUR", "SEK", "CHF"])
    }
}

@Suite("RateGraph rules")
struct RateGraphRuleTests {
    @Test func givenEdgesWinOverInverses() throws {
        let graph = try RateGraph([rate("EUR", "USD", "1.359"), rate("USD", "EUR", "0.736")])
        let usdEur = try graph.rate(from: "USD", to: "EUR")
        #expect(usdEur.decimal().description == "0.736")
        #expect(!usdEur.usesInverse)
    }

    @Test func inverseIsAnExactFraction() throws {
        let graph = try RateGraph([rate("EUR", "USD", "1.359"), rate("AAA", "BBB", "3")])
        let usdEur = try graph.rate(from: "USD", to: "EUR")
        #expect(usdEur.usesInverse)
        #expect(usdEur.path == ["USD", "EUR"])
        #expect(usdEur.numerator == dec("1000") && usdEur.denominator == dec("1359"))
        #expect(usdEur.decimal().description == "0.735835172921265636")
        #expect(try usdEur.convert(dec("1359"), scale: 2).description == "1000.00")
        let third = try graph.rate(from: "BBB", to: "AAA")
        #expect(third.numerator == 1 && third.denominator == 3)
        #expect(third.decimal().description == "0.333333333333333333")
        #expect(third.decimal(scale: 2).description == "0.33")
        #expect(try third.convert(dec("10.00"), scale: 2).description == "3.33")
        #expect(try third.convert(dec("20.00"), scale: 2).description == "6.67")
        #expect(try third.convert(dec("3"), scale: 5).description == "1.00000")
    }

    @Test func tiesGoToTheLexicographicallySmallestPath() throws {
        let rates = [
            rate("AAA", "CCC", "3"), rate("CCC", "DDD", "5"), rate("AAA", "BBB", "2"), rate("BBB", "DDD", "7"),
            rate("AAA", "EEE", "1"), rate("EEE", "YYY", "1"), rate("AAA", "FFF", "1"), rate("FFF", "XXX", "1"),
            rate("YYY", "TTT", "2"), rate("XXX", "TTT", "3"),
        ]
        for permutation in [rates, rates.reversed(), Array(rates[5...] + rates[..<5])] {
            let graph = try RateGraph(permutation)
            let ad = try graph.rate(from: "AAA", to: "DDD")
            #expect(ad.path == ["AAA", "BBB", "DDD"])
            #expect(ad.decimal() == 14)
            let da = try graph.rate(from: "DDD", to: "AAA")
            #expect(da.path == ["DDD", "BBB", "AAA"])
            #expect(da.usesInverse)
            #expect(da.numerator == 1 && da.denominator == 14)
            #expect(try graph.rate(from: "AAA", to: "TTT").path == ["AAA", "EEE", "YYY", "TTT"])
            #expect(try graph.rate(from: "TTT", to: "AAA").path == ["TTT", "XXX", "FFF", "AAA"])
        }
    }

    @Test func identityForAnyWellFormedCode() throws {
        let graph = try RateGraph([rate("EUR", "USD", "1.1")])
        for code in ["EUR", "XYZ", "btc"] {
            let identity = try graph.rate(from: code, to: code)
            #expect(identity.path == [code.uppercased()])
            #expect(identity.numerator == 1 && identity.denominator == 1)
            #expect(identity.hops == 0)
            #expect(try identity.convert(dec("12.345"), scale: 2).description == "12.34")
        }
        #expect(throws: MoneyError.invalidCurrencyCode("E")) { try graph.rate(from: "E", to: "E") }
    }

    @Test func unknownAndUnreachable() throws {
        let graph = try RateGraph([rate("AAA", "BBB", "2"), rate("CCC", "DDD", "3")])
        #expect(throws: MoneyError.noPath(from: "AAA", to: "CCC")) { try graph.rate(from: "AAA", to: "CCC") }
        #expect(throws: MoneyError.noPath(from: "DDD", to: "BBB")) { try graph.rate(from: "ddd", to: "bbb") }
        #expect(throws: MoneyError.unknownCurrency("XYZ")) { try graph.rate(from: "AAA", to: "XYZ") }
        #expect(throws: MoneyError.unknownCurrency("XYZ")) { try graph.rate(from: "XYZ", to: "AAA") }
        #expect(throws: MoneyError.unknownCurrency("XYZ")) { try graph.rates(from: "XYZ") }
        #expect(throws: MoneyError.invalidCurrencyCode("A-A")) { try graph.rate(from: "A-A", to: "AAA") }
        #expect(throws: MoneyError.noPath(from: "AAA", to: "CCC")) { try graph.convert(dec("1"), from: "AAA", to: "CCC", scale: 2) }
        #expect(try graph.rates(from: "AAA").map(\.to) == ["BBB"])
        #expect(MoneyError.noPath(from: "AAA", to: "CCC").description == "no rate from AAA to CCC")
        #expect(MoneyError.unknownCurrency("XYZ").description.contains("XYZ"))
    }

    @Test func invalidRates() throws {
        #expect(throws: MoneyError.invalidRate(from: "EUR", to: "USD", rate: "0.00")) {
            try RateGraph([rate("EUR", "USD", "0.00")])
        }
        #expect(throws: MoneyError.invalidRate(from: "EUR", to: "USD", rate: "-1.1")) {
            try RateGraph([rate("EUR", "USD", "-1.1")])
        }
        #expect(throws: MoneyError.invalidRate(from: "EUR", to: "EUR", rate: "2")) {
            try RateGraph([rate("EUR", "EUR", "2")])
        }
        #expect(throws: MoneyError.invalidCurrencyCode("E U")) { try RateGraph([rate("E U", "USD", "1")]) }
        let description = MoneyError.invalidRate(from: "EUR", to: "USD", rate: "0").description
        #expect(description.contains("EUR") && description.contains("USD") && description.contains(": 0"))
        let selfRate = try RateGraph([rate("EUR", "EUR", "1.00")])
        #expect(selfRate.currencies == ["EUR"])
        #expect(try selfRate.rates(from: "EUR").isEmpty)
    }

    @Test func laterDuplicateWins() throws {
        let graph = try RateGraph([rate("EUR", "USD", "1.1"), rate("EUR", "USD", "1.2")])
        #expect(try graph.rate(from: "EUR", to: "USD").decimal() == dec("1.2"))
        #expect(try graph.rate(from: "USD", to: "EUR").numerator == 5)
        #expect(try graph.rate(from: "USD", to: "EUR").denominator == 6)
    }

    @Test func codesAreUpperCased() throws {
        let graph = try RateGraph([rate("eur", "usd", "1.1")])
        #expect(graph.currencies == ["EUR", "USD"])
        #expect(try graph.rate(from: "Eur", to: "uSD").path == ["EUR", "USD"])
    }

    @Test func overflowingChainsThrow() throws {
        let graph = try RateGraph([
            rate("AAA", "BBB", "0.1234567890123"), rate("BBB", "CCC", "0.1234567890123"),
            rate("CCC", "DDD", "0.1234567890123"),
        ])
        #expect(try graph.rate(from: "AAA", to: "CCC").hops == 2)
        #expect(throws: MoneyError.overflow("rate along AAA→BBB→CCC→DDD needs more than 38 digits as a fraction")) {
            try graph.rate(from: "AAA", to: "DDD")
        }
        #expect(throws: MoneyError.self) { try graph.rates(from: "AAA") }
        #expect(throws: MoneyError.self) { try RateGraph([rate("AAA", "BBB", "0.00000000000000000000000000000000000001")]) }
    }
}

@Suite("DerivedRate arithmetic")
struct DerivedRateTests {
    private let big = "12345678901234567890.123456789012345678"

    @Test func convertRoundsOnceAtTheEnd() throws {
        let graph = try RateGraph(Fixture.sampleRates.rates())
        let usdCad = try graph.rate(from: "USD", to: "CAD")
        #expect(try usdCad.convert(dec("10.00"), scale: 2).description == "10.05")
        #expect(try usdCad.convert(dec("100.00"), scale: 4).description == "100.5376")
        #expect(try usdCad.convert(dec("-100.00"), scale: 3).description == "-100.538")
        #expect(try usdCad.convert(dec("-100.00"), scale: 3, rule: .towardZero).description == "-100.537")
        #expect(try usdCad.convert(dec("0.005"), scale: 2).description == "0.01")
        let usdEur = try graph.rate(from: "USD", to: "EUR")
        #expect(try usdEur.convert(dec("10.005"), scale: 2).description == "7.36")
        #expect(try usdEur.convert(dec("0.625"), scale: 2).description == "0.46")
        #expect(try usdEur.convert(dec("0.625"), scale: 2, rule: .halfUp).description == "0.46")
        #expect(try graph.convert(dec("10.00"), from: "USD", to: "EUR", scale: 2).description == "7.36")
        #expect(throws: MoneyError.self) { try usdEur.convert(dec("1"), scale: 39) }
        #expect(throws: MoneyError.self) { try usdEur.convert(dec("1"), scale: -1) }
    }

    @Test func halfEvenTiesInConversion() throws {
        let graph = try RateGraph([rate("AAA", "BBB", "0.5")])
        let half = try graph.rate(from: "AAA", to: "BBB")
        #expect(try half.convert(dec("0.05"), scale: 2).description == "0.02")
        #expect(try half.convert(dec("0.07"), scale: 2).description == "0.04")
        #expect(try half.convert(dec("-0.05"), scale: 2).description == "-0.02")
        #expect(try half.convert(dec("0.05"), scale: 2, rule: .halfUp).description == "0.03")
        #expect(try half.convert(dec("-0.01"), scale: 2).description == "0.00")
    }

    @Test func wideIntermediates() throws {
        let graph = try RateGraph([rate("AAA", "BBB", big)])
        let forward = try graph.rate(from: "AAA", to: "BBB")
        #expect(forward.numerator == dec("6172839450617283945061728394506172839"))
        #expect(forward.denominator == dec("500000000000000000"))
        #expect(forward.decimal().description == big)
        #expect(forward.decimal(scale: 5).description == "12345678901234567890.12346")
        let amount = dec("0.12345678901234567890123456789012345678")
        #expect(try forward.convert(amount, scale: 0).description == "1524157875323883675")
        #expect(try forward.convert(amount, scale: 2).description == "1524157875323883675.05")
        #expect(try forward.convert(amount, scale: 18).description == "1524157875323883675.049535156256668194")
        #expect(throws: MoneyError.self) { try forward.convert(amount, scale: 20) }
        let backward = try graph.rate(from: "BBB", to: "AAA")
        let large = dec("98765432109876543210987654321.987654321")
        #expect(try backward.convert(large, scale: 8).description == "8000000072.90000066")
        #expect(try backward.convert(large, scale: 0).description == "8000000073")
        #expect(try backward.convert(-large, scale: 8, rule: .halfUp).description == "-8000000072.90000066")
        #expect(backward.decimal().description == "0")
        #expect(backward.decimal(scale: 38).description == "0.00000000000000000008100000072900000663")
        #expect(throws: MoneyError.self) { try forward.convert(dec("99999999999999999999999999999999999999"), scale: 0) }
    }

    @Test func decimalKeepsWhatFits() throws {
        let graph = try RateGraph([rate("AAA", "BBB", "99999999999999999999999999999999999999"), rate("CCC", "DDD", "3")])
        #expect(try graph.rate(from: "AAA", to: "BBB").decimal().description == "99999999999999999999999999999999999999")
        #expect(try graph.rate(from: "DDD", to: "CCC").decimal(scale: 38).description == "0.33333333333333333333333333333333333333")
        #expect(try graph.rate(from: "DDD", to: "CCC").decimal(scale: -4).description == "0")
        let twoThirds = try RateGraph([rate("AAA", "BBB", "1.5")]).rate(from: "BBB", to: "AAA")
        #expect(twoThirds.decimal().description == "0.666666666666666667")
        #expect(twoThirds.decimal(scale: 0).description == "1")
    }

    @Test func divisionGoldens() throws {
        // Expected values from Python's decimal module at 200-digit precision.
        #expect(try dec("1").divided(by: 7, scale: 38).description == "0.14285714285714285714285714285714285714")
        #expect(try dec("-1").divided(by: 7, scale: 38, rule: .halfUp).description == "-0.14285714285714285714285714285714285714")
        #expect(try dec("0.00000000000000000000000000000000000007").divided(by: dec("0.3"), scale: 38).description
            == "0.00000000000000000000000000000000000023")
        #expect(try dec("12345678901234567890123456789012345678").divided(by: dec("99999999999999999999999999999999999999"), scale: 38).description
            == "0.12345678901234567890123456789012345678")
        #expect(try dec("12345678901234567890123456789012345678").divided(by: dec("0.99999999999999999999999999999999999999"), scale: 0).description
            == "12345678901234567890123456789012345678")
        #expect(try dec("1234567890123456789.0123456789").divided(by: dec("0.000000000000000123"), scale: 0).description
            == "10037137318076884463515005519512195")
        #expect(try dec("1234567890123456789.0123456789").divided(by: dec("-0.000000000000000123"), scale: 2, rule: .towardZero).description
            == "-10037137318076884463515005519512195.12")
        #expect(throws: MoneyError.self) { try dec("5").divided(by: dec("0.00000000000000000000000000000000000002"), scale: 0) }
        #expect(throws: MoneyError.self) {
            try dec("98765432109876543210.98765432109876543").divided(by: dec("0.0000000000000000000000000000007"), scale: 0)
        }
    }
}

@Suite("RateGraph.replacingRate")
struct ReplacingRateTests {
    private let rates = [rate("EUR", "USD", "1.08"), rate("EUR", "SEK", "11.5"), rate("BTC", "USD", "70000"), rate("SEK", "NOK", "0.98")]

    /// A replaced rate derives exactly what a graph built anew from the updated rates derives, inverse edges included.
    @Test func replacingIsRebuilding() throws {
        let graph = try RateGraph(rates)
        for (index, value) in [(0, "1.0812"), (1, "11.49751"), (2, "70001.5"), (3, "0.975")] {
            var updated = rates
            updated[index] = rate(updated[index].from, updated[index].to, value)
            let replaced = try #require(graph.replacingRate(from: updated[index].from, to: updated[index].to, with: dec(value)))
            #expect(try snapshot(replaced) == snapshot(try RateGraph(updated)))
        }
    }

    /// A pair the graph was not given, given only the other way, or a rate the graph refuses gives nil.
    @Test func unknownPairsAndUnusableRatesGiveNil() throws {
        let graph = try RateGraph(rates)
        #expect(graph.replacingRate(from: "USD", to: "EUR", with: dec("0.9")) == nil)
        #expect(graph.replacingRate(from: "EUR", to: "JPY", with: dec("160")) == nil)
        #expect(graph.replacingRate(from: "EUR", to: "USD", with: dec("0")) == nil)
        #expect(graph.replacingRate(from: "EUR", to: "EUR", with: dec("1")) == nil)
    }
}
