import Foundation
import Money
import PresenterViews
import TickwireContract
import Testing
@testable import PresenterCore

/// The Portfolio screen's gains and performance, in USD and SEK.
struct PortfolioPerformancePageTests {
    static func gains(_ currency: String) throws -> PortfolioGains {
        let d = SampleData.decimal
        let btc = AssetGains(asset: "BTC", quantity: try d("0.5"), activities: 3, costBasis: try d("30000.00"), price: try d("70187.12"),
                             value: try d("35093.56"), realizedGain: try d("1250.50"), unrealizedGain: try d("5093.56"), fees: try d("12.00"),
                             priceTime: SampleData.now)
        let eth = AssetGains(asset: "ETH", quantity: try d("0"), activities: 2, costBasis: try d("0.00"), price: nil, value: try d("0.00"),
                             realizedGain: try d("-300.25"), unrealizedGain: try d("0.00"), fees: try d("3.00"), priceTime: nil)
        return PortfolioGains(
            currency: currency, method: .fifo, assets: [btc, eth], totalCostBasis: try d("30000.00"), totalValue: try d("35093.56"),
            totalRealizedGain: try d("950.25"), totalUnrealizedGain: try d("5093.56"), totalGain: try d("6043.81"), totalFees: try d("15.00"),
            pricesAsOf: SampleData.now, offline: false, warnings: [])
    }

    static func performance(_ currency: String) throws -> PortfolioPerformance {
        let d = SampleData.decimal
        let day = 86_400.0
        let series = [
            ValuePoint(time: SampleData.now.addingTimeInterval(-2 * day), value: try d("30000.00")),
            ValuePoint(time: SampleData.now.addingTimeInterval(-day), value: try d("32000.00")),
            ValuePoint(time: SampleData.now, value: try d("35093.56")),
        ]
        let returns = PerformanceRange.allCases.map { range in
            switch range {
            case .oneDay: RangeReturn(range: range, start: nil, startValue: nil, endValue: nil, twr: try? d("0.0525"), subPeriods: 1, missing: nil)
            case .sevenDays: RangeReturn(range: range, start: nil, startValue: nil, endValue: nil, twr: try? d("-0.01234567"), subPeriods: 2, missing: nil)
            case .oneYear: RangeReturn(range: range, start: nil, startValue: nil, endValue: nil, twr: nil, subPeriods: 0,
                                       missing: "no \(currency) price of BTC at or before 2024-06-15T00:00:00Z: the return is unknown")
            default: RangeReturn(range: range, start: nil, startValue: nil, endValue: nil, twr: try? d("0.16978533"), subPeriods: 3, missing: nil)
            }
        }
        return PortfolioPerformance(currency: currency, range: .sevenDays, series: series, returns: returns, asOf: SampleData.now,
                                    warnings: ["1Y: no \(currency) price of BTC at or before 2024-06-15T00:00:00Z: the return is unknown"])
    }

    private func html(locale: String, currency: String) throws -> String {
        let context = SampleData.context(locale, currency: currency)
        var valuation = try PortfolioViewTests.valuation(offline: false)
        valuation.currency = currency
        var trades = try PortfolioViewTests.trades()
        trades.append(Trade(id: "t3", kind: .sell, asset: "BTC", amount: try SampleData.decimal("0.1"), price: try SampleData.decimal("90000"),
                            currency: "USD", fee: CurrencyAmount(amount: try SampleData.decimal("12"), currency: "USD"),
                            date: Date(timeIntervalSince1970: 1_749_500_000), recordedAt: SampleData.now))
        let view = PortfolioView.make(valuation: valuation, trades: trades, context: context,
                                      gains: try Self.gains(currency), performance: try Self.performance(currency))
        let page = PageContext(locale: locale, currency: currency, path: "/portfolio", query: PageContext.parseQuery("currency=\(currency)&range=7D"),
                               now: SampleData.now, requestId: "req-1")
        return Pages.portfolio(view, context: page)
    }

    /// In USD (en_US): realized, unrealized and total gains, the method, per-asset rows, every range's TWR (one
    /// unknown, with why), the chart of the range chosen, and the activities with kind and fee.
    @Test func inUSD() throws {
        let html = try html(locale: "en_US", currency: "USD")
        #expect(html.contains(#"<dd id="realized-total" class="up" data-raw="950.25">+$950.25</dd>"#))
        #expect(html.contains(#"<dd id="unrealized-total" class="up" data-raw="5093.56">+$5,093.56</dd>"#))
        #expect(html.contains(#"<dd id="gain-total" class="up" data-raw="6043.81">+$6,043.81</dd>"#))
        #expect(html.contains(#"<span id="cost-basis-method" data-method="fifo">FIFO</span>"#))
        #expect(html.contains(#"<td class="num realized down" data-raw="-300.25">-$300.25</td>"#))
        #expect(html.contains(#"<span class="twr up" id="twr-1D" data-raw="5.2500">+5.25%</span>"#))
        #expect(html.contains(#"<span class="twr down" id="twr-7D" data-raw="-1.23456700">-1.23%</span>"#))
        #expect(html.contains(#"<span class="twr missing" id="twr-1Y">—</span>"#))
        #expect(html.contains(#"title="no USD price of BTC at or before 2024-06-15T00:00:00Z: the return is unknown""#))
        #expect(html.contains(#"<li data-range="7D" class="selected"><a href="/portfolio?currency=USD&amp;range=7D" aria-current="true">"#))
        #expect(html.contains(#"href="/portfolio?currency=USD&amp;range=Max""#))
        #expect(html.contains(#"<svg id="price-chart" class="chart""#) && html.contains(#"data-points="3""#))
        #expect(html.contains("Portfolio value over 7D in USD"))
        #expect(html.contains("$35,093.56</p>"))
        #expect(html.contains(#"<td class="kind" data-kind="sell">Sell</td>"#))
        #expect(html.contains(#"<td class="num fee" data-raw="12">$12.00</td>"#))
        #expect(html.contains("<li>1Y: no USD price of BTC at or before 2024-06-15T00:00:00Z: the return is unknown</li>"))
    }

    /// In SEK (sv_SE): the same figures in kronor, Swedish-formatted.
    @Test func inSEK() throws {
        let html = try html(locale: "sv_SE", currency: "SEK")
        #expect(html.contains("<h2>Gains in SEK · cost basis <span"))
        #expect(html.contains(#"<dd id="realized-total" class="up" data-raw="950.25">+950,25"# + "\u{A0}kr</dd>"))
        #expect(html.contains(#"<dd id="gain-total" class="up" data-raw="6043.81">+6"# + "\u{A0}043,81\u{A0}kr</dd>"))
        #expect(html.contains(#"<td class="num realized down" data-raw="-300.25">"# + "\u{2212}300,25\u{A0}kr</td>"))
        #expect(html.contains(#"<span class="twr up" id="twr-1D" data-raw="5.2500">+5,25"# + "\u{A0}%</span>"))
        #expect(html.contains("Portfolio value over 7D in SEK"))
        #expect(html.contains(#"href="/portfolio?currency=SEK&amp;range=30D""#))
    }
}
