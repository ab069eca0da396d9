import PresenterViews
import Foundation
import Market
import TickwireContract
import Money
import PresenterCore

/// Test inputs: real assets and wallets copied from the Bitpanda masterdata fixture, Bitso books and
/// tickers, GNB's T2006, and a small price history.
enum SampleData {
    /// 2025-06-15T15:06:40Z, the moment every view is built at.
    static let now = Date(timeIntervalSince1970: 1_750_000_000)

    static func decimal(_ text: String) throws -> ExactDecimal { try ExactDecimal(text) }

    static func context(_ locale: String = "en_US", currency: String = "USD") -> ViewContext {
        ViewContext(locale: locale, currency: currency, now: now)
    }

    private static let icons = "https://bitpanda-assets.s3-eu-west-1.amazonaws.com/static"

    /// BTC, XRP (4-digit price precision), PAN; gold and silver; EUR, USD, CHF, GBP (with wallets) and
    /// the fiat XAU, AUD, CAD (without).
    static func assets() throws -> [Asset] {
        func coin(_ id: String, _ symbol: String, _ name: String, price: String, precision: Int, change: String, kind: AssetKind = .cryptocoin) throws -> Asset {
            let folder = "cryptocoin"
            return Asset(
                id: id, kind: kind, symbol: symbol, name: name,
                iconLight: "\(icons)/\(folder)/\(symbol.lowercased()).svg", iconDark: "\(icons)/\(folder)/\(symbol.lowercased())_dark.svg",
                amountPrecision: 4, pricePrecision: precision, averagePrice: try decimal(price),
                changePercent24h: try decimal(change), measurementUnit: kind == .commodity ? "g" : nil
            )
        }
        func fiat(_ id: String, _ symbol: String, _ name: String, precision: Int, rate: String, hasWallets: Bool) throws -> Asset {
            Asset(
                id: id, kind: .fiat, symbol: symbol, name: name,
                iconLight: "\(icons)/fiat/\(symbol.lowercased()).svg", iconDark: "\(icons)/fiat/\(symbol.lowercased())_dark.svg",
                amountPrecision: precision, toEURRate: try decimal(rate), hasWallets: hasWallets
            )
        }
        return [
            try coin("1", "BTC", "Bitcoin", price: "8936.50", precision: 2, change: "-3.0714208301723"),
            try coin("8", "XRP", "Ripple", price: "0.2460", precision: 4, change: "1.2"),
            try coin("11", "PAN", "Pantos", price: "0.1859", precision: 4, change: "0"),
            try coin("28", "XAU", "Gold", price: "46.20", precision: 2, change: "0.5", kind: .commodity),
            try coin("29", "XAG", "Silver", price: "0.5223", precision: 4, change: "-0.25", kind: .commodity),
            try fiat("1", "EUR", "Euro", precision: 2, rate: "1.00000000", hasWallets: true),
            try fiat("2", "USD", "US Dollar", precision: 2, rate: "0.91314200", hasWallets: true),
            try fiat("3", "CHF", "Swiss Franc", precision: 2, rate: "0.93428009", hasWallets: true),
            try fiat("4", "GBP", "British Pound Sterling", precision: 2, rate: "1.17725733", hasWallets: true),
            try fiat("5", "XAU", "Gold (troy ounce)", precision: 6, rate: "1437.38509004", hasWallets: false),
            try fiat("6", "AUD", "Australian Dollar", precision: 2, rate: "0.61146196", hasWallets: false),
            try fiat("7", "CAD", "Canadian Dollar", precision: 2, rate: "0.68668910", hasWallets: false),
        ]
    }

