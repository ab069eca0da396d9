import Bus
import BusContract
import Foundation
import Money
import PortfolioEngine
import Testing
import TickwireContract

/// An activity on day `day` (days after a fixed start), its amounts as text.
func activity(
    _ id: String, _ kind: ActivityKind, _ asset: String, _ amount: String, at price: String = "0", in currency: String = "USD",
    fee: (String, String)? = nil, day: Int
) throws -> Trade {
    let date = now.addingTimeInterval(Double(day - 400) * 86_400)
    return Trade(id: id, kind: kind, asset: asset, amount: try dec(amount), price: try dec(price), currency: currency,
                 fee: try fee.map { CurrencyAmount(amount: try dec($0.0), currency: $0.1) }, date: date, recordedAt: date)
}

/// A price of `asset` in `currency`, keyed as the state keeps it.
func priced(_ asset: String, _ currency: String, _ value: String) throws -> (String, StoredPrice) {
    (Valuations.priceKey(asset: asset, currency: currency),
     StoredPrice(asset: asset, currency: currency, price: try dec(value), changePercent24h: nil, updatedAt: now))
}

@Suite("Gains")
struct GainsTests {
    private func gains(
        _ activities: [Trade], _ method: CostBasisMethod, currency: Currency = .usd, prices: [(String, StoredPrice)] = [],
        converted: [CurrencyAmount: ExactDecimal] = [:]
    ) throws -> PortfolioGains {
        try Gains.compute(activities: activities, method: method, currency: currency, prices: Dictionary(uniqueKeysWithValues: prices),
                          converted: converted, offline: false)
    }

    /// Two buys (the first with a fee) and a sell with a fee: FIFO sells the cheap lot, average cost the pool's
    /// half; their realized and unrealized gains differ, their sum does not.
    @Test func fifoAndAverageDiffer() throws {
        let activities = try [
            activity("b1", .buy, "BTC", "1", at: "100", fee: ("1", "USD"), day: 1),   // lot 1: 101.00
            activity("b2", .buy, "BTC", "1", at: "200", day: 2),                      // lot 2: 200.00
            activity("s1", .sell, "BTC", "1", at: "300", fee: ("2", "USD"), day: 3),  // proceeds 298.00
        ]
        let prices = [try priced("BTC", "USD", "250")]

        let fifo = try #require(try gains(activities, .fifo, prices: prices).assets.first)
        #expect(fifo.quantity == 1 && fifo.activities == 3)
        #expect(fifo.realizedGain?.description == "197.00")     // 298.00 − 101.00
        #expect(fifo.costBasis?.description == "200.00")
        #expect(fifo.value?.description == "250.00")
        #expect(fifo.unrealizedGain?.description == "50.00")
        #expect(fifo.fees?.description == "3.00")

        let average = try gains(activities, .average, prices: prices)
        let btc = try #require(average.assets.first)
        #expect(btc.realizedGain?.description == "147.50")      // 298.00 − 301.00 / 2
        #expect(btc.costBasis?.description == "150.50")
        #expect(btc.unrealizedGain?.description == "99.50")
        #expect(average.method == .average)
        #expect(average.totalGain.description == "247.00")
        #expect(try gains(activities, .fifo, prices: prices).totalGain.description == "247.00")
    }

    /// Sells that take whole lots and parts of lots, oldest first; a part's cost rounds half-even to cents.
    @Test func partialSellsAcrossLots() throws {
        let activities = try [
            activity("b1", .buy, "ETH", "0.5", at: "1000", day: 1),       // 500.00
            activity("b2", .buy, "ETH", "1.5", at: "1200", day: 2),       // 1800.00
            activity("b3", .buy, "ETH", "1", at: "1300.33", day: 3),      // 1300.33
            activity("s1", .sell, "ETH", "1.2", at: "1500", day: 4),      // takes 500.00 + 1800 × 0.7 / 1.5 = 840.00
            activity("s2", .sell, "ETH", "1", at: "1400", day: 5),        // takes 960.00 + 1300.33 × 0.2 = 260.066 → 260.07
        ]
        let result = try gains(activities, .fifo, prices: [try priced("ETH", "USD", "1600")])
        let eth = try #require(result.assets.first)
        #expect(eth.quantity == (try dec("0.8")))
        #expect(eth.realizedGain?.description == "639.93")      // (1800.00 − 1340.00) + (1400.00 − 1220.07)
        #expect(eth.costBasis?.description == "1040.26")        // 1300.33 − 260.07
        #expect(eth.value?.description == "1280.00")
        #expect(eth.unrealizedGain?.description == "239.74")
        #expect(result.totalRealizedGain.description == "639.93")
        #expect(result.totalGain.description == "879.67")       // 3200 + 1280 − 3600.33
    }

