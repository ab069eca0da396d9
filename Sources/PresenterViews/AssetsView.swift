import Foundation
import Market
import Money

/// The assets screen: cryptocoins, commodities and fiats of the masterdata, with their average EUR price.
public struct AssetsView: Codable, Sendable, Equatable {
    /// Which screen this is (`assets`): what a client reads to know the view's shape.
    public var screen = "assets"
    /// Which kinds of asset the screen lists.
    public enum Filter: String, Codable, Sendable, CaseIterable {
        /// Every kind.
        case all
        /// Cryptocoins only.
        case crypto
        /// Commodities (precious metals) only.
        case commodity
        /// Fiats with a wallet only.
        case fiat

        /// The filter a query value names; nil or empty means ``all``. Throws ``ViewError/invalidFilter(_:)`` otherwise.
        public init(parsing text: String?) throws(ViewError) {
            guard let text, !text.isEmpty else {
                self = .all
                return
            }
            guard let filter = Filter(rawValue: text.lowercased()) else { throw .invalidFilter(text) }
            self = filter
        }

        /// Whether assets of `kind` pass the filter.
        func includes(_ kind: AssetKind) -> Bool {
            switch self {
            case .all: true
            case .crypto: kind == .cryptocoin
            case .commodity: kind == .commodity
            case .fiat: kind == .fiat
            }
        }
    }

    /// One asset.
    public struct Row: Codable, Sendable, Equatable {
        /// Cryptocoin, commodity or fiat.
        public var kind: AssetKind
        /// The id within its kind.
        public var id: String
        /// Ticker symbol, e.g. "BTC".
        public var symbol: String
        /// Display name, e.g. "Bitcoin".
        public var name: String
        /// Icon for light backgrounds, on the presenter (``IconPath``).
        public var iconLight: String
        /// Icon for dark backgrounds, on the presenter.
        public var iconDark: String
        /// Average price in EUR with the asset's own fiat-price precision; nil for fiats (they show no price).
        public var averagePrice: DisplayAmount?
        /// What the price is per, for commodities counted in a unit, e.g. "g".
        public var unit: String?
        /// Price change over 24 hours in percent, when the masterdata gives it.
        public var change24h: DisplayAmount?
        /// Which way the 24 h change went.
        public var trend: Trend?
    }

    /// The reader's locale.
    public var locale: String
    /// The currency prices are in: always "EUR", the masterdata's average-price currency.
    public var currency: String?
    /// The filter applied.
    public var filter: Filter
    /// Cryptocoins, then commodities, then fiats with a wallet, each in masterdata order.
    public var rows: [Row]
    /// Messages to show above the list.
    public var notices: [String]
    /// How old the masterdata is, when known.
    public var dataAge: DataAge?

    /// Builds the screen. `filter` is the query value (`all`, `crypto`, `commodity`, `fiat`; nil means all);
    /// an unknown one throws ``ViewError/invalidFilter(_:)``. A fiat is listed only if one of `wallets`
    /// (not deleted) holds it. `asOf` is when the masterdata was read.
    public static func make(
        assets: [Asset], wallets: [Wallet], filter: String?, context: ViewContext,
        asOf: Date? = nil, notices: [String] = []
    ) throws(ViewError) -> AssetsView {
        let filter = try Filter(parsing: filter)
        let fiatsWithWallets = Set(wallets.filter { $0.kind == .fiat && !$0.deleted }.map(\.assetId))
        let order: [AssetKind] = [.cryptocoin, .commodity, .fiat]
        let listed = order.filter(filter.includes).flatMap { kind in
            assets.filter { $0.kind == kind && (kind != .fiat || fiatsWithWallets.contains($0.id)) }
        }
        let rows = listed.map { row(for: $0, locale: context.locale) }
        var allNotices = notices
        let unpriced = listed.filter { $0.kind != .fiat && $0.averagePrice == nil }.map(\.symbol)
        if !unpriced.isEmpty {
            allNotices.append("No average price for \(unpriced.joined(separator: ", ")).")
        }
        if rows.isEmpty {
            allNotices.append(filter == .fiat ? "No fiat currency has a wallet." : "No assets to show.")
        }
        return AssetsView(
            locale: context.locale, currency: Currency.eur.code, filter: filter, rows: rows,
            notices: allNotices, dataAge: asOf.map { DataAge(asOf: $0, now: context.now, locale: context.locale) }
        )
    }

    private static func row(for asset: Asset, locale: String) -> Row {
        let price: DisplayAmount? = asset.kind == .fiat ? nil : asset.averagePrice.map {
            DisplayAmount.money($0, code: Currency.eur.code, locale: locale, fractionDigits: asset.pricePrecision ?? Currency.eur.minorUnits)
        }
        let change = asset.kind == .fiat ? nil : asset.changePercent24h
        return Row(
            kind: asset.kind, id: asset.id, symbol: asset.symbol, name: asset.name,
            iconLight: IconPath.light(asset.symbol), iconDark: IconPath.dark(asset.symbol), averagePrice: price,
            unit: asset.kind == .commodity ? asset.measurementUnit : nil,
            change24h: change.map { DisplayAmount.percent($0, locale: locale) },
            trend: change.map { Trend($0, fractionDigits: DisplayAmount.percentDigits) }
        )
    }
}
