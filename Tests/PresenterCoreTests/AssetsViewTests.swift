import PresenterViews
import Foundation
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
        #expect(bySymbol["BTC"]?.averagePrice == DisplayAmount(raw: "8936.50", text: "€\u{A0}8.936,50", currency: "EUR"))
        #expect(bySymbol["XRP"]?.averagePrice?.text == "€\u{A0}0,2460")
        #expect(bySymbol["XAG"]?.averagePrice?.text == "€\u{A0}0,5223")
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
}