    /// Wallets from the masterdata: BTC (default, a second one, a deleted one), gold, and the four fiat wallets;
    /// plus a deleted CAD wallet that must not make CAD listed.
    static func wallets() throws -> [Wallet] {
        func wallet(_ id: String, _ kind: AssetKind, _ name: String, _ assetId: String, _ symbol: String, _ balance: String, isDefault: Bool = false, deleted: Bool = false) throws -> Wallet {
            Wallet(id: id, kind: kind, name: name, assetId: assetId, assetSymbol: symbol, balance: try decimal(balance), isDefault: isDefault, deleted: deleted, pendingTransactions: 0)
        }
        return [
            try wallet("d07f4647-69af-4e78-af57-9053ce3d1994", .cryptocoin, "BTC Wallet", "1", "BTC", "2.26908585", isDefault: true),
            try wallet("7ae7f438-0e30-4154-9119-39d279b57f49", .cryptocoin, "btc 2", "1", "BTC", "0.00000000", deleted: true),
            try wallet("d8e1cb37-bd94-41ad-a3f5-0ea15e3a0d63", .cryptocoin, "BTC Wallet 2", "1", "BTC", "0.00146942"),
            try wallet("25087cc1-2528-4521-a7d3-8e517cb2cb66", .commodity, "Gold Wallet", "28", "XAU", "11.22758598", isDefault: true),
            try wallet("4fc17f23-83e8-4974-a149-569fdad72a81", .fiat, "EUR Wallet", "1", "EUR", "74.63000000"),
            try wallet("f659a16f-363e-4e77-81ec-699c9cb0cc3b", .fiat, "USD Wallet", "2", "USD", "502.28000000"),
            try wallet("9c84c697-6730-4aba-9174-6a10c8911e48", .fiat, "CHF Wallet", "3", "CHF", "5.25000000"),
            try wallet("54eafe74-178f-42a0-9ece-82b5951feae4", .fiat, "GBP Wallet", "4", "GBP", "107.82000000"),
            try wallet("00000000-0000-0000-0000-00000000cad0", .fiat, "CAD Wallet", "7", "CAD", "1.00", deleted: true),
        ]
    }

    /// The wallets answer the portfolio gives for the masterdata: grouped, deleted ones gone, largest balance first.
    static func walletGroups() throws -> WalletGroups {
        func entry(_ id: String, _ name: String, _ balance: String, _ symbol: String, _ assetName: String, precision: Int, isDefault: Bool = false, folder: String = "cryptocoin") throws -> WalletEntry {
            WalletEntry(
                id: id, name: name, balance: try decimal(balance), isDefault: isDefault, symbol: symbol, assetName: assetName,
                iconLight: "\(icons)/\(folder)/\(symbol.lowercased()).svg", iconDark: "\(icons)/\(folder)/\(symbol.lowercased())_dark.svg",
                precision: precision
            )
        }
        return WalletGroups(
            fiat: [
                try entry("f659a16f-363e-4e77-81ec-699c9cb0cc3b", "USD Wallet", "502.28000000", "USD", "US Dollar", precision: 2, folder: "fiat"),
                try entry("54eafe74-178f-42a0-9ece-82b5951feae4", "GBP Wallet", "107.82000000", "GBP", "British Pound Sterling", precision: 2, folder: "fiat"),
                try entry("4fc17f23-83e8-4974-a149-569fdad72a81", "EUR Wallet", "74.63000000", "EUR", "Euro", precision: 2, folder: "fiat"),
                try entry("9c84c697-6730-4aba-9174-6a10c8911e48", "CHF Wallet", "5.25000000", "CHF", "Swiss Franc", precision: 2, folder: "fiat"),
            ],
            crypto: [
                try entry("9b5f2f44-e60d-4b28-9d6f-fbe0f27883c7", "ETH Wallet", "533.55622166", "ETH", "Ethereum", precision: 4, isDefault: true),
                try entry("d07f4647-69af-4e78-af57-9053ce3d1994", "BTC Wallet", "2.26908585", "BTC", "Bitcoin", precision: 4, isDefault: true),
                try entry("d8e1cb37-bd94-41ad-a3f5-0ea15e3a0d63", "BTC Wallet 2", "0.00146942", "BTC", "Bitcoin", precision: 4),
            ],
            commodity: [
                try entry("25087cc1-2528-4521-a7d3-8e517cb2cb66", "Gold Wallet", "11.22758598", "XAU", "Gold", precision: 4, isDefault: true),
                try entry("bf784330-2f83-4200-9c8c-39e059b6eb1e", "Gold Wallet 2", "7.17749217", "XAU", "Gold", precision: 4),
            ]
        )
    }

