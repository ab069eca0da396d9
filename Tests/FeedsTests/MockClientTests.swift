import Feeds
import Foundation
import Market
import Money
import Testing

/// The mock clients: deterministic for a seed, moving on every call, never far from their market's reference price.
@Suite struct MockClientTests {
    /// The same seed gives the same sequence of tickers; another seed another one.
    @Test func bitsoIsDeterministicPerSeed() async throws {
        let first = BitsoClient.mock(seed: 7, now: fixedNow)
        let second = BitsoClient.mock(seed: 7, now: fixedNow)
        let other = BitsoClient.mock(seed: 8, now: fixedNow)
        for _ in 0..<3 {
            let tickers = try await first.tickers()
            #expect(try await second.tickers() == tickers)
            #expect(try await other.tickers() != tickers)
        }
        #expect(try await first.ticker("btc_mxn") == second.ticker("btc_mxn"))
    }

    /// Every call moves every market's price, and prices stay positive and within 5 % of the market's reference.
    @Test func bitsoPricesMoveNearTheReference() async throws {
        var references: [MarketPair: ExactDecimal] = [:]
        for quote in try await BitsoClient.test.tickers() {
            references[quote.market] = try MockMarket.reference(asset: quote.market.base, currency: quote.market.quote, at: fixedNow())
        }
        let mock = BitsoClient.mock(seed: 42, now: fixedNow)
        var previous = try await mock.tickers()
        for _ in 0..<200 {
            let tickers = try await mock.tickers()
            for (quote, before) in zip(tickers, previous) {
                #expect(quote.last != before.last, "\(quote.market) did not move")
                let reference = try #require(references[quote.market])
                #expect(quote.last > .zero)
                #expect(quote.last >= (try reference * dec("0.95")))
                #expect(quote.last <= (try reference * dec("1.05")))
                #expect(quote.time == fixedNow())
                if let high = quote.high, let low = quote.low { #expect(low <= high) }
            }
            previous = tickers
        }
    }

    /// A 30-day mock history has an hourly point for 30 days, ends at the current mock price and stays plausible.
    @Test func coinGeckoHistory() async throws {
        let mock = CoinGeckoClient.mock(seed: 3, now: fixedNow)
        let current = try #require(try await mock.markets(["bitcoin"], "usd").first?.quote.last)
        let history = try await mock.history("bitcoin", "usd", 30)
        #expect(history.currency == "USD")
        #expect(history.points.count == 721)
        #expect(history.points.last == PricePoint(time: fixedNow(), price: current))
        #expect(history.points.first?.time == fixedNow().addingTimeInterval(-30 * 86_400))
        #expect(zip(history.points, history.points.dropFirst()).allSatisfy { $0.time < $1.time })
        let lowest = try dec("70187") * dec("0.80"), highest = try dec("70187") * dec("1.20")
        #expect(history.points.allSatisfy { $0.price >= lowest && $0.price <= highest })
        #expect(Set(history.points.map(\.price)).count > 100)
        #expect(try await CoinGeckoClient.mock(seed: 3, now: fixedNow).history("bitcoin", "usd", 30).points.first == history.points.first)
    }

    /// Each other mock repeats itself for a seed and changes from one call to the next.
    @Test func otherMocksAreDeterministicAndAlive() async throws {
        func check<Value: Equatable>(_ make: () -> @Sendable () async throws -> Value) async throws {
            let first = make(), second = make()
            let a1 = try await first(), a2 = try await first()
            #expect(try await second() == a1)
            #expect(try await second() == a2)
            #expect(a1 != a2)
        }
        try await check { WazirXClient.mock(seed: 1, now: fixedNow).tickers }
        try await check { FiatClient.mock(seed: 1).latest }
        try await check { GNBClient.mock(seed: 1).rates }
        try await check { MasterdataClient.mock(seed: 1, now: fixedNow).load }
        try await check {
            let mock = CoinGeckoClient.mock(seed: 1, now: fixedNow)
            return { try await mock.markets([], "usd") }
        }
    }

    /// The GNB mock serves the larger 2021 recording.
    @Test func gnbMockUsesLargeRecording() async throws {
        let mock = GNBClient.mock(seed: 1)
        #expect(try await mock.transactions().count == 5061)
        #expect(try await mock.rates().count == 6)
    }
}
