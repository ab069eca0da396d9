import BusContract
import Conversion
import Foundation
import Logging
import Market
import Money
import Testing
import TickwireContract

/// Event-driven repricing against the full recomputation: seeded random sequences of quotes, rates that
/// change paths, unusable rates and quotes, feeds going stale, gone and live, retractions, and snapshots; after
/// every event each price handed out is exactly (to the digit, and its source) what `Pricing.prices(in:book:)`
/// gives for the same book, every price that changed was handed out, and every price taken away is gone from it.
@Suite("Event-driven repricing")
struct LivePricesPropertyTests {
    private static let currencies = ["USD", "SEK", "EUR", "MXN"]

    /// 300 random events per seed; each price handed out, and each one held, equals the full recomputation's.
    @Test(arguments: 0..<24)
    func everyHandedOutPriceIsTheFullRecomputation(seed: UInt64) async throws {
        var random = SeededGenerator(seed: seed, stream: "live-prices")
        let state = ConverterState(currencies: Self.currencies, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        var book = RateBook()
        var published: [String: AssetPrice] = [:]
        for step in 0..<300 {
            let event = try Self.event(&random)
            let changes = await state.applyChanges(event)
            switch event {
            case .snapshot(let updates): _ = book.reset(with: updates)
            case .update(let update): _ = try? book.apply(update)
            case .removed(let topic): book.remove(topic)
            case .unavailable: break
            }
            let full = Dictionary(Pricing.prices(in: Self.currencies, book: &book).map { (Self.key($0), $0) }) { first, _ in first }
            for price in changes.removed {
                let key = Self.key(price)
                #expect(full[key] == nil, "seed \(seed) step \(step): \(key) taken away but still priced")
                #expect(published.removeValue(forKey: key) == price, "seed \(seed) step \(step): \(key) taken away not as handed out")
            }
            for price in changes.changed {
                let key = Self.key(price)
                #expect(full[key] == price, "seed \(seed) step \(step): handed out \(key) not as recomputed")
                #expect(full[key]?.price.description == price.price.description, "seed \(seed) step \(step): \(key)'s digits")
                #expect(published[key] != price, "seed \(seed) step \(step): \(key) handed out unchanged")
                published[key] = price
            }
            for (key, price) in full {
                #expect(published[key] == price, "seed \(seed) step \(step): \(key) changed but was not handed out")
            }
        }
    }

    /// Before any rate has arrived (a converter just restarted), requests are answered -32000 "no rates yet",
    /// which says to retry, rather than "unknown currency"; the first rates make them answer.
    @Test func noRatesYetIsUnavailableNotAnUnknownCurrency() async throws {
        let state = ConverterState(currencies: Self.currencies, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        do {
            _ = try await state.convert(ConvertRequest(amount: 1, from: "EUR", to: "USD"))
            Issue.record("a converter without rates converted")
        } catch let error as RPCError {
            #expect(error.code == RPCError.Code.unavailable)
            #expect(error.message.contains("no rates yet") && error.message.contains("waiting for rates-fetcher's snapshot"), "\(error.message)")
        }
        await #expect(throws: RPCError.self) { try await state.total(TotalRequest(items: [], to: "USD")) }
        await state.apply(.snapshot([try rateMessage("ecb", "EUR", "USD", "1.08")]))
        #expect(try await state.convert(ConvertRequest(amount: 1, from: "EUR", to: "USD")).amount == ExactDecimal("1.08"))
        await state.apply(.unavailable(reason: "rates-fetcher is silent"))
        #expect(try await state.convert(ConvertRequest(amount: 1, from: "EUR", to: "USD")).amount == ExactDecimal("1.08"), "rates kept when the fetcher goes away")
    }

    /// A BTC quote re-prices BTC in every display currency at once, and nothing else.
    @Test func aQuoteRepricesItsAssetOnly() async throws {
        let state = ConverterState(currencies: Self.currencies, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        await state.apply(.snapshot([
            try rateMessage("ecb", "EUR", "USD", "1.08"), try rateMessage("ecb", "EUR", "SEK", "11.5"),
            try rateMessage("ecb", "EUR", "MXN", "20.1"),
            try quoteMessage("coingecko", "BTC", "USD", last: "70000"), try quoteMessage("coingecko", "ETH", "USD", last: "3500"),
        ]))
        let changed = await state.apply(.update(try quoteMessage("coingecko", "BTC", "USD", last: "70001")))
        #expect(Set(changed.map(\.asset)) == ["BTC"])
        #expect(Set(changed.map(\.currency)) == Set(Self.currencies))
        let rate = await state.apply(.update(try rateMessage("ecb", "EUR", "SEK", "11.6")))
        #expect(Set(rate.map(\.currency)) == ["SEK"])
        #expect(Set(rate.map(\.asset)) == ["BTC", "ETH"])
    }

    private static func key(_ price: AssetPrice) -> String { "\(price.asset).\(price.currency)" }

    // MARK: Random events

    private static let fiats = ["USD", "EUR", "SEK", "MXN", "GBP", "JPY", "CHF"]
    private static let assets = ["BTC", "ETH", "XRP", "DOGE", "USDT", "T"]
    private static let feeds = ["coingecko", "bitso", "wazirx", "zeta", "kraken"]
    private static let rateSources = ["ecb", "ecb", "ecb", "fixer", "gnb"]

    private static func event(_ random: inout SeededGenerator) throws -> StreamEvent<FetcherUpdate> {
        switch random.int(in: 0...99) {
        case 0...2:
            return .snapshot(try (0..<random.int(in: 0...25)).map { _ in try update(&random) })
        case 3:
            return .unavailable(reason: "silent")
        case 4...5:
            let feed = pick(feeds, &random)
            let market = "\(pick(assets + ["USD"], &random))-\(pick(fiats + ["BTC", "ETH", "USDT"], &random))"
            return .removed(try Topic(random.int(in: 0...4) == 0 ? "status.\(feed)" : "quote.\(feed).\(market)"))
        default:
            return .update(try update(&random))
        }
    }

    private static func update(_ random: inout SeededGenerator) throws -> StreamUpdate<FetcherUpdate> {
        if random.int(in: 0...9) == 0 {
            return try statusMessage(pick(feeds, &random), pick(FeedStatus.State.allCases, &random))
        }
        if random.int(in: 0...2) == 0 {
            let from = pick(fiats, &random)
            var to = pick(fiats, &random)
            if random.int(in: 0...19) == 0 { to = from }
            let rate = random.int(in: 0...24) == 0 ? pick(["0", "-1.5", "1"], &random) : decimal(&random)
            return try rateMessage(pick(rateSources, &random), from, to, rate)
        }
        let base = random.int(in: 0...9) == 0 ? "USD" : pick(assets, &random)
        let quote = random.int(in: 0...3) == 0 ? pick(["BTC", "ETH", "USDT"], &random) : pick(fiats, &random)
        let last = random.int(in: 0...19) == 0 ? "0" : decimal(&random)
        let change = random.int(in: 0...3) == 0 ? nil : "\(random.int(in: -900...900)).\(random.int(in: 0...99))"
        let time = random.int(in: 0...3) == 0 ? nil : Date(timeIntervalSince1970: Double(1_765_000_000 + random.int(in: 0...1_000)))
        return try quoteMessage(pick(feeds, &random), base, quote, last: last, changePercent24h: change, time: time)
    }

    /// A positive decimal: mostly a few significant digits, sometimes long enough that a fraction along a
    /// path, or a price, does not fit in 38 digits.
    private static func decimal(_ random: inout SeededGenerator) -> String {
        let long = random.int(in: 0...14) == 0
        let digits = String((0..<random.int(in: 1...(long ? 36 : 7))).map { _ in Character(String(random.int(in: 0...9))) })
        let significant = "\(random.int(in: 1...9))" + digits
        let scale = random.int(in: 0...(long ? 38 - significant.count + random.int(in: 0...1) : 10))
        let clamped = min(max(scale, 0), 38)
        if clamped == 0 { return significant }
        if clamped >= significant.count { return "0." + String(repeating: "0", count: clamped - significant.count) + significant }
        return String(significant.dropLast(clamped)) + "." + String(significant.suffix(clamped))
    }

    private static func pick<T>(_ values: [T], _ random: inout SeededGenerator) -> T {
        values[random.int(in: 0...(values.count - 1))]
    }
}
