import Bus
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Market
import PresenterViews
import Synchronization
import Testing
import TickwireClients
import TickwireContract
@testable import PresenterCore
import BusContract

@Suite("The Coins screen's add box and remove buttons")
struct CoinListPageTests {
    private func page(_ path: String) -> PageContext {
        PageContext(locale: "en_US", currency: "USD", path: path, now: SampleData.now, requestId: "req-1", csrfToken: "tok")
    }

    /// The add box posts to `/coins/add` with the CSRF token, suggesting known coins by id with their names; only
    /// a coin CoinGecko tracks has a remove button, posting to `/coins/{symbol}/remove`.
    @Test func addBoxAndRemoveForms() throws {
        let coins = [
            CoinSnapshot(symbol: "BTC", name: "Bitcoin", price: try SampleData.price("BTC", "70187", change: "3.1"), watched: false),
            CoinSnapshot(symbol: "MXN", name: "Mexican Peso", price: nil, watched: true),
        ]
        let view = CoinsView.make(
            coins: coins, context: SampleData.context(), tracked: ["BTC"],
            suggestions: [KnownCoin(id: "polkadot", symbol: "DOT", name: "Polkadot"), KnownCoin(id: "<x>")])
        #expect(view.rows.map(\.tracked) == [true, false])
        let html = Pages.coins(view, context: page("/coins"))
        #expect(html.contains("<form id=\"add-coin\" class=\"card\" method=\"post\" action=\"/coins/add\">"))
        #expect(html.contains("<input type=\"hidden\" name=\"csrf\" value=\"tok\">\n<label>CoinGecko id, symbol or name<input name=\"coin\" list=\"coin-suggestions\" required"))
        #expect(html.contains("<datalist id=\"coin-suggestions\"><option value=\"polkadot\" label=\"Polkadot (DOT)\"></option><option value=\"&lt;x&gt;\"></option></datalist>"))
        #expect(html.components(separatedBy: "class=\"inline remove-coin\"").count - 1 == 1)
        #expect(html.contains("<form class=\"inline remove-coin\" method=\"post\" action=\"/coins/BTC/remove\"><input type=\"hidden\" name=\"csrf\" value=\"tok\">"))
        #expect(!html.contains("/coins/MXN/remove"))
        #expect(!html.contains("<script>") && !html.contains(" style=\""))
    }

