import PresenterViews
import Foundation
import Market
import Testing
@testable import PresenterCore

struct WalletsViewTests {
    /// Groups come fiat, crypto, commodity, each in the order given (largest balance first).
    @Test func groupsAndOrder() throws {
        let view = WalletsView.make(groups: try SampleData.walletGroups(), context: SampleData.context())
        #expect(view.groups.map(\.kind) == [.fiat, .cryptocoin, .commodity])
        #expect(view.groups.map(\.title) == ["Fiat wallets", "Crypto wallets", "Commodity wallets"])
        #expect(view.groups[0].rows.map(\.symbol) == ["USD", "GBP", "EUR", "CHF"])
        #expect(view.groups[1].rows.map(\.name) == ["ETH Wallet", "BTC Wallet", "BTC Wallet 2"])
        #expect(view.groups[2].rows.map(\.name) == ["Gold Wallet", "Gold Wallet 2"])
        #expect(!view.groups.flatMap(\.rows).contains { $0.name == "btc 2" })
    }

    /// Default wallets are marked and fiat wallets flagged.
    @Test func defaultAndFiatFlags() throws {
        let view = WalletsView.make(groups: try SampleData.walletGroups(), context: SampleData.context())
        #expect(view.groups[1].rows.map(\.isDefault) == [true, true, false])
        #expect(view.groups[0].rows.allSatisfy { $0.isFiat })
        #expect(!view.groups[1].rows.contains { $0.isFiat })
    }

    /// Balances use the wallet's precision and the asset's symbol.
    @Test func balances() throws {
        let view = WalletsView.make(groups: try SampleData.walletGroups(), context: SampleData.context("de_AT"))
        #expect(view.groups[0].rows[0].balance == DisplayAmount(raw: "502.28000000", text: "502,28\u{A0}$", currency: "USD"))
        #expect(view.groups[1].rows[1].balance.text == "2,2691\u{A0}BTC")
        #expect(view.groups[1].rows[2].balance.text == "0,0015\u{A0}BTC")
        #expect(view.groups[2].rows[0].balance.text == "11,2276\u{A0}XAU")
    }

    /// With no wallets at all the view says so.
    @Test func empty() {
        let view = WalletsView.make(groups: .init(fiat: [], crypto: [], commodity: []), context: SampleData.context())
        #expect(view.groups.allSatisfy { $0.rows.isEmpty })
        #expect(view.notices == ["There are no wallets."])
    }
}
