import PortfolioEngine
import Feeds
import Foundation
import Market
import TickwireContract
import Money
import PortfolioCore
import Testing

@Suite("Wallet groups and products")
struct WalletAndProductTests {
    /// Wallets of the real masterdata fall into fiat, crypto and commodity; deleted ones are gone.
    @Test func groupsByKindWithoutDeleted() async throws {
        let masterdata = try await MasterdataClient.test.load()
        let groups = Valuations.walletGroups(masterdata)
        #expect(groups.fiat.count == 4)
        #expect(groups.crypto.count == 34)      // 37 less 3 deleted
        #expect(groups.commodity.count == 5)    // 11 less 6 deleted
        let all = groups.fiat + groups.crypto + groups.commodity
        let deleted = Set(masterdata.wallets.filter(\.deleted).map(\.id))
        #expect(deleted.count == 9)
        #expect(deleted.contains("e508005b-f715-4198-b09e-136c9533b6b7"))  // "BTC Wallet to be deleted"
        #expect(all.allSatisfy { !deleted.contains($0.id) })
        #expect(!all.contains { $0.name == "BTC Wallet to be deleted" || $0.name == "Silver Wallet 2" })
        #expect(Set(all.map(\.id)).count == all.count)
    }

    /// Each group is sorted by balance, largest first, with equal balances by name.
    @Test func eachGroupSortedByBalanceDescending() async throws {
        let groups = Valuations.walletGroups(try await MasterdataClient.test.load())
        #expect(groups.fiat.map(\.name) == ["USD Wallet", "GBP Wallet", "EUR Wallet", "CHF Wallet"])
        #expect(groups.fiat.map(\.balance) == [try dec("502.28"), try dec("107.82"), try dec("74.63"), try dec("5.25")])
        #expect(groups.commodity.map(\.name) == ["Silver Wallet 1", "Palladium Wallet", "Platinum Wallet 124", "Gold Wallet", "Gold Wallet 2"])
        #expect(groups.crypto.prefix(4).map(\.name) == ["BEST Wallet", "CHZ Wallet", "XEM Wallet", "PAN Wallet"])
        for group in [groups.fiat, groups.crypto, groups.commodity] {
            for (a, b) in zip(group, group.dropFirst()) {
                #expect(a.balance > b.balance || (a.balance == b.balance && a.name < b.name), "\(a.name) before \(b.name)")
            }
        }
        // The zero-balance crypto wallets close the list in name order.
        #expect(groups.crypto.suffix(3).map(\.name) == ["ZEC Wallet", "ZRX Wallet", "wallet 123456789"])
    }

    /// Default wallets are flagged: BTC Wallet is, BTC Wallet 2 is not; fiat wallets never are.
    @Test func defaultIsFlagged() async throws {
        let groups = Valuations.walletGroups(try await MasterdataClient.test.load())
        let btc = try #require(groups.crypto.first { $0.name == "BTC Wallet" })
        let btc2 = try #require(groups.crypto.first { $0.name == "BTC Wallet 2" })
        #expect(btc.isDefault)
        #expect(!btc2.isDefault)
        #expect(groups.commodity.first { $0.name == "Gold Wallet" }?.isDefault == true)
        #expect(groups.commodity.first { $0.name == "Gold Wallet 2" }?.isDefault == false)
        #expect(groups.fiat.allSatisfy { !$0.isDefault })
        #expect(btc.symbol == "BTC")
        #expect(btc.assetName == "Bitcoin")
        #expect(btc.balance == (try dec("2.26908585")))
    }

    /// Fiat entries take the fiat's own symbol, name, icons and precision, not the cryptocoin sharing its id.
    @Test func fiatEntriesUseTheFiatsSymbol() async throws {
        let groups = Valuations.walletGroups(try await MasterdataClient.test.load())
        let euro = try #require(groups.fiat.first { $0.name == "EUR Wallet" })
        #expect(euro.symbol == "EUR")          // fiat id "1"; cryptocoin id "1" is BTC
        #expect(euro.assetName == "Euro")
        #expect(euro.precision == 2)
        #expect(euro.iconLight == "https://bitpanda-assets.s3-eu-west-1.amazonaws.com/static/fiat/eur.svg")
        #expect(euro.iconDark == "https://bitpanda-assets.s3-eu-west-1.amazonaws.com/static/fiat/eur_dark.svg")
        #expect(groups.fiat.map(\.symbol) == ["USD", "GBP", "EUR", "CHF"])
        let gold = try #require(groups.commodity.first { $0.name == "Gold Wallet" })
        #expect(gold.symbol == "XAU")
    }

    /// A wallet whose asset is missing falls back to its own symbol and the ISO (or crypto) precision.
    @Test func walletWithoutAssetFallsBack() throws {
        let wallets = [
            Wallet(id: "w1", kind: .fiat, name: "JPY Wallet", assetId: "99", assetSymbol: "JPY", balance: 5, isDefault: false, deleted: false, pendingTransactions: 0),
            Wallet(id: "w2", kind: .cryptocoin, name: "New coin", assetId: "99", assetSymbol: "NEW", balance: 1, isDefault: true, deleted: false, pendingTransactions: 0),
        ]
        let groups = Valuations.walletGroups(Masterdata(assets: [], wallets: wallets))
        #expect(groups.fiat.first?.symbol == "JPY")
        #expect(groups.fiat.first?.precision == 0)
        #expect(groups.crypto.first?.assetName == "NEW")
        #expect(groups.crypto.first?.precision == 8)
        #expect(groups.commodity.isEmpty)
    }

    /// The sample's products, sorted by SKU: T2006 has two sales, the others one.
    @Test func productsCountSalesPerSKU() async throws {
        let products = Valuations.products(try await GNBClient.test.transactions())
        #expect(products == [
            ProductSummary(sku: "B2009", transactions: 1),
            ProductSummary(sku: "M2007", transactions: 1),
            ProductSummary(sku: "R2008", transactions: 1),
            ProductSummary(sku: "T2006", transactions: 2),
        ])
        #expect(Valuations.products([]).isEmpty)
    }

    /// The large recording's 5,061 sales fall into 16 products whose counts add up.
    @Test func productsOfTheLargeRecording() async throws {
        let transactions = try await GNBClient.mock(seed: 1).transactions()
        let products = Valuations.products(transactions)
        #expect(products.count == 16)
        #expect(products.map(\.transactions).reduce(0, +) == 5061)
        #expect(products.map(\.sku) == products.map(\.sku).sorted())
        let a6102 = transactions.filter { $0.sku == "A6102" }.count
        #expect(a6102 == 295)
        #expect(products.first { $0.sku == "A6102" }?.transactions == 295)
    }
}
