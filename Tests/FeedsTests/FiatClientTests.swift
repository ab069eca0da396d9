import AsyncHTTPClient
import Feeds
import Foundation
import Market
import Money
import Testing

@Suite struct FiatClientTests {
    /// The test client gives Frankfurter's recorded ECB rates from USD, sorted, numbers read exactly.
    @Test func testClientDecodesFixture() async throws {
        let rates = try await FiatClient.test.latest()
        #expect(rates.source == "ecb")
        #expect(rates.base == "USD")
        #expect(rates.date == "2025-12-17")
        #expect(rates.rates.count == 30)
        #expect(rates.rates.first?.to == "AUD")
        #expect(rates.rates.last?.to == "ZAR")
        #expect(rates.rates.allSatisfy { $0.from == "USD" })
        #expect(rates.rates.first { $0.to == "SEK" }?.rate == (try dec("9.3295")))
        #expect(rates.rates.first { $0.to == "EUR" }?.rate == (try dec("0.8531")))
        #expect(rates.rates.first { $0.to == "IDR" }?.rate == (try dec("16692")))
    }

    /// Live Frankfurter asks `/latest?from=USD` and decodes what the test client does.
    @Test func liveFrankfurter() async throws {
        let expected = try await FiatClient.test.latest()
        try await FakeAPI.serve(["/latest?from=USD": .fixture(.frankfurterLatestUSD)]) { url in
            let live = FiatClient.live(http: .shared, provider: .frankfurter(baseURL: url, base: "USD"))
            let rates = try await live.latest()
            #expect(rates == expected)
        }
    }

    /// Rates for another base than the one asked for are an error, not silently wrong rates.
    @Test func frankfurterWrongBase() async throws {
        try await FakeAPI.serve(["/latest?from=EUR": .fixture(.frankfurterLatestUSD)]) { url in
            let error = await feedError {
                try await FiatClient.live(http: .shared, provider: .frankfurter(baseURL: url)).latest()
            }
            guard case let .malformed(_, reason, _) = error else {
                Issue.record("expected .malformed, got \(String(describing: error))")
                return
            }
            #expect(reason == "asked for rates from EUR, got USD")
        }
    }

    /// Live fixer sends the access key, reads numbers exactly (even `1.0912818e-5`) and drops EUR to EUR.
    @Test func liveFixer() async throws {
        try await FakeAPI.serve(["/latest?access_key=KEY123": .fixture(.fixerLatest)]) { url in
            let rates = try await FiatClient.live(http: .shared, provider: .fixer(baseURL: url, accessKey: "KEY123")).latest()
            #expect(rates.source == "fixer")
            #expect(rates.base == "EUR")
            #expect(rates.date == "2025-06-20")
            #expect(rates.rates.count == 169)
            #expect(!rates.rates.contains { $0.to == "EUR" })
            let btc = try dec("0.000010912818"), sek = try dec("11.135622"), usd = try dec("1.151477")
            #expect(rates.rates.first { $0.to == "BTC" }?.rate == btc)
            #expect(rates.rates.first { $0.to == "SEK" }?.rate == sek)
            #expect(rates.rates.first { $0.to == "USD" }?.rate == usd)
        }
    }

    /// fixer's error body (sent with HTTP 200) is an error with its code and type, and the key is masked.
    @Test func fixerErrorBody() async throws {
        try await FakeAPI.serve(["/latest?access_key=SECRET": .fixture(.fixerErrorInvalidBase)]) { url in
            let error = await feedError {
                try await FiatClient.live(http: .shared, provider: .fixer(baseURL: url, accessKey: "SECRET")).latest()
            }
            #expect(error == .api(
                source: "fixer", code: "201", message: "invalid_base_currency",
                url: "\(url.absoluteString)/latest?access_key=***"
            ))
            #expect(!String(describing: error).contains("SECRET"))
        }
    }
}