    /// The Coins screen waits at most 300 ms for its suggestions: while rates-fetcher's `coins.known` hangs, the
    /// page comes at once without them, and once the answer arrives the next page has them.
    @Test func suggestionsNeverHoldUpThePage() async throws {
        let (released, release) = AsyncStream<Void>.makeStream()
        // The call hangs until the test releases it, or until this deadline: a page that waited for the whole call
        // (the bug) would come only after it, which `expired` then tells, however loaded the machine is.
        let expired = Mutex(false)
        let deadline = Task {
            try? await Task.sleep(for: .seconds(60))
            if !Task.isCancelled { expired.withLock { $0 = true } }
            release.finish()
        }
        var sources = ViewSources(portfolio: .failing, fetcher: .failing, converter: .failing)
        sources.knownCoins = { _ in
            for await _ in released {}
            return [KnownCoin(id: "polkadot", symbol: "DOT", name: "Polkadot")]
        }
        let builder = ScreenBuilder(state: PresenterState(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })), sources: sources)

        let started = ContinuousClock.now
        guard case .coins(let waiting) = try await builder.view("coins", parameters: [:], context: SampleData.context()) else {
            Issue.record("not the Coins view")
            return
        }
        #expect(!expired.withLock { $0 }, "the page waited \(ContinuousClock.now - started) for its suggestions")
        #expect(waiting.suggestions ?? [] == [])

        release.finish()
        #expect(await poll {
            guard case .coins(let view)? = try? await builder.view("coins", parameters: [:], context: SampleData.context()) else { return false }
            return view.suggestions?.map(\.id) == ["polkadot"]
        }, "the next page has the suggestions")
        deadline.cancel()
    }

    /// A retracted quote, coin and price leave the presenter's state; a later snapshot without them too.
    @Test func stateForgetsRetractedTopics() async throws {
        let state = PresenterState(logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        let quote = Quote(source: "coingecko", market: MarketPair(base: "DOT", quote: "USD"), last: try SampleData.decimal("8.29"))
        let quoteTopic = try Topic("quote.coingecko.DOT-USD"), coinTopic = try Topic("coin.coingecko.DOT")
        await state.apply(.snapshot([
            StreamUpdate(topic: quoteTopic, seq: 1, time: SampleData.now, source: "coingecko", value: .quote(quote)),
            StreamUpdate(topic: coinTopic, seq: 1, time: SampleData.now, source: "coingecko",
                         value: .coin(CoinInfo(id: "polkadot", symbol: "DOT", name: "Polkadot", image: ""))),
        ]), from: "rates-fetcher")
        await state.apply(.snapshot([StreamUpdate(
            topic: try Topic("price.DOT.USD"), seq: 1, time: SampleData.now, source: "converter",
            value: try SampleData.price("DOT", "8.29", change: nil))]), from: "converter")
        #expect(await state.coins["DOT"]?.id == "polkadot")
        #expect(await state.quotes[quoteTopic] != nil)
        #expect(await state.price("DOT", in: "USD") != nil)

        await state.apply(StreamEvent<FetcherUpdate>.removed(quoteTopic), from: "rates-fetcher")
        await state.apply(StreamEvent<FetcherUpdate>.removed(coinTopic), from: "rates-fetcher")
        await state.apply(StreamEvent<AssetPrice>.removed(try Topic("price.DOT.USD")), from: "converter")
        #expect(await state.coins["DOT"] == nil)
        #expect(await state.quotes[quoteTopic] == nil)
        #expect(await state.price("DOT", in: "USD") == nil)
        #expect(await state.streams["rates-fetcher"] == "ok")
    }

    /// Through the dashboard over the mocks: an unknown coin is a notice on the Coins page and changes nothing;
    /// a tracked coin removed loses its remove button, and added back (by name) gets it again.
    @Test func addAndRemoveThroughTheDashboard() async throws {
        let presenter = try InProcessPresenter.mocks()
        let state = presenter.core.state
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client)
            let list = try await client.execute(uri: "/coins", method: .get, headers: csrf.headers)
            #expect(list.text.contains("action=\"/coins/add\"") && list.text.contains("action=\"/coins/BTC/remove\""))

            let unknown = try await client.execute(uri: "/coins/add", method: .post, headers: csrf.headers, body: csrf.form([("coin", "foo")]))
            #expect(unknown.status == .badRequest)
            #expect(unknown.text.contains("The coin was not added: ") && unknown.text.contains("unknown coin &quot;foo&quot;"))
            #expect(unknown.text.contains("<form id=\"add-coin\""))

            let removed = try await client.execute(uri: "/coins/BTC/remove", method: .post, headers: csrf.headers, body: csrf.form([]))
            #expect(removed.status == .seeOther && removed.headers[.location] == "/coins")
            #expect(await state.coins["BTC"] == nil)
            let after = try await client.execute(uri: "/coins", method: .get, headers: csrf.headers)
            #expect(!after.text.contains("action=\"/coins/BTC/remove\""))

            let added = try await client.execute(uri: "/coins/add", method: .post, headers: csrf.headers, body: csrf.form([("coin", "Bitcoin")]))
            #expect(added.status == .seeOther)
            #expect(await poll { await state.coins["BTC"] != nil })
            let back = try await client.execute(uri: "/coins", method: .get, headers: csrf.headers)
            #expect(back.text.contains("action=\"/coins/BTC/remove\""))

            let forged = try await client.execute(uri: "/coins/BTC/remove", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"], body: form([]))
            #expect(forged.status == .forbidden)
        }
    }
}
