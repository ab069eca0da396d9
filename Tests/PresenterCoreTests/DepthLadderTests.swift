import Bus
import Foundation
import Logging
import Market
import Money
import PresenterViews
import Testing
@testable import PresenterCore

/// The Books screen's depth ladder: rows, cumulative sizes, depth bars, spread, its markup and its live events.
struct DepthLadderTests {
    private static let btcMXN = MarketPair(base: "BTC", quote: "MXN")

    /// A BTC-MXN book of `source`: three bids and two asks.
    private static func depth(source: String = "bitso-ws", sequence: Int64 = 4211, bestBid: String = "1262000.50") throws -> BookDepth {
        BookDepth(
            source: source, market: btcMXN, sequence: sequence,
            bids: [
                BookLevel(price: try ExactDecimal(bestBid), size: try ExactDecimal("0.25")),
                BookLevel(price: try ExactDecimal("1261990.00"), size: try ExactDecimal("0.5")),
                BookLevel(price: try ExactDecimal("1261800"), size: try ExactDecimal("1.25")),
            ],
            asks: [
                BookLevel(price: try ExactDecimal("1262010.50"), size: try ExactDecimal("0.1")),
                BookLevel(price: try ExactDecimal("1262100.00"), size: try ExactDecimal("0.4")),
            ],
            time: SampleData.now.addingTimeInterval(-2))
    }

    private static func trade(_ id: String, _ price: String, side: TradeSide?, secondsAgo: TimeInterval, source: String = "bitso-ws",
                              market: MarketPair = btcMXN) throws -> MarketTrade {
        MarketTrade(source: source, market: market, id: id, price: try ExactDecimal(price), size: try ExactDecimal("0.015"), side: side,
                    time: SampleData.now.addingTimeInterval(-secondsAgo))
    }

    private func page(_ query: String = "") -> PageContext {
        PageContext(locale: "en_US", currency: "USD", path: "/books", query: PageContext.parseQuery(query), now: SampleData.now, requestId: "req-1")
    }

    /// Each level has its size and the running total from the best price; the bar is the total's share of the deepest
    /// side's (half-even: 12.5 → 12); the spread is best ask minus best bid, in percent of the mid price.
    @Test func ladderRowsTotalsAndSpread() throws {
        let ladder = DepthLadder.make(depth: try Self.depth(), context: SampleData.context())
        #expect(ladder.feed == "bitso-ws")
        #expect(ladder.market == "BTC-MXN")
        #expect(ladder.name == "BTC MXN")
        #expect(ladder.sequence == 4211)
        #expect(ladder.bids.map(\.price.text) == ["1,262,000.50", "1,261,990.00", "1,261,800.00"])
        #expect(ladder.bids.map(\.size.text) == ["0.25", "0.50", "1.25"])
        #expect(ladder.bids.map(\.total.raw) == ["0.25", "0.75", "2.00"])
        #expect(ladder.bids.map(\.depth) == [12, 38, 100])
        #expect(ladder.asks.map(\.price.raw) == ["1262010.50", "1262100.00"])
        #expect(ladder.asks.map(\.total.text) == ["0.10", "0.50"])
        #expect(ladder.asks.map(\.depth) == [5, 25])
        #expect(ladder.spread == DisplayAmount(raw: "10.00", text: "MX$10.00", currency: "MXN"))
        // 10.00 / 1,262,005.50 = 0.000792 %
        #expect(ladder.spreadPercent == DisplayAmount(raw: "0.000792", text: "0.0008%", currency: nil))
        #expect(ladder.dataAge?.seconds == 2)
    }

