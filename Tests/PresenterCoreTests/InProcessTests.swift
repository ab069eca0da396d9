import Bus
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import Money
import PresenterViews
import ServiceSupport
import Testing
import TickwireClients
import TickwireMocks
@testable import PresenterCore
import TickwireContract
import BusContract

/// A presenter in this process over given clients of its upstreams, with no socket: its dashboard is
/// driven through Hummingbird's router, its `view` method through its methods.
struct InProcessPresenter {
    let core: Presenter.Core
    let portfolio: PortfolioClient
    private let followers: [Task<Void, Never>]

    init(
        portfolio: PortfolioClient, converter: ConverterClient, fetcher: RatesFetcherClient, plugins: [PluginUpstream] = [],
        security: DashboardSecurity = DashboardSecurity(), icons: IconStore = IconStore()
    ) throws {
        var logger = Logger(label: "presenter-test")
        logger.logLevel = .critical
        self.portfolio = portfolio
        core = Presenter.Core(upstreams: PresenterUpstreams(portfolio: portfolio, converter: converter, fetcher: fetcher, plugins: plugins),
                              runtime: try Runtime(service: "presenter", logger: logger), icons: icons, security: security)
        followers = core.followers.map { follower in Task { try? await follower.run() } }
    }

    /// A presenter over mocks of one shared mock rates-fetcher, the converter replaced by `converter` if given.
    static func mocks(converter: ConverterClient? = nil, security: DashboardSecurity = DashboardSecurity()) throws -> InProcessPresenter {
        let fetcher = RatesFetcherClient.mock(seed: 3, interval: .milliseconds(200))
        let converter = converter ?? .mock(fetcher: fetcher)
        return try InProcessPresenter(
            portfolio: .mock(fetcher: fetcher, converter: converter), converter: converter, fetcher: fetcher, security: security)
    }

    /// Runs `body` against the dashboard's router (or, `.live`, its server on a free port), once the streams have been taken in.
    func test(_ mode: TestingSetup = .router, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let state = core.state
        let ready = await poll {
            let assets = await state.masterdata.assets, prices = await state.prices
            return !assets.isEmpty && !prices.isEmpty
        }
        #expect(ready, "the mock streams reached the presenter")
        try await core.web.application(host: "127.0.0.1", port: 0).test(mode, body)
        for follower in followers { follower.cancel() }
    }
}