    /// Selling a third at a time of a pool whose cost does not divide: each part rounds, the pool keeps the rest,
    /// and the three parts add up to the pool's cost to the cent.
    @Test func roundingLosesNoCent() throws {
        let activities = try [
            activity("b", .buy, "SOL", "3", at: "3.333333", day: 1),      // 9.999999 → 10.00
            activity("s1", .sell, "SOL", "1", at: "4", day: 2),           // takes 10.00 / 3 = 3.33
            activity("s2", .sell, "SOL", "1", at: "4", day: 3),           // takes 6.67 / 2 = 3.335 → 3.34 (half-even)
            activity("s3", .sell, "SOL", "1", at: "4", day: 4),           // takes the last 3.33
        ]
        for method in CostBasisMethod.allCases {
            let sol = try #require(try gains(activities, method).assets.first)
            #expect(sol.quantity.isZero)
            #expect(sol.costBasis?.description == "0.00")
            #expect(sol.realizedGain?.description == "2.00", "\(method)")  // 12.00 − 10.00
            #expect(sol.value?.description == "0.00")
            #expect(sol.priceTime == nil)
        }
    }

    /// A buy priced in EUR with a EUR fee, a fee activity in SEK and a sell in USD, shown in USD at the converter's
    /// amounts; the same activities shown in SEK use the SEK conversions.
    @Test func feesInSeveralCurrencies() throws {
        let activities = try [
            activity("b", .buy, "SOL", "2", at: "50", in: "EUR", fee: ("1", "EUR"), day: 1),
            activity("f", .fee, "SOL", "0", in: "SEK", fee: ("5", "SEK"), day: 2),
            activity("s", .sell, "SOL", "1", at: "80", fee: ("0.5", "USD"), day: 3),
        ]
        #expect(try Gains.conversions(activities, currency: .usd)
                == [CurrencyAmount(amount: 100, currency: "EUR"), CurrencyAmount(amount: 1, currency: "EUR"), CurrencyAmount(amount: 5, currency: "SEK")])
        let usd = try gains(activities, .fifo, prices: [try priced("SOL", "USD", "60")], converted: [
            CurrencyAmount(amount: 100, currency: "EUR"): try dec("117.00"),
            CurrencyAmount(amount: 1, currency: "EUR"): try dec("1.17"),
            CurrencyAmount(amount: 5, currency: "SEK"): try dec("0.47"),
        ])
        let sol = try #require(usd.assets.first)
        #expect(sol.realizedGain?.description == "19.95")       // 79.50 − 118.17 / 2 (59.085 → 59.08) − 0.47
        #expect(sol.costBasis?.description == "59.09")
        #expect(sol.unrealizedGain?.description == "0.91")
        #expect(sol.fees?.description == "2.14")                // 1.17 + 0.47 + 0.50
        #expect(usd.totalFees.description == "2.14")
        #expect(usd.warnings.isEmpty)

