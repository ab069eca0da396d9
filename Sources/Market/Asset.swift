import Money

/// What kind of thing an asset (or a wallet holding it) is.
public enum AssetKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A cryptocurrency, e.g. BTC.
    case cryptocoin
    /// A precious metal, e.g. XAU, counted in grams.
    case commodity
    /// A government currency, e.g. EUR.
    case fiat
}

/// Something a user can hold: a cryptocoin, a commodity or a fiat currency (Bitpanda masterdata).
///
/// Ids are unique only within a kind: cryptocoin "1" is BTC while fiat "1" is EUR.
public struct Asset: Sendable, Hashable, Codable {
    /// The id within its kind.
    public var id: String
    /// Its kind.
    public var kind: AssetKind
    /// Ticker symbol, e.g. "BTC".
    public var symbol: String
    /// Display name, e.g. "Bitcoin".
    public var name: String
    /// URL of the icon for light backgrounds.
    public var iconLight: String
    /// URL of the icon for dark backgrounds.
    public var iconDark: String
    /// Decimals for an amount of this asset (a coin's `precision_for_coins`, a fiat's `precision`).
    public var amountPrecision: Int
    /// Decimals for this asset's price in fiat (`precision_for_fiat_price`); nil for fiats.
    public var pricePrecision: Int?
    /// Average price in EUR (`avg_price`); nil for fiats.
    public var averagePrice: ExactDecimal?
    /// Price change over 24 hours, in EUR.
    public var change24h: ExactDecimal?
    /// Price change over 24 hours, in percent.
    public var changePercent24h: ExactDecimal?
    /// Price change over a week, in EUR.
    public var change1w: ExactDecimal?
    /// Price change over a week, in percent.
    public var changePercent1w: ExactDecimal?
    /// Price change over a month, in EUR.
    public var change1m: ExactDecimal?
    /// Price change over a month, in percent.
    public var changePercent1m: ExactDecimal?
    /// Price change over a year, in EUR.
    public var change1y: ExactDecimal?
    /// Price change over a year, in percent.
    public var changePercent1y: ExactDecimal?
    /// Units in circulation.
    public var circulatingSupply: ExactDecimal?
    /// Brand colour, e.g. "#F7931A".
    public var color: String?
    /// Unit a commodity is counted in, e.g. "g".
    public var measurementUnit: String?
    /// Position in the source's own ordering.
    public var sortOrder: Int?
    /// A fiat's value in EUR (`to_eur_rate`).
    public var toEURRate: ExactDecimal?
    /// A fiat's sign, e.g. "€".
    public var symbolCharacter: String?
    /// Whether users can hold this fiat in a wallet.
    public var hasWallets: Bool?

    /// An asset; fields a kind does not have stay nil.
    public init(
        id: String, kind: AssetKind, symbol: String, name: String,
        iconLight: String, iconDark: String, amountPrecision: Int,
        pricePrecision: Int? = nil, averagePrice: ExactDecimal? = nil,
        change24h: ExactDecimal? = nil, changePercent24h: ExactDecimal? = nil,
        change1w: ExactDecimal? = nil, changePercent1w: ExactDecimal? = nil,
        change1m: ExactDecimal? = nil, changePercent1m: ExactDecimal? = nil,
        change1y: ExactDecimal? = nil, changePercent1y: ExactDecimal? = nil,
        circulatingSupply: ExactDecimal? = nil, color: String? = nil,
        measurementUnit: String? = nil, sortOrder: Int? = nil,
        toEURRate: ExactDecimal? = nil, symbolCharacter: String? = nil, hasWallets: Bool? = nil
    ) {
        self.id = id
        self.kind = kind
        self.symbol = symbol
        self.name = name
        self.iconLight = iconLight
        self.iconDark = iconDark
        self.amountPrecision = amountPrecision
        self.pricePrecision = pricePrecision
        self.averagePrice = averagePrice
        self.change24h = change24h
        self.changePercent24h = changePercent24h
        self.change1w = change1w
        self.changePercent1w = changePercent1w
        self.change1m = change1m
        self.changePercent1m = changePercent1m
        self.change1y = change1y
        self.changePercent1y = changePercent1y
        self.circulatingSupply = circulatingSupply
        self.color = color
        self.measurementUnit = measurementUnit
        self.sortOrder = sortOrder
        self.toEURRate = toEURRate
        self.symbolCharacter = symbolCharacter
        self.hasWallets = hasWallets
    }
}
