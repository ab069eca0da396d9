import PresenterViews
import Foundation
import Market
import Money
import Testing
@testable import PresenterCore

struct BooksViewTests {
    /// Books are named "BTC MXN"; the maximum price is the highlighted figure; min and max value are in the quote currency.
    @Test func books() throws {
        let view = BooksView.make(books: try SampleData.books(), tickers: [try SampleData.btcMxnTicker()], context: SampleData.context("es_MX"))
        #expect(view.rows.map(\.name) == ["BTC MXN", "ETH MXN", "XRP BTC"])
        #expect(view.rows.map(\.book) == ["btc_mxn", "eth_mxn", "xrp_btc"])
        let btc = view.rows[0]
        #expect(btc.maximumPrice == DisplayAmount(raw: "80000.00", text: "$80,000.00", currency: "MXN"))
        #expect(btc.minimumValue.text == "$5.00")
        #expect(btc.maximumValue.text == "$10,000,000.00")
        #expect(btc.last?.text == "$5,633.98")
        #expect(view.rows[1].last == nil)
    }

    /// A crypto quote currency gets 8 digits.
    @Test func cryptoQuoteCurrency() throws {
        let xrp = BooksView.make(books: try SampleData.books(), context: SampleData.context()).rows[2]
        #expect(xrp.maximumPrice.text == "BTC\u{A0}5,000.00000000")
        #expect(xrp.minimumValue.text == "BTC\u{A0}0.00000100")
        #expect(xrp.maximumAmount.text == "XRP\u{A0}100,000.00000000")
    }

    /// Old book data is called out.
    @Test func staleBooks() throws {
        let view = BooksView.make(books: try SampleData.books(), context: SampleData.context(), asOf: SampleData.now.addingTimeInterval(-900))
        #expect(view.notices == ["Books are 15 min old."])
    }

    /// Limits that came only at the start (a replay's, Bitso's seldom ones) do not make live books stale: the age is
    /// of the freshest of limits, ladder book and its trades.
    @Test func agedByFreshestData() throws {
        let market = MarketPair(base: "BTC", quote: "MXN")
        let depth = BookDepth(
            source: "bitso-ws", market: market, sequence: 7,
            bids: [BookLevel(price: try ExactDecimal("1262000"), size: try ExactDecimal("0.5"))],
            asks: [BookLevel(price: try ExactDecimal("1262100"), size: try ExactDecimal("0.4"))],
            time: SampleData.now.addingTimeInterval(-600))
        let trade = MarketTrade(
            source: "bitso-ws", market: market, id: "t1", price: try ExactDecimal("1262050"), size: try ExactDecimal("0.01"),
            side: .buy, time: SampleData.now.addingTimeInterval(-12))
        let otherFeed = MarketTrade(
            source: "kraken-ws", market: market, id: "t2", price: try ExactDecimal("1262050"), size: try ExactDecimal("0.01"),
            side: .buy, time: SampleData.now.addingTimeInterval(-1))
        let live = BooksView.make(books: try SampleData.books(), depths: [depth], trades: [trade, otherFeed], context: SampleData.context(),
                                  asOf: SampleData.now.addingTimeInterval(-1_200))
        #expect(live.notices.isEmpty)
        #expect(live.dataAge?.seconds == 12)
        let quiet = BooksView.make(books: try SampleData.books(), depths: [depth], context: SampleData.context(),
                                   asOf: SampleData.now.addingTimeInterval(-1_200))
        #expect(quiet.notices == ["Books are 10 min old."])
        #expect(quiet.dataAge?.seconds == 600)
    }

    /// The ticker detail: volume, high, low, last, change, VWAP, ask and bid.
    @Test func ticker() throws {
        let view = BookView.make(quote: try SampleData.btcMxnTicker(), context: SampleData.context("de_AT"))
        #expect(view.book == "btc_mxn")
        #expect(view.name == "BTC MXN")
        #expect(view.last.text == "5.633,98\u{A0}MX$")
        #expect(view.volume?.text == "22,31349615\u{A0}BTC")
        #expect(view.high?.text == "5.750,00\u{A0}MX$")
        #expect(view.low?.text == "5.450,00\u{A0}MX$")
        #expect(view.vwap?.text == "5.393,45\u{A0}MX$")
        #expect(view.change24h?.text == "+133,98\u{A0}MX$")
        #expect(view.changePercent24h?.text == "+2,44\u{A0}%")
        #expect(view.trend == .up)
        #expect(view.ask?.text == "5.632,24\u{A0}MX$")
        #expect(view.bid?.text == "5.520,01\u{A0}MX$")
        #expect(view.dataAge?.seconds == 40)
    }
}
