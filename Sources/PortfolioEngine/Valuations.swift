import Foundation
import Market
import TickwireContract
import Money

/// Portfolio arithmetic as pure functions: holdings, wallet groups, products.
public enum Valuations {
    /// Values `trades` in `currency` with `prices` (keyed by ``priceKey(asset:currency:)``).
    ///
    /// - Parameter convertedCosts: each trade's cost already converted into `currency`
    ///   (by trade id), for trades priced in another currency; a trade missing here and
    ///   priced in another currency leaves its holding's cost unknown.
    public static func valuation(
        trades: [Trade], prices: [String: StoredPrice], currency: Currency,
        convertedCosts: [String: ExactDecimal], offline: Bool, now: Date, warnings: [String] = []
    ) throws -> Valuation {
        var warnings = warnings
        var holdings: [Holding] = []
        var totalValue = ExactDecimal.zero, totalCost = ExactDecimal.zero, totalGain = ExactDecimal.zero
        var oldest: Date?
        let byAsset = Dictionary(grouping: trades, by: \.asset)
        for asset in byAsset.keys.sorted() {
            let assetTrades = byAsset[asset] ?? []
            var amount = ExactDecimal.zero
            var cost: ExactDecimal? = .zero
            for trade in assetTrades {
                amount = try amount + trade.amount
                let tradeCost: ExactDecimal? = trade.currency == currency.code
                    ? try (trade.amount * trade.price).rescaled(to: currency.minorUnits)
                    : convertedCosts[trade.id]
                cost = try tradeCost.flatMap { tradeCost in try cost.map { try ($0 + tradeCost).rescaled(to: currency.minorUnits) } }
            }
            let stored = prices[priceKey(asset: asset, currency: currency.code)]
            let value = try stored.map { try (amount * $0.price).rescaled(to: currency.minorUnits) }
            if stored == nil { warnings.append("no \(currency.code) price for \(asset) yet: its value is unknown") }
            if cost == nil { warnings.append("the cost of \(asset) in \(currency.code) needs the converter, which is unreachable") }
            let gain = try value.flatMap { value in try cost.map { try value - $0 } }
            if let value { totalValue = try totalValue + value }
            if let cost { totalCost = try totalCost + cost }
            if let gain { totalGain = try totalGain + gain }
            if let updated = stored?.updatedAt { oldest = min(oldest ?? updated, updated) }
            holdings.append(Holding(
                asset: asset, amount: amount, trades: assetTrades.count, price: stored?.price,
                value: value, cost: cost, gain: gain, priceTime: stored?.updatedAt))
        }
        return Valuation(
            currency: currency.code, holdings: holdings,
            totalValue: try totalValue.rescaled(to: currency.minorUnits), totalCost: try totalCost.rescaled(to: currency.minorUnits),
            totalGain: try totalGain.rescaled(to: currency.minorUnits), pricesAsOf: oldest,
            priceAgeSeconds: oldest.map { max(0, Int(now.timeIntervalSince($0))) }, offline: offline, warnings: warnings)
    }

    /// The key of a price in the price table.
    public static func priceKey(asset: String, currency: String) -> String { "\(asset)/\(currency)" }

    /// Every wallet that is not deleted, grouped fiat / crypto / commodity, each group
    /// sorted by balance, largest first (then by name), with its asset's symbol, name and icons.
    public static func walletGroups(_ masterdata: Masterdata) -> WalletGroups {
        let entries = masterdata.wallets.filter { !$0.deleted }.map { wallet -> (AssetKind, WalletEntry) in
            let asset = masterdata.asset(for: wallet)
            return (wallet.kind, WalletEntry(
                id: wallet.id, name: wallet.name, balance: wallet.balance, isDefault: wallet.isDefault,
                symbol: asset?.symbol ?? wallet.assetSymbol, assetName: asset?.name ?? wallet.assetSymbol,
                iconLight: asset?.iconLight ?? "", iconDark: asset?.iconDark ?? "",
                precision: asset?.amountPrecision ?? Currency.iso(wallet.assetSymbol)?.minorUnits ?? 8))
        }
        func group(_ kind: AssetKind) -> [WalletEntry] {
            entries.filter { $0.0 == kind }.map(\.1).sorted { ($0.balance, $1.name) > ($1.balance, $0.name) }
        }
        return WalletGroups(fiat: group(.fiat), crypto: group(.cryptocoin), commodity: group(.commodity))
    }

    /// Every SKU with its number of transactions, sorted by SKU.
    public static func products(_ transactions: [GNBTransaction]) -> [ProductSummary] {
        Dictionary(grouping: transactions, by: \.sku).map { ProductSummary(sku: $0.key, transactions: $0.value.count) }
            .sorted { $0.sku < $1.sku }
    }
}