    /// Bitso's first three available books.
    static func books() throws -> [BookInfo] {
        [
            BookInfo(
                book: "btc_mxn", market: MarketPair(base: "btc", quote: "mxn"),
                minimumAmount: try decimal("0.00015"), maximumAmount: try decimal("500.00000000"),
                minimumPrice: try decimal("500.00"), maximumPrice: try decimal("80000.00"),
                minimumValue: try decimal("5"), maximumValue: try decimal("10000000.00")
            ),
            BookInfo(
                book: "eth_mxn", market: MarketPair(base: "eth", quote: "mxn"),
                minimumAmount: try decimal("0.001"), maximumAmount: try decimal("100000.00000000"),
                minimumPrice: try decimal("10.00"), maximumPrice: try decimal("50000.00"),
                minimumValue: try decimal("5.00"), maximumValue: try decimal("10000000.00")
            ),
            BookInfo(
                book: "xrp_btc", market: MarketPair(base: "xrp", quote: "btc"),
                minimumAmount: try decimal("0.00000100"), maximumAmount: try decimal("100000.00000000"),
                minimumPrice: try decimal("0.00000100"), maximumPrice: try decimal("5000.00000000"),
                minimumValue: try decimal("0.00000100"), maximumValue: try decimal("100000.00000000")
            ),
        ]
    }

    /// Bitso's btc_mxn ticker (ticker_btc_mxn.json) with a 24 h change added.
    static func btcMxnTicker() throws -> Quote {
        Quote(
            source: "bitso", market: MarketPair(base: "BTC", quote: "MXN"), last: try decimal("5633.98"),
            high: try decimal("5750.00"), low: try decimal("5450.00"), volume: try decimal("22.31349615"),
            vwap: try decimal("5393.45"), ask: try decimal("5632.24"), bid: try decimal("5520.01"),
            change24h: try decimal("133.98"), time: now.addingTimeInterval(-40)
        )
    }

    /// A converter price of `asset` in `currency`.
    static func price(_ asset: String, _ price: String, change: String?, currency: String = "USD", age: TimeInterval = 30) throws -> AssetPrice {
        AssetPrice(
            asset: asset, currency: currency, price: try decimal(price), changePercent24h: try change.map(decimal),
            path: [asset, currency], quoteTime: now.addingTimeInterval(-age)
        )
    }

    /// BTC's last three CoinGecko points (market_chart_range fixture), in USD.
    static func history() throws -> PriceHistory {
        PriceHistory(asset: "bitcoin", currency: "USD", points: [
            PricePoint(time: Date(timeIntervalSince1970: 1_711_843_200), price: try decimal("69702.3087473573")),
            PricePoint(time: Date(timeIntervalSince1970: 1_711_929_600), price: try decimal("71246.9514406015")),
            PricePoint(time: Date(timeIntervalSince1970: 1_711_983_682), price: try decimal("68887.7495158568")),
        ])
    }

    /// T2006 as the converter answers `product`: 10.00 USD at 0.736 and 7.63 EUR.
    static func productT2006() throws -> ProductDetail {
        ProductDetail(sku: "T2006", currency: "EUR", total: try decimal("14.99"), transactions: [
            TotalResult.Item(amount: try decimal("10.00"), currency: "USD", converted: try decimal("7.36"), path: ["USD", "EUR"]),
            TotalResult.Item(amount: try decimal("7.63"), currency: "EUR", converted: try decimal("7.63"), path: ["EUR"]),
        ])
    }
}