/// Polls `condition` for up to ten seconds.
func poll(_ condition: () async -> Bool) async -> Bool {
    for _ in 0..<100 {
        if await condition() { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return await condition()
}

extension TestResponse {
    var text: String { String(buffer: body) }
}

/// A form body.
func form(_ fields: [(String, String)]) -> ByteBuffer {
    ByteBuffer(string: fields.map { "\($0.0)=\($0.1.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? $0.1)" }.joined(separator: "&"))
}

/// A browser's CSRF token: the cookie a page sets, which its forms repeat.
struct CSRFToken {
    let value: String

    /// The token the page at `path` gives.
    init(from client: some TestClientProtocol, path: String = "/coins", headers: HTTPFields = [:]) async throws {
        let page = try await client.execute(uri: path, method: .get, headers: headers)
        let cookie = try #require(page.headers[.setCookie], "\(path) sets the CSRF cookie")
        value = String(try #require(cookie.split(separator: ";").first?.split(separator: "=").last))
    }

    /// The headers of a form post that carries the cookie.
    var headers: HTTPFields { [.contentType: "application/x-www-form-urlencoded", .cookie: "tickwire_csrf=\(value)"] }

    /// `fields` and the token, as a form body.
    func form(_ fields: [(String, String)]) -> ByteBuffer { PresenterCoreTests.form(fields + [("csrf", value)]) }
}

@Suite("Presenter in process, over mock and failing clients")
struct InProcessTests {
    /// Every screen answers as a page and as JSON, in USD and in SEK, from mock upstreams alone.
    @Test(arguments: ["USD", "SEK"])
    func everyScreen(currency: String) async throws {
        try await InProcessPresenter.mocks().test { client in
            for path in ["/coins", "/coins/BTC", "/assets", "/wallets", "/portfolio", "/books", "/books/btc_mxn", "/products", "/products/T2006"] {
                let response = try await client.execute(uri: "\(path)?currency=\(currency)", method: .get)
                #expect(response.status == .ok, "\(path) in \(currency): \(response.text.prefix(300))")
                #expect(response.text.contains("<html"), "\(path) is a page")
            }
            let coins = try await client.execute(uri: "/api/views/coins?currency=\(currency)&locale=sv_SE", method: .get)
            guard case .coins(let view) = try JSONDecoder().decode(ScreenView.self, from: Data(buffer: coins.body)) else {
                Issue.record("not a coins view")
                return
            }
            #expect(view.currency == currency && view.locale == "sv_SE")
            #expect(view.rows.first { $0.symbol == "BTC" }?.price?.currency == currency)
            let missing = try await client.execute(uri: "/coins/NOPE", method: .get)
            #expect(missing.status == .notFound)
            let unknown = try await client.execute(uri: "/api/views/nope", method: .get)
            #expect(unknown.status == .notFound)
        }
    }

    /// The trade form adds a trade once per request id and shows it; a bad amount is refused with a notice.
    @Test func tradeForm() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { client in
            let fields = [("amount", "0.25"), ("price", "50000"), ("currency", "USD"), ("date", "2026-01-02"), ("requestId", "form-1")]
            let csrf = try await CSRFToken(from: client, path: "/coins/BTC")
            for _ in 0..<2 {
                let added = try await client.execute(uri: "/coins/BTC/trades", method: .post, headers: csrf.headers, body: csrf.form(fields))
                #expect(added.status == .seeOther)
                #expect(added.headers[.location] == "/coins/BTC?added=1")
            }
            let trades = try await presenter.portfolio.trades(TradesRequest())
            #expect(trades.map(\.asset) == ["BTC"])
            let page = try await client.execute(uri: "/portfolio", method: .get)
            #expect(page.text.contains("0.25"))

            let bad = try await client.execute(uri: "/coins/BTC/trades", method: .post, headers: csrf.headers,
                                               body: csrf.form([("amount", "zero"), ("price", "1"), ("currency", "USD"), ("date", "2026-01-02"), ("requestId", "form-2")]))
            #expect(bad.status == .badRequest)
            #expect(bad.text.contains("The trade was not added"))
        }
    }

    /// The trade form records a sell with a fee in another currency and a fee activity (no amount, no price); the
    /// Portfolio screen lists each with its kind and fee; an unknown kind is refused with a notice.
    @Test func tradeFormKindsAndFees() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client, path: "/coins/BTC")
            let forms = [
                [("kind", "buy"), ("amount", "1"), ("price", "50000"), ("currency", "USD"), ("feeAmount", ""), ("feeCurrency", "USD"),
                 ("date", "2026-01-02"), ("requestId", "kinds-1")],
                [("kind", "sell"), ("amount", "0.4"), ("price", "60000"), ("currency", "USD"), ("feeAmount", "2.5"), ("feeCurrency", "EUR"),
                 ("date", "2026-02-02"), ("requestId", "kinds-2")],
                [("kind", "fee"), ("amount", ""), ("price", ""), ("currency", "USD"), ("feeAmount", "1.25"), ("feeCurrency", "USD"),
                 ("date", "2026-03-02"), ("requestId", "kinds-3")],
            ]
            for fields in forms {
                let added = try await client.execute(uri: "/coins/BTC/trades", method: .post, headers: csrf.headers, body: csrf.form(fields))
                #expect(added.status == .seeOther, "\(fields[0])")
            }
            let trades = try await presenter.portfolio.trades(TradesRequest())
            #expect(trades.map(\.kind) == [.buy, .sell, .fee])
            #expect(trades[1].fee == CurrencyAmount(amount: try ExactDecimal("2.5"), currency: "EUR"))
            #expect(trades[2].fee == CurrencyAmount(amount: try ExactDecimal("1.25"), currency: "USD") && trades[2].amount.isZero)
            let page = try await client.execute(uri: "/portfolio?currency=USD", method: .get)
            #expect(page.text.contains(#"<td class="kind" data-kind="sell">Sell</td>"#))
            #expect(page.text.contains(#"<td class="num fee" data-raw="2.5">€2.50</td>"#))
            #expect(page.text.contains(#"<td class="kind" data-kind="fee">Fee</td>"#))
            #expect(page.text.contains(#"id="cost-basis-method""#))

            let bad = try await client.execute(uri: "/coins/BTC/trades", method: .post, headers: csrf.headers,
                                               body: csrf.form([("kind", "gift"), ("amount", "1"), ("price", "1"), ("currency", "USD"),
                                                                ("date", "2026-01-02"), ("requestId", "kinds-4")]))
            #expect(bad.status == .badRequest)
            #expect(bad.text.contains("kind must be one of buy, sell, fee, transfer_in, transfer_out"))
        }
    }

    /// Watch and unwatch change the portfolio's watch list; refresh asks rates-fetcher.
    @Test func watchAndRefreshForms() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { client in
            let csrf = try await CSRFToken(from: client)
            func post(_ uri: String) async throws -> TestResponse {
                try await client.execute(uri: uri, method: .post, headers: csrf.headers, body: csrf.form([]))
            }
            #expect(try await post("/coins/ETH/watch").status == .seeOther)
            #expect(try await presenter.portfolio.watchlist() == ["ETH"])
            let watchlist = try await client.execute(uri: "/coins?scope=watchlist", method: .get)
            #expect(watchlist.text.contains("ETH"))
            #expect(try await post("/coins/ETH/unwatch").status == .seeOther)
            #expect(try await presenter.portfolio.watchlist() == [])
            #expect(try await post("/coins/NOPE/watch").status == .badRequest)
            let refreshed = try await client.execute(uri: "/books/refresh", method: .post, headers: csrf.headers,
                                                     body: csrf.form([("return", "/books/btc_mxn")]))
            #expect(refreshed.status == .seeOther)
            #expect(refreshed.headers[.location] == "/books/btc_mxn")
        }
    }

    /// With the converter down, the portfolio answers from stored prices and says so, and so does the page.
    @Test func converterOutage() async throws {
        let presenter = try InProcessPresenter(
            portfolio: .mock(fetcher: .mock(), converter: .failing), converter: .failing, fetcher: .mock())
        let trade = AddTradeRequest(asset: "ETH", amount: 1, price: 20_000, currency: "SEK", date: Date(timeIntervalSinceNow: -3_600), requestId: "outage")
        // The portfolio knows ETH once the mock rates-fetcher's masterdata reached it (a moment on a loaded machine).
        let added = await poll { (try? await presenter.portfolio.addTrade(trade)) != nil }
        try #require(added)
        let valuation = try await presenter.portfolio.holdings(HoldingsRequest(currency: "USD"))
        #expect(valuation.offline)
        #expect(valuation.warnings.contains { $0.contains("ConverterClient.total") })
        let ready = await poll { await !presenter.core.state.masterdata.assets.isEmpty }
        #expect(ready)
        try await presenter.core.web.application(host: "127.0.0.1", port: 0).test(.router) { client in
            let page = try await client.execute(uri: "/portfolio", method: .get)
            #expect(page.status == .ok)
            #expect(page.text.contains("the converter is unreachable"))
            let coins = try await client.execute(uri: "/coins", method: .get)
            #expect(coins.status == .ok)
            #expect(coins.text.contains("converter: ConverterClient.prices is not implemented here"))
        }
    }

    /// The REP `view` method answers the same views, through the presenter's methods with no socket.
    @Test func viewMethod() async throws {
        let presenter = try InProcessPresenter.mocks()
        try await presenter.test { _ in
            let client = PresenterClient.live(LocalRPC(presenter.core.methods))
            guard case .product(let product) = try await client.view(ViewRequest(screen: "product", locale: "de_AT", sku: "T2006")) else {
                Issue.record("not a product view")
                return
            }
            #expect(product.total.text == "14,99\u{A0}€")
            await #expect(throws: RPCError.notFound("No screen \"nope\"; screens: \(ScreenView.screens.joined(separator: ", ")).")) {
                try await client.view(ViewRequest(screen: "nope"))
            }
        }
    }
}
