import PresenterViews
import Foundation
import Hummingbird
import HummingbirdTesting
import Market
import Testing
@testable import PresenterCore

struct AssetsViewTests {
    private func make(_ filter: String?, locale: String = "en_US") throws -> AssetsView {
        try AssetsView.make(assets: SampleData.assets(), wallets: SampleData.wallets(), filter: filter, context: SampleData.context(locale))
    }

    /// "all" lists cryptocoins, commodities, then only the fiats a (non-deleted) wallet holds.
    @Test func allListsFiatsWithWalletsOnly() throws {
        let view = try make(nil)
        #expect(view.filter == .all)
        #expect(view.rows.map(\.symbol) == ["BTC", "XRP", "PAN", "XAU", "XAG", "EUR", "USD", "CHF", "GBP"])
        #expect(view.rows.map(\.kind) == [.cryptocoin, .cryptocoin, .cryptocoin, .commodity, .commodity, .fiat, .fiat, .fiat, .fiat])
        #expect(view.currency == "EUR")
        #expect(view.notices.isEmpty)
    }

    /// Each filter keeps its kind; fiat leaves out AUD, the fiat XAU and CAD (whose only wallet is deleted).
    @Test func filters() throws {
        #expect(try make("crypto").rows.map(\.symbol) == ["BTC", "XRP", "PAN"])
        #expect(try make("commodity").rows.map(\.symbol) == ["XAU", "XAG"])
        #expect(try make("fiat").rows.map(\.symbol) == ["EUR", "USD", "CHF", "GBP"])
        #expect(try make("FIAT").filter == .fiat)
    }

    /// An unknown filter throws a message that names it and the accepted ones.
    @Test func invalidFilter() throws {
        #expect(throws: ViewError.invalidFilter("gold")) { try make("gold") }
        #expect(ViewError.invalidFilter("gold").description == "unknown assets filter \"gold\": use one of all, crypto, commodity, fiat")
    }

    /// The average price uses the asset's own fiat-price precision: BTC 2 digits, XRP and silver 4.
    @Test func pricePrecisionFromMasterdata() throws {
        let rows = try make(nil, locale: "de_AT").rows
        let bySymbol = Dictionary(rows.map { ($0.kind == .fiat ? "fiat-\($0.symbol)" : $0.symbol, $0) }, uniquingKeysWith: { first, _ in first })
        #expect(bySymbol["BTC"]?.averagePrice == DisplayAmount(raw: "8936.50", text: "8.936,50\u{A0}€", currency: "EUR"))
        #expect(bySymbol["XRP"]?.averagePrice?.text == "0,2460\u{A0}€")
        #expect(bySymbol["XAG"]?.averagePrice?.text == "0,5223\u{A0}€")
        #expect(bySymbol["XAG"]?.unit == "g")
        #expect(bySymbol["BTC"]?.change24h?.text == "-3,07\u{A0}%")
        #expect(bySymbol["BTC"]?.trend == .down)
        #expect(bySymbol["PAN"]?.trend == .flat)
    }

    /// Fiats show no price, but both icons.
    @Test func fiatsShowNoPrice() throws {
        let euro = try #require(try make("fiat").rows.first)
        #expect(euro.averagePrice == nil)
        #expect(euro.change24h == nil)
        #expect(euro.iconLight == "/icons/EUR-light.svg")
        #expect(euro.iconDark == "/icons/EUR-dark.svg")
    }

    /// Without any fiat wallet the fiat filter is empty and says why.
    @Test func noFiatWallets() throws {
        let view = try AssetsView.make(assets: SampleData.assets(), wallets: [], filter: "fiat", context: SampleData.context())
        #expect(view.rows.isEmpty)
        #expect(view.notices == ["No fiat currency has a wallet."])
    }