        let sek = try gains(activities, .fifo, currency: .sek, prices: [try priced("SOL", "SEK", "640")], converted: [
            CurrencyAmount(amount: 100, currency: "EUR"): try dec("1150.00"),
            CurrencyAmount(amount: 1, currency: "EUR"): try dec("11.50"),
            CurrencyAmount(amount: 80, currency: "USD"): try dec("850.40"),
            CurrencyAmount(amount: try dec("0.5"), currency: "USD"): try dec("5.32"),
        ])
        let solSEK = try #require(sek.assets.first)
        #expect(sek.currency == "SEK")
        #expect(solSEK.realizedGain?.description == "259.33")   // 850.40 − 5.32 − 1161.50 / 2 (580.75) − 5.00
        #expect(solSEK.costBasis?.description == "580.75")
        #expect(solSEK.unrealizedGain?.description == "59.25")  // 640.00 − 580.75
        #expect(solSEK.fees?.description == "21.82")            // 11.50 + 5.00 + 5.32
    }

    /// Transfers move units without realizing: one in without a price is a lot at no cost, one in with a price a lot
    /// at that cost; one out takes lots (oldest first, or at the average) and their cost goes with them.
    @Test func transfersRealizeNothing() throws {
        let activities = try [
            activity("in", .transferIn, "BTC", "1", day: 1),                    // lot at 0
            activity("b", .buy, "BTC", "1", at: "100", day: 2),                 // lot at 100.00
            activity("in2", .transferIn, "BTC", "0.5", at: "40", day: 3),       // lot at 20.00
            activity("out", .transferOut, "BTC", "1", day: 4),
        ]
        let prices = [try priced("BTC", "USD", "150")]
        let fifo = try #require(try gains(activities, .fifo, prices: prices).assets.first)
        #expect(fifo.quantity == (try dec("1.5")))
        #expect(fifo.realizedGain?.description == "0.00")
        #expect(fifo.costBasis?.description == "120.00")          // the free lot went out
        #expect(fifo.unrealizedGain?.description == "105.00")     // 225.00 − 120.00
        let average = try #require(try gains(activities, .average, prices: prices).assets.first)
        #expect(average.realizedGain?.description == "0.00")
        #expect(average.costBasis?.description == "72.00")        // 120.00 − 120.00 × 1 / 2.5
        #expect(average.unrealizedGain?.description == "153.00")
    }

    /// What cannot be known is absent and said: an amount the converter did not convert, the price of a holding;
    /// an asset sold out needs no price.
    @Test func unknownsAreAbsentWithWarnings() throws {
        let activities = try [
            activity("a", .buy, "ADA", "10", at: "1", in: "EUR", day: 1),
            activity("b", .buy, "BTC", "1", at: "100", day: 1),
            activity("d", .buy, "DOGE", "1", at: "1", day: 1),
            activity("d2", .sell, "DOGE", "1", at: "2", day: 2),
        ]
        let result = try gains(activities, .fifo, prices: [try priced("ADA", "USD", "2")])
        let byAsset = Dictionary(uniqueKeysWithValues: result.assets.map { ($0.asset, $0) })
        let ada = try #require(byAsset["ADA"]), btc = try #require(byAsset["BTC"]), doge = try #require(byAsset["DOGE"])
        #expect(ada.value?.description == "20.00" && ada.costBasis == nil && ada.realizedGain == nil && ada.unrealizedGain == nil && ada.fees == nil)
        #expect(btc.costBasis?.description == "100.00" && btc.value == nil && btc.unrealizedGain == nil && btc.realizedGain?.description == "0.00")
        #expect(doge.realizedGain?.description == "1.00" && doge.value?.description == "0.00" && doge.unrealizedGain?.description == "0.00")
        #expect(result.totalRealizedGain.description == "1.00")
        #expect(result.totalCostBasis.description == "100.00")
        #expect(result.totalValue.description == "20.00")
        #expect(result.warnings == [
            "the amounts of ADA in EUR could not be converted to USD: its cost basis, gains and fees are unknown",
            "no USD price for BTC yet: its value and unrealized gain are unknown",
        ])
    }

    /// No activities: zero totals at the currency's minor units.
    @Test func empty() throws {
        let result = try gains([], .fifo, currency: .jpy)
        #expect(result.assets.isEmpty)
        #expect(result.totalGain.description == "0")
        #expect(try gains([], .average).totalFees.description == "0.00")
    }

    /// Random buys, sells, fees and fee activities (seeded): whatever the method, realized + unrealized is what came
    /// in (sells' proceeds and the value held) less what went out (buys' costs and every fee); the units held are the
    /// units bought less sold; FIFO and average agree on the total; selling out leaves no cost.
    @Test(arguments: 1...25)
    func realizedPlusUnrealizedIsWhatCameInLessWhatWentOut(seed: UInt64) throws {
        var random = SplitMix64(seed: seed)
        var activities: [Trade] = []
        var held = ExactDecimal.zero, bought = ExactDecimal.zero, sold = ExactDecimal.zero, fees = ExactDecimal.zero
        func cents(_ amount: ExactDecimal) throws -> ExactDecimal { try amount.rescaled(to: 2) }
        for day in 1...40 {
            let roll = random.next() % 10
            let fee = random.next() % 3 == 0 ? try ExactDecimal(mantissa: Int128(random.next() % 500), scale: 2) : nil
            let price = try ExactDecimal(mantissa: Int128(1 + random.next() % 10_000_000), scale: 3)
            if roll < 5 || held.isZero {
                let amount = try ExactDecimal(mantissa: Int128(1 + random.next() % 5_000_000), scale: 6)
                activities.append(try activity("t\(day)", .buy, "BTC", amount.description, at: price.description,
                                               fee: fee.map { ($0.description, "USD") }, day: day))
                held = try held + amount
                bought = try bought + cents(amount * price)
                fees = try fees + (fee ?? .zero)
            } else if roll < 9 {
                let whole = random.next() % 4 == 0
                let amount = whole ? held : try (held * ExactDecimal(mantissa: Int128(1 + random.next() % 99), scale: 2)).rounded(scale: 6, rule: .towardZero)
                guard !amount.isZero else { continue }
                activities.append(try activity("t\(day)", .sell, "BTC", amount.description, at: price.description,
                                               fee: fee.map { ($0.description, "USD") }, day: day))
                held = try held - amount
                sold = try sold + cents(amount * price)
                fees = try fees + (fee ?? .zero)
            } else {
                let amount = try ExactDecimal(mantissa: Int128(1 + random.next() % 1000), scale: 2)
                activities.append(try activity("t\(day)", .fee, "BTC", "0", fee: (amount.description, "USD"), day: day))
                fees = try fees + amount
            }
        }
        let prices = [try priced("BTC", "USD", "43210.987")]
        let value = try cents(held * dec("43210.987"))
        var totals: [ExactDecimal] = []
        for method in CostBasisMethod.allCases {
            let result = try gains(activities, method, prices: prices)
            let btc = try #require(result.assets.first)
            #expect(btc.quantity == held)
            #expect(btc.value == value)
            #expect(btc.fees == fees)
            let realized = try #require(btc.realizedGain), unrealized = try #require(btc.unrealizedGain), cost = try #require(btc.costBasis)
            #expect(try realized + unrealized == (try sold + value - bought - fees), "seed \(seed) \(method)")
            #expect(!cost.isNegative)
            if held.isZero { #expect(cost.isZero) }
            totals.append(result.totalGain)
        }
        #expect(totals[0] == totals[1])
    }
}

