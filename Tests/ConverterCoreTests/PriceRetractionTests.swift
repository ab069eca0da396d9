import Bus
import Conversion
import Foundation
import Logging
import Market
import Money
import Synchronization
import Testing
import TickwireContract
import BusContract

@Suite("Prices retracted with their quotes")
struct PriceRetractionTests {
    private static let logger = Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() })

    /// ECB rates from USD, CoinGecko's DOT and BTC in USD, Bitso's BTC in MXN.
    private func snapshot() throws -> StreamEvent<FetcherUpdate> {
        .snapshot([
            try rateMessage("ecb", "USD", "SEK", "10"), try rateMessage("ecb", "USD", "MXN", "17"),
            try quoteMessage("coingecko", "DOT", "USD", last: "8.29"), try quoteMessage("coingecko", "BTC", "USD", last: "70000"),
            try quoteMessage("bitso", "BTC", "MXN", last: "1190000"),
        ])
    }

    /// A retracted quote that was its asset's last takes the asset's prices away in every display currency;
    /// a retracted quote another feed also gives (Bitso's BTC) only re-prices the asset from that feed.
    @Test func retractedQuoteRemovesItsPrices() async throws {
        let state = ConverterState(currencies: ["USD", "SEK"], logger: Self.logger)
        let first = await state.applyChanges(try snapshot())
        #expect(Set(first.changed.map { "\($0.asset)/\($0.currency)" }) == ["DOT/USD", "DOT/SEK", "BTC/USD", "BTC/SEK"])
        #expect(first.removed.isEmpty)

        let dot = await state.applyChanges(.removed(try Topic("quote.coingecko.DOT-USD")))
        #expect(dot.removed.map { "\($0.asset)/\($0.currency)" } == ["DOT/SEK", "DOT/USD"])
        #expect(dot.removed.first { $0.currency == "USD" }?.price == (try dec("8.29")))
        #expect(dot.changed.isEmpty)

        let btc = await state.applyChanges(.removed(try Topic("quote.coingecko.BTC-USD")))
        #expect(btc.removed.isEmpty)
        #expect(btc.changed.first { $0.currency == "USD" }?.price == 70_000)
        #expect(btc.changed.first { $0.currency == "USD" }?.path == ["BTC", "MXN", "USD"])

        let unknown = await state.applyChanges(.removed(try Topic("quote.coingecko.XYZ-USD")))
        #expect(unknown.changed.isEmpty && unknown.removed.isEmpty)
        #expect(await state.upstream == "ok")
    }

    /// A snapshot without an asset's quotes (one retracted while the stream was away) takes its prices away too.
    @Test func snapshotWithoutTheQuoteRemovesItsPrices() async throws {
        let state = ConverterState(currencies: ["USD"], logger: Self.logger)
        _ = await state.applyChanges(try snapshot())
        let again = await state.applyChanges(.snapshot([
            try rateMessage("ecb", "USD", "SEK", "10"), try quoteMessage("coingecko", "BTC", "USD", last: "70000"),
        ]))
        #expect(again.removed.map(\.asset) == ["DOT"])
    }

    /// `follow` hands removed prices to `retract`, changed ones to `publish`; a converter that retracts them
    /// publishes `price.<ASSET>.<FIAT>` deletions.
    @Test func followRetracts() async throws {
        let state = ConverterState(currencies: ["USD"], logger: Self.logger)
        let (events, feed) = AsyncStream.makeStream(of: StreamEvent<FetcherUpdate>.self)
        feed.yield(try snapshot())
        feed.yield(.removed(try Topic("quote.coingecko.DOT-USD")))
        feed.finish()
        let published = Mutex<[String]>([]), retracted = Mutex<[String]>([])
        await state.follow(events) { price in
            published.withLock { $0.append("\(price.asset)/\(price.currency)") }
        } retract: { price in
            retracted.withLock { $0.append("\(price.asset)/\(price.currency)") }
        }
        #expect(Set(published.withLock { $0 }) == ["DOT/USD", "BTC/USD"])
        #expect(retracted.withLock { $0 } == ["DOT/USD"])
    }
}