    /// Average prices are the masterdata's EUR whatever display currency the reader chose: the view is the same
    /// for USD and SEK, and says EUR.
    @Test func pricesStayInEuroWhateverTheDisplayCurrency() throws {
        let inDollars = try AssetsView.make(assets: SampleData.assets(), wallets: SampleData.wallets(), filter: nil,
                                            context: SampleData.context("de_AT", currency: "USD"))
        let inKronor = try AssetsView.make(assets: SampleData.assets(), wallets: SampleData.wallets(), filter: nil,
                                           context: SampleData.context("de_AT", currency: "SEK"))
        #expect(inDollars == inKronor)
        #expect(inKronor.currency == "EUR")
        #expect(inKronor.rows.compactMap(\.averagePrice).allSatisfy { $0.currency == "EUR" && $0.text.hasSuffix("\u{A0}€") })
    }

    /// The page in de_AT shows "1.298,99 €"-style prices, says they are in EUR, and its header shows EUR instead of
    /// offering the currency switch (which would not apply); other pages keep the switch.
    @Test func pageSaysEuroAndOffersNoCurrencySwitch() throws {
        let view = try AssetsView.make(assets: SampleData.assets(), wallets: SampleData.wallets(), filter: nil,
                                       context: SampleData.context("de_AT", currency: "SEK"))
        let context = PageContext(locale: "de_AT", currency: "SEK", path: "/assets",
                                  query: PageContext.parseQuery("locale=de_AT&currency=SEK"), now: SampleData.now)
        let html = Pages.assets(view, context: context)
        #expect(html.contains("data-raw=\"8936.50\">8.936,50\u{A0}€</td>"))
        #expect(html.contains("data-raw=\"0.5223\">0,5223\u{A0}€ <span class=\"symbol\">/ g</span></td>"))
        #expect(!html.contains("€\u{A0}"), "no price with the symbol first")
        #expect(html.contains("<p id=\"currency-note\" class=\"muted small\">Average prices are in EUR, as the masterdata gives them.</p>"))
        #expect(html.contains("<th class=\"num\">Average price (EUR)</th>"))
        #expect(html.contains("<div class=\"switch\" id=\"currency-fixed\"><span class=\"switch-label\">Currency</span><span class=\"selected\">EUR</span></div>"))
        #expect(!html.contains("id=\"currency-switch\""))
        #expect(!html.contains("data-currency=\"USD\"") && !html.contains("data-currency=\"SEK\">SEK</a>"))
        #expect(html.contains("id=\"locale-switch\""))
        let wallets = Pages.wallets(WalletsView.make(groups: try SampleData.walletGroups(), context: SampleData.context("de_AT")),
                                    context: PageContext(locale: "de_AT", currency: "SEK", path: "/wallets", now: SampleData.now))
        #expect(wallets.contains("id=\"currency-switch\"") && !wallets.contains("id=\"currency-fixed\""))
    }

    /// `/assets?locale=de_AT` from a presenter over mock upstreams: the masterdata's BTC average price 8936.50 is
    /// "8.936,50 €" on the page and in the JSON view, in EUR even when SEK is asked for.
    @Test func assetsPageInAustria() async throws {
        try await InProcessPresenter.mocks().test { client in
            let page = try await client.execute(uri: "/assets?locale=de_AT&currency=SEK", method: .get)
            #expect(page.status == .ok)
            #expect(page.text.contains("data-raw=\"8936.50\">8.936,50\u{A0}€</td>"))
            #expect(page.text.contains("id=\"currency-fixed\"") && !page.text.contains("id=\"currency-switch\""))
            #expect(!page.text.contains("€\u{A0}"))
            let json = try await client.execute(uri: "/api/views/assets?locale=de_AT&currency=SEK", method: .get)
            guard case .assets(let view) = try JSONDecoder().decode(ScreenView.self, from: Data(buffer: json.body)) else {
                Issue.record("not an assets view")
                return
            }
            #expect(view.currency == "EUR" && view.locale == "de_AT")
            #expect(view.rows.first { $0.symbol == "BTC" }?.averagePrice == DisplayAmount(raw: "8936.50", text: "8.936,50\u{A0}€", currency: "EUR"))
            let english = try await client.execute(uri: "/assets?locale=en_US", method: .get)
            #expect(english.text.contains("data-raw=\"8936.50\">€8,936.50</td>"))
        }
    }
}
