import Foundation
import Market
import TickwireContract
import Money

/// Portfolio arithmetic as pure functions: holdings, wallet groups, products.
public enum Valuations {
    /// Values the holdings of `activities` in `currency` with `prices` (keyed by ``priceKey(asset:currency:)``): each asset
    /// held with its quantity, its cost basis by `method` and its unrealized gain, worked out by ``Gains``.
    ///
    /// - Parameter converted: the amounts of ``Gains/conversions(_:currency:)`` converted into `currency`; an asset
    ///   with an amount missing here has its cost unknown.
    public static func valuation(
        activities: [Trade], prices: [String: StoredPrice], currency: Currency, converted: [CurrencyAmount: ExactDecimal],
        method: CostBasisMethod = .fifo, offline: Bool, now: Date, warnings: [String] = []
    ) throws -> Valuation {
        let gains = try Gains.compute(
            activities: activities, method: method, currency: currency, prices: prices, converted: converted, offline: offline, warnings: warnings)
        let held = gains.assets.filter { !$0.quantity.isZero }
        let oldest = held.compactMap(\.priceTime).min()
        func total(_ figure: (AssetGains) -> ExactDecimal?) throws -> ExactDecimal {
            try held.compactMap(figure).reduce(ExactDecimal.zero.rescaled(to: currency.minorUnits)) { try $0 + $1 }
        }
        return Valuation(
            currency: currency.code,
            holdings: held.map { asset in
                Holding(asset: asset.asset, amount: asset.quantity, trades: asset.activities, price: asset.price, value: asset.value,
                        cost: asset.costBasis, gain: asset.unrealizedGain, priceTime: asset.priceTime)
            },
            totalValue: try total(\.value), totalCost: try total(\.costBasis), totalGain: try total(\.unrealizedGain), pricesAsOf: oldest,
            priceAgeSeconds: oldest.map { max(0, Int(now.timeIntervalSince($0))) }, offline: offline, warnings: gains.warnings)
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
