import AsyncHTTPClient
import Feeds
import Foundation
import Market
import Money
import Testing

@Suite struct MasterdataClientTests {
    /// The test client reads every asset of the file with its real fields.
    @Test func assets() async throws {
        let masterdata = try await MasterdataClient.test.load()
        #expect(masterdata.assets.filter { $0.kind == .cryptocoin }.count == 30)
        #expect(masterdata.assets.filter { $0.kind == .commodity }.count == 4)
        #expect(masterdata.assets.filter { $0.kind == .fiat }.count == 7)

        let btc = try #require(masterdata.assets.first { $0.kind == .cryptocoin && $0.symbol == "BTC" })
        #expect(btc.id == "1")
        #expect(btc.name == "Bitcoin")
        #expect(btc.averagePrice == (try dec("8936.50")))
        #expect(btc.pricePrecision == 2)
        #expect(btc.amountPrecision == 4)
        #expect(btc.changePercent24h == (try dec("-3.0714208301723")))
        #expect(btc.change24h == (try dec("-283.18")))
        #expect(btc.iconLight == "https://bitpanda-assets.s3-eu-west-1.amazonaws.com/static/cryptocoin/btc.svg")
        #expect(btc.iconDark == "https://bitpanda-assets.s3-eu-west-1.amazonaws.com/static/cryptocoin/btc_dark.svg")
        #expect(btc.color == "#F7931A")

        let xrp = try #require(masterdata.assets.first { $0.symbol == "XRP" })
        #expect(xrp.pricePrecision == 4)
        #expect(xrp.averagePrice == (try dec("0.2460")))

        let gold = try #require(masterdata.assets.first { $0.kind == .commodity && $0.symbol == "XAU" })
        #expect(gold.id == "28")
        #expect(gold.measurementUnit == "g")
        #expect(gold.averagePrice == (try dec("46.20")))

        let euro = try #require(masterdata.assets.first { $0.kind == .fiat && $0.symbol == "EUR" })
        #expect(euro.id == "1")
        #expect(euro.amountPrecision == 2)
        #expect(euro.averagePrice == nil)
        #expect(euro.symbolCharacter == "€")
        #expect(euro.hasWallets == true)
        #expect(euro.toEURRate == (try dec("1.00000000")))
        let aud = try #require(masterdata.assets.first { $0.kind == .fiat && $0.symbol == "AUD" })
        #expect(aud.symbolCharacter == nil)
        #expect(aud.hasWallets == false)
    }

    /// Wallets link to their asset by kind and id: commodity wallets through `cryptocoin_id`, fiat ones through `fiat_id`.
    @Test func walletsLinkToAssets() async throws {
        let masterdata = try await MasterdataClient.test.load()
        #expect(masterdata.wallets.filter { $0.kind == .cryptocoin }.count == 37)
        #expect(masterdata.wallets.filter { $0.kind == .commodity }.count == 11)
        #expect(masterdata.wallets.filter { $0.kind == .fiat }.count == 4)
        #expect(masterdata.wallets.filter(\.deleted).count == 9)
        #expect(masterdata.wallets.allSatisfy { masterdata.asset(for: $0)?.symbol == $0.assetSymbol })

        let gold = try #require(masterdata.wallets.first { $0.name == "Gold Wallet" })
        #expect(gold.kind == .commodity)
        #expect(gold.balance == (try dec("11.22758598")))
        #expect(gold.isDefault)
        #expect(masterdata.asset(for: gold)?.kind == .commodity)

        let euro = try #require(masterdata.wallets.first { $0.name == "EUR Wallet" })
        #expect(euro.kind == .fiat)
        #expect(euro.assetId == "1")
        #expect(euro.balance == (try dec("74.63000000")))
        #expect(!euro.isDefault && !euro.deleted)
        #expect(masterdata.asset(for: euro)?.name == "Euro")

        let btc = try #require(masterdata.wallets.first { $0.id == "d07f4647-69af-4e78-af57-9053ce3d1994" })
        #expect(btc.assetId == "1")
        #expect(masterdata.asset(for: btc)?.name == "Bitcoin")
        #expect(btc.pendingTransactions == 30)
    }

    /// The file client reads a path on disk; a missing file is a clear error.
    @Test func fileClient() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("masterdata-\(UUID().uuidString).json").path
        try FeedFixture.masterdata.data().write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        #expect(try await MasterdataClient.file(path: path).load() == MasterdataClient.test.load())

        let missing = await feedError { try await MasterdataClient.file(path: path + ".missing").load() }
        guard case let .transport(url, _) = missing else {
            Issue.record("expected .transport, got \(String(describing: missing))")
            return
        }
        #expect(url == "file://\(path).missing")
    }

    /// The live client fetches the file over HTTP and decodes what the test client does.
    @Test func liveClient() async throws {
        let expected = try await MasterdataClient.test.load()
        try await FakeAPI.serve(["/masterdata.json": .fixture(.masterdata)]) { url in
            let live = MasterdataClient.live(http: .shared, url: url.appendingPathComponent("masterdata.json"))
            let masterdata = try await live.load()
            #expect(masterdata == expected)
        }
    }
}
