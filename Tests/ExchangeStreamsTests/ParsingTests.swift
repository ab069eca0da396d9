import Foundation
import Market
import Money
import Testing
@testable import ExchangeStreams

/// Each exchange's messages, good and bad, as the engines read them.
@Suite struct ParsingTests {
    /// Kraken's numbers keep the digits they were sent with, which its checksum is computed over.
    @Test func krakenNumbersKeepTheirDigits() throws {
        let message = try KrakenMessage.parse(try ExchangeFixtures.krakenSession()[2])
        guard case .book(false, let data) = message else {
            Issue.record("not a book update: \(message)")
            return
        }
        #expect(data[0].symbol == "ALGO/USD")
        #expect(data[0].bids == [KrakenLevel(price: try ExactDecimal("0.12275"), qty: try ExactDecimal("6597.51731160"))])
        #expect(data[0].bids[0].qty.description == "6597.51731160")
        #expect(data[0].checksum == 1_100_635_717)
        #expect(data[0].timestamp == Date(timeIntervalSince1970: 1_727_923_617.050170))
    }

    /// Only numbers outside strings are quoted, with their text unchanged.
    @Test func quotingKeepsStringsAndText() {
        let text = #"{"a":-1.50e-3,"b":"x 2 \"3\"","c":[0.10,true,null]}"#
        #expect(JSONNumberText.quotingNumbers(text) == #"{"a":"-1.50e-3","b":"x 2 \"3\"","c":["0.10",true,null]}"#)
    }

    /// A recorded diff-orders message: a modified ask as an `open` with its order id.
    @Test func bitsoDiff() throws {
        let message = try BitsoMessage.parse(try ExchangeFixtures.bitsoSession()[2])
        #expect(message == .diff(BitsoDiff(book: "btc_mxn", sequence: 4_520_986_709, payload: [
            BitsoOrderChange(id: "HWeHxDg0wjcUHibz", price: 1_499_630, side: 1, amount: try ExactDecimal("0.00181072"), status: "open"),
        ], sent: 1_790_126_713_933)))
    }

    /// A recorded fill: the `completed` order carries no amount.
    @Test func bitsoFillWithoutAmount() throws {
        guard case .diff(let diff) = try BitsoMessage.parse(try ExchangeFixtures.bitsoSession()[6]) else {
            Issue.record("not a diff")
            return
        }
        #expect(diff.payload.map(\.status) == ["completed", "open"])
        #expect(diff.payload[0].amount == nil)
    }

    /// Malformed JSON is a `malformed` event from both parsers, naming the input.
    @Test(arguments: [#"{"type":"diff-orders","book":"btc_mxn","sequence":"#, "hello", #"{"book":"btc_mxn","sequence":5,"type":"diff-orders","payload":[{"r":"1"}]}"#])
    func bitsoMalformed(_ text: String) {
        #expect(throws: ExchangeEvent.self) { try BitsoMessage.parse(text) }
        do {
            _ = try BitsoMessage.parse(text)
        } catch {
            #expect(error.reason == .malformed)
        }
    }

    /// A Kraken message cut short, or a checksum that is not a number, is `malformed`.
    @Test(arguments: [#"{"channel":"book","type":"update","data":[{"symbol":"ALGO/USD","bids":[{"price":0.1"#,
                      #"{"channel":"book","type":"update","data":[{"symbol":"ALGO/USD","bids":[],"asks":[],"checksum":"abc"}]}"#])
    func krakenMalformed(_ text: String) {
        do {
            _ = try KrakenMessage.parse(text)
            Issue.record("parsed \(text)")
        } catch {
            #expect(error.reason == .malformed)
        }
    }

    /// A diff of a book not subscribed is counted `other-market` and changes nothing.
    @Test func diffOfAnotherMarket() throws {
        var engine = try BitsoEngine(client: .failing, feed: "bitso-ws", markets: [MarketPair(base: "BTC", quote: "MXN")], depth: 10)
        let output = engine.receive(try ExchangeFixtures.bitsoSession()[5], at: Date())
        #expect(output.events.map(\.reason) == [.otherMarket])
        #expect(output.events.first?.message.contains("btc_usd") == true)
        #expect(output.publications.isEmpty)
        #expect(output.snapshots.isEmpty)
    }

    /// A trade with a negative size is counted and not published; the good trade beside it is.
    @Test func negativeTradeSize() throws {
        var engine = try BitsoEngine(client: .failing, feed: "bitso-ws", markets: [MarketPair(base: "BTC", quote: "MXN")], depth: 10)
        let output = engine.receive(
            #"{"type":"trades","book":"btc_mxn","payload":[{"i":1,"a":"-0.5","r":"207300","t":0},{"i":2,"a":"0.25","r":"207310","t":1,"x":1790126718894}]}"#,
            at: Date())
        #expect(output.events.map(\.reason) == [.negativeSize])
        #expect(output.publications.map(\.topic.rawValue) == ["trade.bitso-ws.BTC-MXN", "quote.bitso-ws.BTC-MXN"])
    }

    /// Kraken: a trade of another symbol and one with a negative quantity are counted; neither is published.
    @Test func krakenBadTrades() throws {
        var engine = try KrakenEngine(feed: "kraken-ws", markets: [MarketPair(base: "BTC", quote: "USD")], depth: 10)
        let output = engine.receive(
            #"{"channel":"trade","type":"update","data":[{"symbol":"ETH/USD","side":"buy","price":2600.5,"qty":1.2,"trade_id":1,"timestamp":"2026-08-23T12:00:00.000000Z"},{"symbol":"BTC/USD","side":"sell","price":64099.0,"qty":-0.5,"trade_id":2,"timestamp":"2026-08-23T12:00:00.000000Z"}]}"#,
            at: Date())
        #expect(output.events.map(\.reason) == [.otherMarket, .negativeSize])
        #expect(output.publications.isEmpty)
    }

    /// Kraken's subscriptions: book at the smallest depth it takes that covers the published one, trades without
    /// their snapshot, tickers.
    @Test func krakenSubscriptions() throws {
        var engine = try KrakenEngine(feed: "kraken-ws", markets: [MarketPair(base: "BTC", quote: "USD"), MarketPair(base: "ETH", quote: "USD")], depth: 20)
        #expect(engine.connected().send == [
            #"{"method":"subscribe","params":{"channel":"book","symbol":["BTC/USD","ETH/USD"],"depth":25}}"#,
            #"{"method":"subscribe","params":{"channel":"trade","symbol":["BTC/USD","ETH/USD"],"snapshot":false}}"#,
            #"{"method":"subscribe","params":{"channel":"ticker","symbol":["BTC/USD","ETH/USD"]}}"#,
        ])
    }
}
