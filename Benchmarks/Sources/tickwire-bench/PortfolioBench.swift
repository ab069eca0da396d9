import BusContract
import Foundation
import Logging
import Market
import Money
import PortfolioCore
import PortfolioEngine
import TickwireContract

/// Benchmarks 8 and 9 (issue 34): the engine's gains over 100,000 activities of 20 assets against a plain-Python
/// `decimal` FIFO on the same file (bench/portfolio_gains.py), and the import of that file as a Ghostfolio CSV
/// into the portfolio's stores, dry run and commit.
enum PortfolioBench {
    /// The 20 assets, each priced in USD.
    static let assets = [
        "BTC", "ETH", "SOL", "ADA", "XRP", "DOT", "LTC", "LINK", "AVAX", "ATOM",
        "XLM", "ALGO", "NEAR", "FIL", "AAVE", "UNI", "DOGE", "ETC", "XTZ", "EOS",
    ]
    /// The seed of the activities (splitmix64).
    static let seed: UInt64 = 20_261_126

    /// The generated activities: a Ghostfolio CSV and each asset's latest USD price, both as text.
    struct Files {
        var csv: String
        var prices: [String: String]
    }

    /// `count` activities of the 20 assets in time order, deterministic (splitmix64, ``seed``), written as a
    /// Ghostfolio CSV (`Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,Note`, dates in three of its formats).
    ///
    /// Per activity r1 picks the asset (r1 % 20) and the kind ((r1 >> 8) % 100: buy below 50, sell below 80, fee
    /// below 88, transfer in below 94, transfer out else; a sell or transfer out of an asset not held is a buy).
    /// Quantities have 0 to 8 decimals (a sell or transfer out: k/16 of what is held cut to its scale, all of it one
    /// time in 8 or when the cut leaves nothing), prices 2 to 6 around the asset's magnitude (1 to 10,000 USD), fees
    /// 0 to 4 decimals on two buys or sells of three. Never more is taken than is held, so every line imports.
    static func generate(count: Int) -> Files {
        var random = SplitMix64(state: seed)
        var held = [Int128](repeating: 0, count: assets.count)  // at scale 8
        var lines = ["Date,Code,DataSource,Currency,Price,Quantity,Action,Fee,Note"]
        lines.reserveCapacity(count + 1)
        func decimal(_ mantissa: Int128, _ scale: Int) -> String { try! ExactDecimal(mantissa: mantissa, scale: scale).description }
        func pow10(_ n: Int) -> Int128 { (0..<n).reduce(Int128(1)) { value, _ in value * 10 } }
        func price(_ asset: Int, _ r: UInt64) -> String {
            let scale = 2 + Int(r % 5)
            let unit = pow10(asset % 5) * pow10(scale)
            return decimal(unit / 2 + Int128((r >> 8) % UInt64(unit)), scale)
        }
        let start = 18_263  // 2020-01-02, in days since 1970-01-01
        for index in 0..<count {
            let r1 = random.next(), r2 = random.next(), r3 = random.next()
            let asset = Int(r1 % UInt64(assets.count))
            var pick = Int((r1 >> 8) % 100)
            if pick >= 94 || (50..<80).contains(pick), held[asset] == 0 { pick = 0 }
            let (year, month, day) = CalendarDay(daysSince1970: start + index * 1_800 / count).components
            let date = switch (r1 >> 20) % 3 {
            case 0: String(format: "%02d-%02d-%04d", day, month, year)
            case 1: String(format: "%02d/%02d/%04d", day, month, year)
            default: String(format: "%04d-%02d-%02d", year, month, day)
            }
            let feeScale = Int((r3 >> 4) % 5)
            let fee = r3 % 3 == 0 ? "0" : decimal(Int128((r3 >> 8) % UInt64(20 * pow10(feeScale))), feeScale)
            let action: String, quantity: String, unitPrice: String, lineFee: String
            switch pick {
            case 0..<50, 88..<94:
                let scale = Int(r2 % 9)
                let mantissa = 1 + Int128((r2 >> 8) % UInt64(pow10(scale + 3)))
                held[asset] += mantissa * pow10(8 - scale)
                (quantity, action) = (decimal(mantissa, scale), pick < 50 ? "buy" : "transfer_in")
                unitPrice = pick >= 88 && r3 % 4 == 0 ? "0" : price(asset, r3 >> 10)
                lineFee = pick < 50 ? fee : "0"
            case 50..<80, 94..<100:
                let scale = Int(r2 % 9)
                var taken = held[asset] * Int128(1 + (r2 >> 8) % 15) / 16
                taken -= taken % pow10(8 - scale)
                if taken == 0 || (r2 >> 16) % 8 == 0 {
                    taken = held[asset]
                    quantity = decimal(taken, 8)
                } else {
                    quantity = decimal(taken / pow10(8 - scale), scale)
                }
                held[asset] -= taken
                (action, unitPrice, lineFee) = pick < 80 ? ("sell", price(asset, r3 >> 10), fee) : ("transfer_out", "0", "0")
            default:
                (action, quantity, unitPrice) = ("fee", "0", "0")
                lineFee = decimal(1 + Int128((r3 >> 8) % UInt64(50 * pow10(feeScale))), feeScale)
            }
            lines.append("\(date),\(assets[asset]),MANUAL,USD,\(unitPrice),\(quantity),\(action),\(lineFee),")
        }
        var prices: [String: String] = [:]
        for (index, asset) in assets.enumerated() { prices[asset] = price(index, random.next()) }
        return Files(csv: lines.joined(separator: "\n") + "\n", prices: prices)
    }

