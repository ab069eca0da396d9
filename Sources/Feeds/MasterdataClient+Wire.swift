import Foundation
import Market
import Money

/// Bitpanda's masterdata JSON: `data.attributes` holds `cryptocoins`, `commodities`, `fiats`, `wallets`,
/// `commodity_wallets` and `fiatwallets`, each a list of `{"type", "attributes", "id"}`.
/// Commodity wallets name their asset in `cryptocoin_id`, as crypto wallets do; fiat wallets use `fiat_id`.
enum MasterdataWire {
    private struct File: Decodable {
        let data: Collection
    }

    private struct Collection: Decodable {
        let attributes: Lists
    }

    private struct Lists: Decodable {
        let cryptocoins: [Item<Coin>]
        let commodities: [Item<Coin>]
        let fiats: [Item<Fiat>]
        let wallets: [Item<CoinWallet>]
        let commodityWallets: [Item<CoinWallet>]
        let fiatwallets: [Item<FiatWallet>]

        enum CodingKeys: String, CodingKey {
            case cryptocoins, commodities, fiats, wallets, fiatwallets
            case commodityWallets = "commodity_wallets"
        }
    }

    private struct Item<Attributes: Decodable>: Decodable {
        let type: String
        let id: String
        let attributes: Attributes
    }

    private struct Coin: Decodable {
        let symbol: String
        let name: String
        let logo: String
        let logoDark: String
        let precisionForCoins: Int
        let precisionForFiatPrice: Int
        let avgPrice: ExactDecimal
        let change24h: ExactDecimal?
        let change24hAmount: ExactDecimal?
        let change1w: ExactDecimal?
        let change1wAmount: ExactDecimal?
        let change1m: ExactDecimal?
        let change1mAmount: ExactDecimal?
        let change1y: ExactDecimal?
        let change1yAmount: ExactDecimal?
        let circulatingSupply: ExactDecimal?
        let color: String?
        let measurementUnit: String?
        let sort: Int?

        enum CodingKeys: String, CodingKey {
            case symbol, name, logo, color, sort
            case logoDark = "logo_dark", precisionForCoins = "precision_for_coins"
            case precisionForFiatPrice = "precision_for_fiat_price", avgPrice = "avg_price"
            case change24h = "change_24h", change24hAmount = "change_24h_amount"
            case change1w = "change_1w", change1wAmount = "change_1w_amount"
            case change1m = "change_1m", change1mAmount = "change_1m_amount"
            case change1y = "change_1y", change1yAmount = "change_1y_amount"
            case circulatingSupply = "circulating_supply", measurementUnit = "measurement_unit"
        }
    }

    private struct Fiat: Decodable {
        let symbol: String
        let name: String
        let logo: String
        let logoDark: String
        let precision: Int
        let toEurRate: ExactDecimal
        let symbolCharacter: String?
        let hasWallets: Bool

        enum CodingKeys: String, CodingKey {
            case symbol, name, logo, precision
            case logoDark = "logo_dark", toEurRate = "to_eur_rate"
            case symbolCharacter = "symbol_character", hasWallets = "has_wallets"
        }
    }

    private struct CoinWallet: Decodable {
        let cryptocoinId: String
        let cryptocoinSymbol: String
        let balance: ExactDecimal
        let isDefault: Bool
        let name: String
        let pendingTransactionsCount: Int
        let deleted: Bool

        enum CodingKeys: String, CodingKey {
            case balance, name, deleted
            case cryptocoinId = "cryptocoin_id", cryptocoinSymbol = "cryptocoin_symbol"
            case isDefault = "is_default", pendingTransactionsCount = "pending_transactions_count"
        }
    }

    private struct FiatWallet: Decodable {
        let fiatId: String
        let fiatSymbol: String
        let balance: ExactDecimal
        let name: String
        let pendingTransactionsCount: Int

        enum CodingKeys: String, CodingKey {
            case balance, name
            case fiatId = "fiat_id", fiatSymbol = "fiat_symbol", pendingTransactionsCount = "pending_transactions_count"
        }
    }