@Suite("Activity ledger")
struct ActivityLedgerTests {
    /// A sell before any buy is refused, naming asset, date, held and asked amounts.
    @Test func sellBeforeAnyBuy() throws {
        let sell = try activity("s", .sell, "BTC", "0.5", at: "100", day: 1)
        let buy = try activity("b", .buy, "BTC", "1", at: "100", day: 2)
        let error = #expect(throws: RPCError.self) { try ActivityLedger.check([buy, sell], changed: "s") }
        #expect(error?.code == RPCError.Code.invalidParams)
        #expect(error?.message == "invalid params: cannot sell 0.5 BTC on \(Wire.format(sell.date)): 0 BTC held then")
        #expect(error?.data == ["asset": "BTC", "portfolio": "main", "date": Wire.format(sell.date), "held": "0", "asked": "0.5", "trade": "s"])
    }

    /// Units held at a later date do not cover an earlier transfer out; another asset's units never do.
    @Test func heldAtItsDate() throws {
        let activities = try [
            activity("b", .buy, "BTC", "1", at: "100", day: 1),
            activity("e", .buy, "ETH", "5", at: "100", day: 1),
            activity("o", .transferOut, "BTC", "1.5", day: 2),
            activity("b2", .buy, "BTC", "1", at: "100", day: 3),
        ]
        let error = #expect(throws: RPCError.self) { try ActivityLedger.check(activities, changed: "o") }
        #expect(error?.message.contains("cannot transfer out 1.5 BTC on") == true)
        #expect(error?.message.hasSuffix(": 1 BTC held then") == true)
        #expect(try ActivityLedger.firstOverdraft(in: activities)?.trade.id == "o")
        #expect(try ActivityLedger.firstOverdraft(in: Array(activities.prefix(2))) == nil)
    }

    /// A change of another activity that leaves a later sell uncovered names that sell.
    @Test func laterSellUncovered() throws {
        let activities = try [activity("s", .sell, "BTC", "1", at: "100", day: 5), activity("b", .buy, "BTC", "0.25", at: "100", day: 1)]
        let error = #expect(throws: RPCError.self) { try ActivityLedger.check(activities, changed: "b") }
        #expect(error?.message.contains("would leave the sell of 1 BTC on") == true)
        #expect(error?.message.contains("(trade s) taking more than the 0.25 BTC held then") == true)
    }
}

/// A small seeded generator (SplitMix64), so a failing property run can be repeated.
struct SplitMix64: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
