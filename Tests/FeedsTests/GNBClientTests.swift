import AsyncHTTPClient
import Feeds
import Foundation
import Market
import Money
import Testing

@Suite struct GNBClientTests {
    /// The test client holds the statement's sample, exact enough to give its known answer: T2006 is 14.99 EUR.
    @Test func testClientDecodesSample() async throws {
        let rates = try await GNBClient.test.rates()
        #expect(rates == [
            ExchangeRate(from: "EUR", to: "USD", rate: try dec("1.359")),
            ExchangeRate(from: "CAD", to: "EUR", rate: try dec("0.732")),
            ExchangeRate(from: "USD", to: "EUR", rate: try dec("0.736")),
            ExchangeRate(from: "EUR", to: "CAD", rate: try dec("1.366")),
        ])
        let transactions = try await GNBClient.test.transactions()
        #expect(transactions.count == 5)
        let t2006 = transactions.filter { $0.sku == "T2006" }
        #expect(t2006 == [
            GNBTransaction(sku: "T2006", amount: try dec("10.00"), currency: "USD"),
            GNBTransaction(sku: "T2006", amount: try dec("7.63"), currency: "EUR"),
        ])
        let usdToEUR = try #require(rates.first { $0.from == "USD" && $0.to == "EUR" })
        let total = try (t2006[0].amount * usdToEUR.rate).rounded(scale: 2) + t2006[1].amount
        #expect(total == (try dec("14.99")))
    }

    /// The live client asks `/rates` and `/transactions` (format by Accept header) and decodes what the test client does.
    @Test func liveClientMatchesFixtures() async throws {
        let expectedRates = try await GNBClient.test.rates()
        let expectedTransactions = try await GNBClient.test.transactions()
        try await FakeAPI.serve([
            "/rates": .fixture(.gnbRates),
            "/transactions": .fixture(.gnbTransactions),
        ]) { url in
            let live = GNBClient.live(http: .shared, baseURL: url)
            let rates = try await live.rates()
            let transactions = try await live.transactions()
            #expect(rates == expectedRates)
            #expect(transactions == expectedTransactions)
        }
    }

    /// An amount that is not a number fails the whole list.
    @Test func badAmount() async throws {
        let body = #"[{"sku":"T2006","amount":"10.00","currency":"USD"},{"sku":"M2007","amount":"ten","currency":"CAD"}]"#
        try await FakeAPI.serve(["/transactions": .text(body)]) { url in
            let error = await feedError { try await GNBClient.live(http: .shared, baseURL: url).transactions() }
            guard case .malformed = error else {
                Issue.record("expected .malformed, got \(String(describing: error))")
                return
            }
        }
    }
}
