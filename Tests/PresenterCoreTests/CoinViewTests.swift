import PresenterViews
import Foundation
import Market
import TickwireContract
import Testing
@testable import PresenterCore

struct CoinViewTests {
    static func quote() throws -> Quote {
        Quote(
            source: "coingecko", market: MarketPair(base: "BTC", quote: "USD"), last: try SampleData.decimal("70100"),
            high: try SampleData.decimal("71246.95"), low: try SampleData.decimal("68887.75"),
            quoteVolume: try SampleData.decimal("19723005998.215"), changePercent24h: try SampleData.decimal("1.1"),
            marketCap: try SampleData.decimal("1370247487960.09"), marketCapRank: 1,
            circulatingSupply: try SampleData.decimal("19687500"), totalSupply: try SampleData.decimal("21000000"),
            maxSupply: try SampleData.decimal("21000000"), allTimeHigh: try SampleData.decimal("73738"), time: SampleData.now
        )
    }

    static func holding() throws -> Holding {
        Holding(
            asset: "BTC", amount: try SampleData.decimal("0.5"), trades: 2, price: try SampleData.decimal("70187.12345678"),
            value: try SampleData.decimal("35093.56"), cost: try SampleData.decimal("36000.00"), gain: try SampleData.decimal("-906.44"), priceTime: SampleData.now
        )
    }

    static func make(locale: String = "en_US") throws -> CoinView {
        let coin = CoinSnapshot(symbol: "BTC", name: "Bitcoin", price: try SampleData.price("BTC", "70187.12345678", change: "3.12502"), watched: true)
        return CoinView.make(coin: coin, quote: try quote(), history: try SampleData.history(), holding: try holding(), context: SampleData.context(locale))
    }

    /// Price and change come from the converter; market data from the quote.
    @Test func marketData() throws {
        let view = try Self.make()
        #expect(view.priceText == "$70,187.12")
        #expect(view.change24h?.text == "+3.13%")
        #expect(view.marketCap?.text == "$1,370,247,487,960")
        #expect(view.volume?.text == "$19,723,005,998")
        #expect(view.rank == 1)
        #expect(view.high24h?.text == "$71,246.95")
        #expect(view.low24h?.text == "$68,887.75")
        #expect(view.allTimeHigh?.text == "$73,738.00")
        #expect(view.supply.circulating?.text == "19,687,500")
        #expect(view.supply.max?.raw == "21000000")
        #expect(view.notices.isEmpty)
    }

    /// The 30-day history becomes one chart point per history point, with min, max, first and last.
    @Test func chart() throws {
        let chart = try #require(try Self.make().chart)
        #expect(chart.points.count == 3)
        #expect(chart.points.map(\.time) == ["2024-03-31T00:00:00Z", "2024-04-01T00:00:00Z", "2024-04-01T15:01:22Z"])
        #expect(chart.points.map(\.price.text) == ["$69,702.31", "$71,246.95", "$68,887.75"])
        #expect(chart.min.price.raw == "68887.7495158568")
        #expect(chart.max.price.raw == "71246.9514406015")
        #expect(chart.first.day == "Mar 31")
        #expect(chart.last.label == "Apr 1, 2024 at 3:01\u{202F}PM")
        #expect(chart.change?.text == "-1.17%")
    }

    /// The holding is valued in the display currency, with a signed gain.
    @Test func holding() throws {
        let holding = try #require(try Self.make(locale: "de_AT").holding)
        #expect(holding.amount.text == "0,50000000\u{A0}BTC")
        #expect(holding.price?.text == "70.187,12\u{A0}$")
        #expect(holding.value?.text == "35.093,56\u{A0}$")
        #expect(holding.gain?.text == "-906,44\u{A0}$")
        #expect(holding.trend == .down)
    }

    /// Without a price the view says "no price"; a history in another currency is left out with a notice.
    @Test func missingData() throws {
        let coin = CoinSnapshot(symbol: "DOGE", name: "Dogecoin", price: nil, watched: false)
        let euros = PriceHistory(asset: "dogecoin", currency: "EUR", points: [])
        let view = CoinView.make(coin: coin, quote: nil, history: euros, holding: nil, context: SampleData.context())
        #expect(view.price == nil)
        #expect(view.priceText == "no price")
        #expect(view.chart == nil)
        #expect(view.notices == [
            "No USD price yet for DOGE.",
            "The price history of DOGE is in EUR, not USD; it is not shown.",
        ])
    }
}
