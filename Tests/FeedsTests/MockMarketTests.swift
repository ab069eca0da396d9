import Feeds
import Foundation
import Market
import Money
import Synchronization
import Testing

/// The mock feeds agree with one another: every mock market walks around one reference price per asset.
@Suite struct MockMarketTests {
    /// The reference USD prices are CoinGecko's recorded ones and the reference rates Frankfurter's recorded ones.
    @Test func referenceTablesAreTheRecordings() async throws {
        let recorded = try await CoinGeckoClient.test.markets([], "usd")
        for market in recorded {
            let symbol = market.coin.symbol.uppercased()
            #expect(try dec(try #require(MockMarket.usdPrices[symbol], "\(symbol)")) == market.quote.last, "\(symbol)")
        }
        #expect(Set(MockMarket.usdPrices.keys).subtracting(recorded.map { $0.coin.symbol.uppercased() }) == ["BCH", "EOS"])
        let rates = try await FiatClient.test.latest().rates
        #expect(rates.count == MockMarket.usdRates.count)
        for rate in rates {
            #expect(rate.from == "USD")
            #expect(try dec(try #require(MockMarket.usdRates[rate.to], "\(rate.to)")) == rate.rate, "\(rate.to)")
        }
    }

    /// A reference is the USD price times the recorded rate, or divided by the quote asset's: BTC in MXN near
    /// 70,187 × 17.9858, ETH in BTC near 2,301.14 / 70,187; unknown codes have none.
    @Test func referenceConvertsIntoTheMarketsCurrency() throws {
        let now = fixedNow()
        let usd = try #require(try MockMarket.reference(asset: "BTC", currency: "USD", at: now))
        let mxn = try #require(try MockMarket.reference(asset: "btc", currency: "mxn", at: now))
        #expect(within(mxn, of: try usd * dec("17.9858"), basisPoints: 1))
        #expect(within(usd, of: try dec("70187"), basisPoints: MockMarket.limit))
        let ethBTC = try #require(try MockMarket.reference(asset: "ETH", currency: "BTC", at: now))
        let ethUSD = try #require(try MockMarket.reference(asset: "ETH", currency: "USD", at: now))
        #expect(within(try ethBTC * usd, of: ethUSD, basisPoints: 1))
        #expect(ethBTC.description.filter(\.isNumber).drop { $0 == "0" }.count >= 8)
        #expect(try MockMarket.reference(asset: "USDT", currency: "USD", at: now) == dec("1.001"))
        #expect(try MockMarket.reference(asset: "NOPE", currency: "USD", at: now) == nil)
        #expect(try MockMarket.reference(asset: "BTC", currency: "XYZ", at: now) == nil)
    }

    /// The reference drifts with time, smoothly and within its limit, the same for everyone at the same instant.
    @Test func referenceDriftsWithTimeWithinItsLimit() throws {
        let start = fixedNow()
        var drifts: [Int] = []
        for second in stride(from: 0, to: 86_400, by: 10) {
            let drift = MockMarket.drift(of: "BTC", at: start.addingTimeInterval(TimeInterval(second)))
            #expect(abs(drift) <= MockMarket.limit)
            // At most 120 basis points in 40 s (fast) and 580 in 15 min (slow): under 40 in 10 s.
            if let last = drifts.last { #expect(abs(drift - last) <= 40, "a 10-second step of \(drift - last) basis points") }
            drifts.append(drift)
        }
        #expect(Set(drifts).count > 200)
        #expect(MockMarket.drift(of: "BTC", at: start) == MockMarket.drift(of: "btc", at: start))
        #expect(MockMarket.drift(of: "WBTC", at: start) == MockMarket.drift(of: "BTC", at: start))
        #expect(MockMarket.drift(of: "USDC", at: start) == 0)
        #expect(MockMarket.drift(of: "ETH", at: start) != MockMarket.drift(of: "BTC", at: start))
    }

    /// The mock Bitso BTC-MXN quote is within 3 % of the mock CoinGecko BTC price times the mock USD->MXN rate, and
    /// WazirX's BTC-INR of it times the USD->INR rate, at every call over a day (no longer MX$57,545 against 1.2 M).
    @Test func mockFeedsAgree() async throws {
        let clock = Mutex(fixedNow())
        let now: @Sendable () -> Date = { clock.withLock { $0 } }
        let bitso = BitsoClient.mock(seed: 42, now: now), wazirx = WazirXClient.mock(seed: 42, now: now)
        let coingecko = CoinGeckoClient.mock(seed: 42, now: now), fiat = FiatClient.mock(seed: 42)
        for _ in 0..<150 {
            let btc = try #require(try await coingecko.markets(["bitcoin"], "usd").first?.quote.last)
            let rates = try await fiat.latest().rates
            let mxn = try #require(rates.first { $0.to == "MXN" }?.rate), inr = try #require(rates.first { $0.to == "INR" }?.rate)
            let bitsoBTC = try await bitso.ticker("btc_mxn")
            #expect(within(bitsoBTC.last, of: try btc * mxn, basisPoints: 300), "bitso \(bitsoBTC.last) against \(btc) × \(mxn)")
            #expect(bitsoBTC.last > (try dec("1000000")))
            let wazirxBTC = try #require(try await wazirx.tickers().first { $0.market == MarketPair(base: "BTC", quote: "INR") })
            #expect(within(wazirxBTC.last, of: try btc * inr, basisPoints: 300), "wazirx \(wazirxBTC.last) against \(btc) × \(inr)")
            clock.withLock { $0 = $0.addingTimeInterval(577) }
        }
    }

    /// The mock masterdata's average prices follow the reference in EUR: Bitcoin's near CoinGecko's mock price times the
    /// USD->EUR rate, no longer the recorded €8,936.50; a commodity keeps its recorded price, walked.
    @Test func mockMasterdataAgrees() async throws {
        let masterdata = try await MasterdataClient.mock(seed: 42, now: fixedNow).load()
        let btc = try #require(masterdata.assets.first { $0.kind == .cryptocoin && $0.symbol == "BTC" }?.averagePrice)
        let usd = try #require(try await CoinGeckoClient.mock(seed: 42, now: fixedNow).markets(["bitcoin"], "usd").first?.quote.last)
        let eur = try #require(try await FiatClient.mock(seed: 42).latest().rates.first { $0.to == "EUR" }?.rate)
        #expect(within(btc, of: try usd * eur, basisPoints: 300), "masterdata BTC \(btc) against \(usd) × \(eur)")
        let gold = try #require(masterdata.assets.first { $0.symbol == "XAU" }?.averagePrice)
        #expect(within(gold, of: try dec("46.20"), basisPoints: MockMarket.limit + 100))
    }

    /// Whether `value` is within `basisPoints` of `reference`.
    private func within(_ value: ExactDecimal, of reference: ExactDecimal, basisPoints: Int) -> Bool {
        guard let gap = try? (value - reference) * ExactDecimal(10_000), let bound = try? reference * ExactDecimal(basisPoints) else { return false }
        return (gap.isNegative ? -gap : gap) <= bound
    }
}