    // MARK: 8. Gains

    /// The activities of `csv` as the engine holds them: read by the import's own reader, each line a trade with its
    /// line number as id (so the engine's order, date then id, is the file's).
    static func trades(_ csv: String) throws -> [Trade] {
        let recorded = Date(timeIntervalSince1970: 1_764_115_200)
        let file = ActivityImport.read(csv, format: .csv, knownAssets: Set(assets), now: Date())
        guard file.errors.isEmpty else { throw BenchError("the generated CSV has errors: \(file.errors.prefix(3))") }
        return try file.lines.map { line in
            guard let request = line.request else { throw BenchError("line \(line.line) of the generated CSV: \(line.errors)") }
            return Trade(id: String(format: "line-%09d", line.line), kind: request.kind, asset: request.asset, amount: request.amount,
                         price: request.price, currency: request.currency, fee: request.fee, date: request.date, recordedAt: recorded)
        }
    }

    /// Each asset's price as the engine looks it up.
    static func storedPrices(_ prices: [String: String]) throws -> [String: StoredPrice] {
        var stored: [String: StoredPrice] = [:]
        for (asset, price) in prices {
            stored[Valuations.priceKey(asset: asset, currency: "USD")] = StoredPrice(
                asset: asset, currency: "USD", price: try ExactDecimal(price), changePercent24h: nil, updatedAt: Date())
        }
        return stored
    }

    /// The engine's gains in USD by `method`, and how long `Gains.compute` took.
    static func gains(_ trades: [Trade], prices: [String: StoredPrice], method: CostBasisMethod) throws -> (PortfolioGains, Duration) {
        let clock = ContinuousClock()
        let start = clock.now
        let gains = try Gains.compute(activities: trades, method: method, currency: .usd, prices: prices, converted: [:], offline: false)
        return (gains, clock.now - start)
    }

    /// The figures both sides print, as text: per asset and in total.
    static func digits(_ gains: PortfolioGains) -> [String: [String: String]] {
        var figures: [String: [String: String]] = [:]
        for asset in gains.assets {
            figures[asset.asset] = [
                "quantity": asset.quantity.description, "costBasis": asset.costBasis?.description ?? "-",
                "value": asset.value?.description ?? "-", "realizedGain": asset.realizedGain?.description ?? "-",
                "unrealizedGain": asset.unrealizedGain?.description ?? "-", "fees": asset.fees?.description ?? "-",
            ]
        }
        figures["total"] = [
            "costBasis": gains.totalCostBasis.description, "value": gains.totalValue.description,
            "realizedGain": gains.totalRealizedGain.description, "unrealizedGain": gains.totalUnrealizedGain.description,
            "gain": gains.totalGain.description, "fees": gains.totalFees.description,
        ]
        return figures
    }

    // MARK: 9. Import

    /// A portfolio state over `store` that knows the 20 assets (from a snapshot of their USD prices), as the service has them.
    static func state(_ store: PortfolioStore, prices: [String: String]) async throws -> PortfolioState {
        var logger = Logger(label: "bench.portfolio")
        logger.logLevel = .warning
        let state = PortfolioState(
            store: store, total: { _ in throw BenchError("no conversions: every amount is in USD") }, publish: { _ in }, logger: logger,
            now: { Date() })
        let updates = try prices.sorted { $0.key < $1.key }.enumerated().map { index, entry in
            StreamUpdate(topic: try Topic("price.\(entry.key).USD"), seq: UInt64(index + 1), time: Date(), source: "converter",
                         value: AssetPrice(asset: entry.key, currency: "USD", price: try ExactDecimal(entry.value), changePercent24h: nil,
                                           path: [entry.key, "USD"], quoteTime: nil))
        }
        await state.applyConverter(.snapshot(updates))
        return state
    }

    /// One import of `csv` through `state` (the `activities.import` method's own path), and how long it took.
    static func importOnce(_ state: PortfolioState, csv: String, dryRun: Bool, lines: Int) async throws -> Duration {
        let clock = ContinuousClock()
        let start = clock.now
        let preview = try await state.importActivities(ImportActivitiesRequest(format: .csv, content: csv, dryRun: dryRun))
        let elapsed = clock.now - start
        guard preview.new == lines, preview.errors == 0, preview.fileErrors.isEmpty, preview.written == !dryRun else {
            throw BenchError("import \(dryRun ? "dry run" : "commit"): \(preview.new) new, \(preview.errors) errors, written \(preview.written), "
                + "first error: \(String(describing: preview.fileErrors.first ?? preview.lines.lazy.flatMap(\.errors).first))")
        }
        return elapsed
    }
}

/// A benchmark that could not run as it must.
struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
