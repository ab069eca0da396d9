import BusContract
import Conversion
import Foundation
import Logging
import Market
import Money
import Testing
import TickwireContract

/// A plugin with thousands of markets joining and then going (the hub retracts each of its topics) is taken in
/// without the converter re-pricing everything per market.
@Suite("Many markets from one plugin")
struct ManyMarketsTests {
    private static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// `count` assets of one plugin join, each priced in every display currency at once; retracted, each one's
    /// prices are taken away, and CoinGecko's BTC stays. No time is asserted (it must finish; the times are printed): each
    /// join grows the graph by a leaf and prices the new asset only, each retraction drops its asset's prices only and the
    /// graph is rebuilt once, when next used.
    static func joinAndRetract(_ count: Int) async throws -> Duration {
        let state = ConverterState(currencies: ["USD", "SEK", "EUR", "MXN"], logger: logger)
        _ = await state.apply(.snapshot([
            try rateMessage("ecb", "EUR", "USD", "1.25"), try rateMessage("ecb", "EUR", "SEK", "11.5"), try rateMessage("ecb", "EUR", "MXN", "20"),
            try quoteMessage("coingecko", "BTC", "USD", last: "70000"),
        ]))
        let assets = (0..<count).map { "P\(String(format: "%05d", $0))" }
        let clock = ContinuousClock()
        let start = clock.now
        _ = await state.apply(.update(try statusMessage("many", .live)))
        var priced = 0
        for (index, asset) in assets.enumerated() {
            priced += await state.apply(.update(try quoteMessage("many", asset, "USD", last: "\(index + 1)"))).count
        }
        #expect(priced == count * 4, "each new asset priced in the four currencies")
        print("\(count) markets joined in \(clock.now - start)")
        var removed = 0, changed = 0
        for asset in assets {
            let changes = await state.applyChanges(.removed(try Topic("quote.many.\(asset)-USD")))
            removed += changes.removed.count
            changed += changes.changed.count
        }
        _ = await state.apply(.update(try statusMessage("many", .gone, seq: 2)))
        let elapsed = clock.now - start
        #expect(removed == count * 4, "each asset's prices taken away")
        #expect(changed == 0, "no other price moved")
        let btc = try await state.convert(ConvertRequest(amount: 1, from: "BTC", to: "SEK"))
        #expect(btc.amount == 644_000)
        await #expect(throws: (any Error).self) { try await state.convert(ConvertRequest(amount: 1, from: assets[0], to: "USD")) }
        return elapsed
    }

    /// A graph grown by leaves (codes sorting first, between and last) derives exactly what a graph built from all its
    /// rates does, every pair's path and rate; a code it has, or a neighbour it does not, is refused.
    @Test func aLeafAddedIsTheGraphBuiltAnew() throws {
        let base = [
            ExchangeRate(from: "EUR", to: "USD", rate: try dec("1.25")), ExchangeRate(from: "EUR", to: "SEK", rate: try dec("11.5")),
            ExchangeRate(from: "BTC", to: "USD", rate: 70000), ExchangeRate(from: "ETH", to: "BTC", rate: try dec("0.05")),
        ]
        let leaves = [("AAA", "USD", "2"), ("MMM", "EUR", "0.5"), ("ZZZ", "SEK", "30"), ("CCC", "USD", "0.001")]
        var grown = try RateGraph(base)
        for (leaf, to, rate) in leaves {
            let added = grown.addLeaf(leaf, to: to, rate: try dec(rate))
            #expect(added, "\(leaf)")
        }
        let anew = try RateGraph(base + leaves.map { ExchangeRate(from: $0.0, to: $0.1, rate: try dec($0.2)) })
        #expect(grown.currencies == anew.currencies)
        for from in anew.currencies {
            let grownRates = try grown.rates(from: from), anewRates = try anew.rates(from: from)
            #expect(grownRates.map(\.path) == anewRates.map(\.path), "from \(from)")
            #expect(try grownRates.map { try $0.convert(1, scale: 12).description } == anewRates.map { try $0.convert(1, scale: 12).description })
        }
        let refused = [grown.addLeaf("AAA", to: "EUR", rate: 1), grown.addLeaf("NEW", to: "XYZ", rate: 1), grown.addLeaf("NEW", to: "USD", rate: 0)]
        #expect(refused == [false, false, false], "a code it has, a neighbour it does not have, a rate it refuses")
        #expect(grown.currencies == anew.currencies)
    }

    @Test(.timeLimit(.minutes(3))) func fiveThousandMarketsJoinAndGo() async throws {
        let elapsed = try await Self.joinAndRetract(Int(ProcessInfo.processInfo.environment["MANY"] ?? "5000")!)
        print("5,000 markets joined and retracted in \(elapsed)")
    }
}