    /// Money is formatted as the app formats it in each locale and currency: MXN in de_AT, JPY without decimals,
    /// a BTC-quoted market with its small prices in full.
    @Test func everyLocaleAndCurrency() throws {
        let austrian = DepthLadder.make(depth: try Self.depth(), context: SampleData.context("de_AT"))
        #expect(austrian.bids[0].price.text == "1.262.000,50")
        #expect(austrian.spread?.text == "10,00\u{A0}MX$")
        let yen = BookDepth(source: "kraken-ws", market: MarketPair(base: "BTC", quote: "JPY"), sequence: 1,
                            bids: [BookLevel(price: 13_500_000, size: 1)], asks: [BookLevel(price: 13_500_150, size: 2)])
        let yenLadder = DepthLadder.make(depth: yen, context: SampleData.context())
        #expect(yenLadder.spread?.text == "¥150")
        #expect(yenLadder.asks[0].depth == 100)
        #expect(yenLadder.bids[0].depth == 50)
        let thin = BookDepth(source: "bitso-ws", market: Self.btcMXN, sequence: 2,
                             bids: [BookLevel(price: 100, size: try ExactDecimal("0.001"))], asks: [BookLevel(price: 101, size: 10)])
        #expect(DepthLadder.make(depth: thin, context: SampleData.context()).bids[0].depth == 1, "a level far below 0.5 % still shows")
        let xrp = BookDepth(
            source: "bitso-ws", market: MarketPair(base: "XRP", quote: "BTC"), sequence: 9,
            bids: [BookLevel(price: try ExactDecimal("0.00000881"), size: try ExactDecimal("1500"))],
            asks: [BookLevel(price: try ExactDecimal("0.00000884"), size: try ExactDecimal("20.5"))])
        let xrpLadder = DepthLadder.make(depth: xrp, context: SampleData.context())
        #expect(xrpLadder.bids[0].price.text == "0.00000881")
        #expect(xrpLadder.spread?.raw == "0.00000003")
        #expect(xrpLadder.bids[0].size.text == "1,500.0")
    }

    /// An empty side has no spread; the ladder still shows the other.
    @Test func oneSidedBook() throws {
        var depth = try Self.depth()
        depth.asks = []
        let ladder = DepthLadder.make(depth: depth, context: SampleData.context())
        #expect(ladder.spread == nil)
        #expect(ladder.spreadPercent == nil)
        #expect(ladder.bids.count == 3)
        let html = Pages.depthSection(ladder, choices: [], context: page())
        #expect(html.contains("<span id=\"spread\" class=\"missing\">—</span>"))
        #expect(html.contains("<tbody><tr><td colspan=\"4\" class=\"muted\">No orders.</td></tr></tbody>"))
    }

    /// The trades of the ladder's feed and market only, newest first, with their taker side.
    @Test func lastTrades() throws {
        let trades = [
            try Self.trade("1", "1262005.00", side: .buy, secondsAgo: 5),
            try Self.trade("2", "1262001", side: .sell, secondsAgo: 3),
            try Self.trade("3", "1262002", side: nil, secondsAgo: 1, source: "bitso"),
            try Self.trade("4", "61000", side: .buy, secondsAgo: 1, market: MarketPair(base: "ETH", quote: "MXN")),
        ]
        let ladder = DepthLadder.make(depth: try Self.depth(), trades: trades, context: SampleData.context())
        #expect(ladder.trades.map(\.id) == ["2", "1"])
        #expect(ladder.trades.map(\.side) == ["sell", "buy"])
        #expect(ladder.trades[0].price.text == "1,262,001.00")
        #expect(ladder.trades[0].time == "2025-06-15T15:06:37Z")
        #expect(ladder.trades[0].timeText.hasPrefix("3:06:37"))
    }

