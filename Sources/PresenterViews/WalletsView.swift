import Foundation
import Market
import TickwireContract
import Money

/// The wallets screen: every wallet the user has not deleted, grouped fiat / crypto / commodity.
public struct WalletsView: Codable, Sendable, Equatable {
    /// Which screen this is (`wallets`): what a client reads to know the view's shape.
    public var screen = "wallets"
    /// One wallet.
    public struct Row: Codable, Sendable, Equatable {
        /// The wallet's id.
        public var id: String
        /// Its name, e.g. "BTC Wallet".
        public var name: String
        /// The asset's symbol, e.g. "BTC".
        public var symbol: String
        /// The asset's name, e.g. "Bitcoin".
        public var assetName: String
        /// The asset's icon for light backgrounds, on the presenter (``IconPath``).
        public var iconLight: String
        /// The asset's icon for dark backgrounds, on the presenter.
        public var iconDark: String
        /// The balance with the wallet's precision and the asset's symbol, e.g. "BTC 2.2691".
        public var balance: DisplayAmount
        /// Whether it is the default wallet of its asset.
        public var isDefault: Bool
        /// Whether it holds a fiat currency (shown apart from the others).
        public var isFiat: Bool
    }

    /// The wallets of one kind.
    public struct Group: Codable, Sendable, Equatable {
        /// Fiat, cryptocoin or commodity.
        public var kind: AssetKind
        /// The heading, e.g. "Fiat wallets".
        public var title: String
        /// Its wallets, largest balance first.
        public var rows: [Row]
    }

    /// The reader's locale.
    public var locale: String
    /// No single display currency: each balance is in its own asset.
    public var currency: String?
    /// Fiat, crypto and commodity wallets, in that order; a group may be empty.
    public var groups: [Group]
    /// Messages to show above the list.
    public var notices: [String]
    /// How old the masterdata is, when known.
    public var dataAge: DataAge?

    /// Builds the screen from the portfolio's `wallets` answer, keeping its order (largest balance first;
    /// deleted wallets are already gone). `asOf` is when the masterdata was read.
    public static func make(groups: WalletGroups, context: ViewContext, asOf: Date? = nil, notices: [String] = []) -> WalletsView {
        let locale = context.locale
        let made = [
            Group(kind: .fiat, title: "Fiat wallets", rows: groups.fiat.map { row($0, isFiat: true, locale: locale) }),
            Group(kind: .cryptocoin, title: "Crypto wallets", rows: groups.crypto.map { row($0, isFiat: false, locale: locale) }),
            Group(kind: .commodity, title: "Commodity wallets", rows: groups.commodity.map { row($0, isFiat: false, locale: locale) }),
        ]
        var allNotices = notices
        if made.allSatisfy(\.rows.isEmpty) { allNotices.append("There are no wallets.") }
        return WalletsView(
            locale: locale, currency: nil, groups: made, notices: allNotices,
            dataAge: asOf.map { DataAge(asOf: $0, now: context.now, locale: locale) }
        )
    }

    private static func row(_ entry: WalletEntry, isFiat: Bool, locale: String) -> Row {
        Row(
            id: entry.id, name: entry.name, symbol: entry.symbol, assetName: entry.assetName,
            iconLight: IconPath.light(entry.symbol), iconDark: IconPath.dark(entry.symbol),
            balance: .money(entry.balance, code: entry.symbol, locale: locale, fractionDigits: entry.precision),
            isDefault: entry.isDefault, isFiat: isFiat
        )
    }
}