    static func masterdata(from data: Data, origin: String) throws(FeedError) -> Masterdata {
        let lists = try Wire.decode(File.self, from: data, origin: origin).data.attributes
        try check(lists.cryptocoins, "cryptocoin", origin, data)
        try check(lists.commodities, "commodity", origin, data)
        try check(lists.fiats, "fiat", origin, data)
        try check(lists.wallets, "wallet", origin, data)
        try check(lists.commodityWallets, "wallet", origin, data)
        try check(lists.fiatwallets, "fiat_wallet", origin, data)

        let assets = lists.cryptocoins.map { asset($0, .cryptocoin) }
            + lists.commodities.map { asset($0, .commodity) }
            + lists.fiats.map(asset)
        let wallets = lists.wallets.map { wallet($0, .cryptocoin) }
            + lists.commodityWallets.map { wallet($0, .commodity) }
            + lists.fiatwallets.map(wallet)
        let masterdata = Masterdata(assets: assets, wallets: wallets)
        if let orphan = wallets.first(where: { masterdata.asset(for: $0) == nil }) {
            throw Wire.malformed(origin, reason: "wallet \(orphan.id) holds unknown \(orphan.kind) \(orphan.assetId)", data)
        }
        return masterdata
    }

    private static func check<A>(_ items: [Item<A>], _ type: String, _ origin: String, _ data: Data) throws(FeedError) {
        if let item = items.first(where: { $0.type != type }) {
            throw Wire.malformed(origin, reason: "item \(item.id) is a \(item.type), expected \(type)", data)
        }
    }

    private static func asset(_ item: Item<Coin>, _ kind: AssetKind) -> Asset {
        let coin = item.attributes
        return Asset(
            id: item.id, kind: kind, symbol: coin.symbol, name: coin.name,
            iconLight: coin.logo, iconDark: coin.logoDark,
            amountPrecision: coin.precisionForCoins, pricePrecision: coin.precisionForFiatPrice,
            averagePrice: coin.avgPrice,
            change24h: coin.change24hAmount, changePercent24h: coin.change24h,
            change1w: coin.change1wAmount, changePercent1w: coin.change1w,
            change1m: coin.change1mAmount, changePercent1m: coin.change1m,
            change1y: coin.change1yAmount, changePercent1y: coin.change1y,
            circulatingSupply: coin.circulatingSupply, color: coin.color,
            measurementUnit: coin.measurementUnit, sortOrder: coin.sort
        )
    }

    private static func asset(_ item: Item<Fiat>) -> Asset {
        let fiat = item.attributes
        return Asset(
            id: item.id, kind: .fiat, symbol: fiat.symbol, name: fiat.name,
            iconLight: fiat.logo, iconDark: fiat.logoDark, amountPrecision: fiat.precision,
            toEURRate: fiat.toEurRate,
            symbolCharacter: fiat.symbolCharacter.flatMap { $0.isEmpty ? nil : $0 },
            hasWallets: fiat.hasWallets
        )
    }

    private static func wallet(_ item: Item<CoinWallet>, _ kind: AssetKind) -> Wallet {
        let wallet = item.attributes
        return Wallet(
            id: item.id, kind: kind, name: wallet.name, assetId: wallet.cryptocoinId,
            assetSymbol: wallet.cryptocoinSymbol, balance: wallet.balance, isDefault: wallet.isDefault,
            deleted: wallet.deleted, pendingTransactions: wallet.pendingTransactionsCount
        )
    }

    private static func wallet(_ item: Item<FiatWallet>) -> Wallet {
        let wallet = item.attributes
        return Wallet(
            id: item.id, kind: .fiat, name: wallet.name, assetId: wallet.fiatId,
            assetSymbol: wallet.fiatSymbol, balance: wallet.balance, isDefault: false,
            deleted: false, pendingTransactions: wallet.pendingTransactionsCount
        )
    }
}