    /// The Books screen keeps Bitso's limits and adds the ladder of the book chosen (`feed` and `market`), else the first:
    /// real tables with captions and column headers, a bar per level, the spread, sequence and feed, and the script that
    /// keeps it live.
    @Test func booksPageShowsTheLadder() throws {
        let eth = BookDepth(source: "bitso-ws", market: MarketPair(base: "ETH", quote: "MXN"), sequence: 7,
                            bids: [BookLevel(price: 61_000, size: 2)], asks: [BookLevel(price: 61_010, size: 1)])
        let trades = [try Self.trade("1", "1262005.00", side: .buy, secondsAgo: 5)]
        let view = BooksView.make(books: try SampleData.books(), depths: [eth, try Self.depth()], trades: trades,
                                  selected: DepthChoice(feed: "bitso-ws", market: "BTC-MXN"), context: SampleData.context())
        #expect(view.depthChoices == [DepthChoice(feed: "bitso-ws", market: "BTC-MXN"), DepthChoice(feed: "bitso-ws", market: "ETH-MXN")])
        #expect(view.depth?.market == "BTC-MXN")
        let html = Pages.books(view, context: page("market=BTC-MXN&feed=bitso-ws"))
        #expect(html.contains("<li class=\"book\" data-book=\"btc_mxn\">"))
        #expect(html.components(separatedBy: "<li class=\"book\"").count - 1 == 3)
        #expect(html.contains("<h2 id=\"depth-title\">Order book BTC MXN</h2>"))
        #expect(html.contains("<table id=\"bids\" class=\"ladder-side bids\"><caption>Bids (buy orders), best first</caption>"
            + "<thead><tr><th scope=\"col\" class=\"num\">Price (MXN)</th><th scope=\"col\" class=\"num\">Size (BTC)</th>"
            + "<th scope=\"col\" class=\"num\">Total (BTC)</th><th scope=\"col\" class=\"depth-col\">Depth</th></tr></thead>"))
        #expect(html.contains("<table id=\"asks\" class=\"ladder-side asks\"><caption>Asks (sell orders), best first</caption>"))
        #expect(html.components(separatedBy: "<span class=\"bar w").count - 1 == 5)
        #expect(html.contains("<tr><td class=\"num price\" data-raw=\"1261800\">1,261,800.00</td><td class=\"num size\" data-raw=\"1.25\">1.25</td>"
            + "<td class=\"num total\" data-raw=\"2.00\">2.00</td><td class=\"depth-cell\"><span class=\"bar w100\"></span>"
            + "<span class=\"visually-hidden\">100 %</span></td></tr>"))
        #expect(html.contains("<dt>Spread</dt><dd><span id=\"spread\" data-raw=\"10.00\">MX$10.00</span> <span id=\"spread-percent\" data-raw=\"0.000792\">(0.0008%)</span></dd>"))
        #expect(html.contains("<dd id=\"sequence\">4211</dd>"))
        #expect(html.contains("<dd id=\"depth-feed\">bitso-ws</dd>"))
        #expect(html.contains("<table id=\"trades\" class=\"trades\"><caption>Last trades</caption>"))
        #expect(html.contains("<td class=\"side up\">Buy</td>"))
        #expect(html.contains("<a href=\"/books?market=BTC-MXN&amp;feed=bitso-ws\" aria-current=\"true\" class=\"selected\">BTC-MXN · bitso-ws</a>"))
        #expect(html.contains("<a href=\"/books?market=ETH-MXN&amp;feed=bitso-ws\">ETH-MXN · bitso-ws</a>"))
        #expect(html.contains("<script src=\"/static/depth-ladder.js\" data-feed=\"bitso-ws\" data-market=\"BTC-MXN\" data-locale=\"en_US\"></script>"))
        #expect(Stylesheet.css.contains(".bar.w0 { width: 0%; }"))
        #expect(Stylesheet.css.contains(".bar.w100 { width: 100%; }"))
        #expect(Scripts.files["depth-ladder.js"]?.contains("textContent") == true)
        #expect(Scripts.files["depth-ladder.js"]?.contains("innerHTML") == false)
    }

    /// Without a choice the first book by feed and market is shown; a choice nobody publishes says so.
    @Test func defaultAndUnknownChoice() throws {
        let other = try Self.depth(source: "kraken-ws")
        let view = BooksView.make(books: try SampleData.books(), depths: [other, try Self.depth()], context: SampleData.context())
        #expect(view.depth?.feed == "bitso-ws")
        let missing = BooksView.make(books: try SampleData.books(), depths: [other], selected: DepthChoice(feed: "bitso-ws", market: "DOGE-MXN"),
                                     context: SampleData.context())
        #expect(missing.depth?.feed == "kraken-ws")
        #expect(missing.notices == ["No order book of DOGE-MXN from bitso-ws."])
        let none = BooksView.make(books: try SampleData.books(), context: SampleData.context())
        #expect(none.depth == nil)
        #expect(Pages.books(none, context: page()).contains("<p class=\"muted\">No feed publishes an order book yet.</p>"))
    }

    /// A hostile feed name, market code, trade side or choice reaches the page only escaped.
    @Test func everythingIsEscaped() throws {
        let evil = "<img src=x onerror=alert(1)>"
        var depth = try Self.depth(source: evil)
        depth.market = MarketPair(base: "<B>", quote: "\"Q'")
        var trade = try Self.trade("\"><script>alert(2)</script>", "1", side: nil, secondsAgo: 1, source: evil, market: depth.market)
        trade.side = nil
        let view = BooksView.make(books: try SampleData.books(), depths: [depth], trades: [trade],
                                  selected: DepthChoice(feed: "<svg onload=alert(3)>", market: "X"), context: SampleData.context())
        let html = Pages.books(view, context: page("feed=%3Csvg%3E"))
        #expect(!html.contains("<img src=x"))
        #expect(!html.contains("<script>alert"))
        #expect(!html.contains("<svg onload"))
        #expect(!html.contains("<B>"))
        #expect(html.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(html.contains("Price (&quot;Q&#39;)"))
        #expect(html.contains("No order book of X from &lt;svg onload=alert(3)&gt;."))
    }

    /// The live event is `event: depth` with the ladder as JSON on its one data line, which reads back as the same ladder.
    @Test func eventPayload() throws {
        let ladder = DepthLadder.make(depth: try Self.depth(), trades: [try Self.trade("1", "1262005.00", side: .buy, secondsAgo: 5)],
                                      context: SampleData.context())
        let event = DepthEvent.sse(ladder)
        #expect(event.hasPrefix("event: depth\ndata: {"))
        #expect(event.hasSuffix("}\n\n"))
        let lines = event.split(separator: "\n")
        #expect(lines.count == 2)
        let json = try #require(lines.last?.dropFirst("data: ".count))
        #expect(try Wire.decode(DepthLadder.self, from: Data(json.utf8)) == ladder)
        #expect(json.contains(#""sequence":4211"#))
        #expect(json.contains(#""total":{"currency":null,"raw":"2.00","text":"2.00"}"#) || json.contains(#""raw":"2.00""#))
    }

    /// The stream sends the ladder at once, again only when a `book` or `trade` change changed it, keep-alives between,
    /// and ends when the dashboard closes.
    @Test func eventStream() async throws {
        let state = PresenterState(logger: Logger(label: "depth-test"))
        let broadcast = PriceBroadcast()
        await state.apply(depth: try Self.depth())
        let choice = DepthChoice(feed: "bitso-ws", market: "BTC-MXN")
        let events = DepthEvent.stream(choice, locale: "en_US", state: state, updates: broadcast.subscribe(prices: false), now: { SampleData.now })
        var iterator = events.makeAsyncIterator()
        let first = try #require(await iterator.next())
        #expect(first == DepthEvent.sse(DepthLadder.make(depth: try Self.depth(), context: SampleData.context())))
        broadcast.send(changed: ["book"])
        broadcast.keepalive()
        #expect(await iterator.next() == ": keep-alive\n\n")
        await state.apply(depth: try Self.depth(sequence: 4212, bestBid: "1262003.00"))
        broadcast.send(changed: ["coin"])
        broadcast.send(changed: ["book"])
        let next = try #require(await iterator.next())
        #expect(next.contains(#""sequence":4212"#))
        await state.apply(trade: try Self.trade("9", "1262004", side: .sell, secondsAgo: 0))
        broadcast.send(changed: ["trade"])
        #expect(try #require(await iterator.next()).contains(#""id":"9""#))
        broadcast.close()
        #expect(await iterator.next() == nil)
    }

    /// The state keeps each feed's book per market and its last 50 trades, a repeated trade id once.
    @Test func stateKeepsBooksAndTrades() async throws {
        let state = PresenterState(logger: Logger(label: "depth-test"))
        await state.apply(depth: try Self.depth())
        await state.apply(depth: try Self.depth(sequence: 4300))
        await state.apply(depth: try Self.depth(source: "kraken-ws"))
        for index in 0..<60 { await state.apply(trade: try Self.trade("\(index)", "1262000", side: .buy, secondsAgo: Double(60 - index))) }
        await state.apply(trade: try Self.trade("59", "1262001", side: .sell, secondsAgo: 0))
        let (depth, trades) = await state.depth(feed: "bitso-ws", market: "BTC-MXN")
        #expect(depth?.sequence == 4300)
        #expect(trades.count == PresenterState.maxTrades)
        #expect(trades.first?.id == "10")
        #expect(trades.last?.price == 1_262_001)
        #expect(trades.filter { $0.id == "59" }.count == 1)
        #expect(await state.depths.count == 2)
    }
}
