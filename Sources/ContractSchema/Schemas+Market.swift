import Market
import Money

extension AssetKind: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "What kind of thing an asset (or a wallet holding it) is.")
    }
}

extension Asset: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("Something a user can hold: a cryptocoin, a commodity or a fiat currency (Bitpanda masterdata). Ids are unique only within a kind: cryptocoin \"1\" is BTC while fiat \"1\" is EUR.", [
            "id": .required(.string, "The id within its kind."),
            "kind": .required(.ref(AssetKind.self), "Its kind."),
            "symbol": .required(.string, "Ticker symbol, e.g. \"BTC\"."),
            "name": .required(.string, "Display name, e.g. \"Bitcoin\"."),
            "iconLight": .required(.string, "URL of the icon for light backgrounds."),
            "iconDark": .required(.string, "URL of the icon for dark backgrounds."),
            "amountPrecision": .required(.integer, "Decimals for an amount of this asset (a coin's `precision_for_coins`, a fiat's `precision`)."),
            "pricePrecision": .optional(.integer, "Decimals for this asset's price in fiat (`precision_for_fiat_price`); nil for fiats."),
            "averagePrice": .optional(.money, "Average price in EUR (`avg_price`); nil for fiats."),
            "change24h": .optional(.money, "Price change over 24 hours, in EUR."),
            "changePercent24h": .optional(.money, "Price change over 24 hours, in percent."),
            "change1w": .optional(.money, "Price change over a week, in EUR."),
            "changePercent1w": .optional(.money, "Price change over a week, in percent."),
            "change1m": .optional(.money, "Price change over a month, in EUR."),
            "changePercent1m": .optional(.money, "Price change over a month, in percent."),
            "change1y": .optional(.money, "Price change over a year, in EUR."),
            "changePercent1y": .optional(.money, "Price change over a year, in percent."),
            "circulatingSupply": .optional(.money, "Units in circulation."),
            "color": .optional(.string, "Brand colour, e.g. \"#F7931A\"."),
            "measurementUnit": .optional(.string, "Unit a commodity is counted in, e.g. \"g\"."),
            "sortOrder": .optional(.integer, "Position in the source's own ordering."),
            "toEURRate": .optional(.money, "A fiat's value in EUR (`to_eur_rate`)."),
            "symbolCharacter": .optional(.string, "A fiat's sign, e.g. \"€\"."),
            "hasWallets": .optional(.boolean, "Whether users can hold this fiat in a wallet."),
        ])
    }
}

extension BookInfo: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("An order book an exchange trades, with its order limits (Bitso's \"available book\").", [
            "book": .required(.string, "The exchange's id for the book, e.g. \"btc_mxn\"."),
            "market": .required(.ref(MarketPair.self), "The pair the book trades."),
            "minimumAmount": .required(.money, "Smallest order, in the base currency."),
            "maximumAmount": .required(.money, "Largest order, in the base currency."),
            "minimumPrice": .required(.money, "Lowest accepted price, in the quote currency."),
            "maximumPrice": .required(.money, "Highest accepted price, in the quote currency."),
            "minimumValue": .required(.money, "Smallest order value, in the quote currency."),
            "maximumValue": .required(.money, "Largest order value, in the quote currency."),
        ])
    }
}

extension BookLevel: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One price level of an order book.", [
            "price": .required(.money, "The level's price, in the market's quote currency; above zero."),
            "size": .required(.money, "The size resting at the price, in the base currency; above zero."),
        ])
    }
}

extension BookDepth: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The top levels of one market's level-2 order book, as a feed keeps it exactly from the exchange's snapshot and diffs. Bids strictly descending, asks strictly ascending, best first; the best bid below the best ask; at most 1,000 levels a side.", [
            "source": .required(.string, "The feed that keeps the book, e.g. \"bitso-ws\"."),
            "market": .required(.ref(MarketPair.self), "The market, e.g. BTC-MXN."),
            "sequence": .required(.integer(minimum: 0), "The exchange's sequence number of the last change applied (Bitso's `sequence`), or a count of applied updates where the exchange numbers none."),
            "bids": .required(.array(.ref(BookLevel.self)), "Bids, best (highest price) first."),
            "asks": .required(.array(.ref(BookLevel.self)), "Asks, best (lowest price) first."),
            "time": .optional(.time, "When the exchange made the last change applied, if it says."),
        ])
    }
}

extension TradeSide: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "The side of the order that took liquidity: `buy` (a buyer lifted an ask) or `sell` (a seller hit a bid).")
    }
}

extension MarketTrade: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One trade on an exchange.", [
            "source": .required(.string, "The feed that saw it, e.g. \"bitso-ws\"."),
            "market": .required(.ref(MarketPair.self), "The market, e.g. BTC-MXN."),
            "id": .required(.string, "The exchange's id of the trade."),
            "price": .required(.money, "The price, in the quote currency; above zero."),
            "size": .required(.money, "The amount traded, in the base currency; above zero."),
            "side": .optional(.ref(TradeSide.self), "The taker's side, where the exchange says."),
            "time": .required(.time, "When the exchange matched it."),
        ])
    }
}

extension CandleInterval: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "A candle's span: one minute, five minutes, one hour or one UTC day.")
    }
}

extension Candle: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("Open, high, low, close and volume of one market over one interval, built from a feed's trades (or its quotes, for a feed without trades).", [
            "source": .required(.string, "The feed whose trades or quotes it was built from."),
            "market": .required(.ref(MarketPair.self), "The market."),
            "interval": .required(.ref(CandleInterval.self), "The interval."),
            "start": .required(.time, "The interval's start: a multiple of the interval since 1970, UTC."),
            "open": .required(.money, "The first price."),
            "high": .required(.money, "The highest price."),
            "low": .required(.money, "The lowest price."),
            "close": .required(.money, "The last price."),
            "volume": .required(.money, "The base currency traded (zero for a candle built from quotes)."),
            "count": .required(.integer(minimum: 0), "How many trades (or quotes) it was built from."),
        ])
    }
}

extension CoinInfo: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A coin as CoinGecko names it.", [
            "id": .required(.string, "CoinGecko's id, e.g. \"bitcoin\"."),
            "symbol": .required(.string, "Ticker symbol, upper-cased, e.g. \"BTC\"."),
            "name": .required(.string, "Display name, e.g. \"Bitcoin\"."),
            "image": .required(.string, "URL of the coin's logo."),
        ])
    }
}

extension FeedStatus.State: JSONSchemaDescribable {
    public static var schemaName: String? { "FeedStatusState" }
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "The feed's health.")
    }
}

extension FeedStatus.Kind: JSONSchemaDescribable {
    public static var schemaName: String? { "FeedKind" }
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "Where a feed runs: `built-in` (polled inside rates-fetcher) or `plugin` (a process of its own publishing into rates-fetcher's ingest endpoint).")
    }
}

extension FeedStatus: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("How one feed is doing: a built-in feed rates-fetcher polls, or a plugin publishing into its ingest endpoint.", [
            "feed": .required(.string, "The feed's name, e.g. \"bitso\"."),
            "state": .required(.ref(FeedStatus.State.self), "Its health: a built-in feed `ok`, `error` or `stale` (not polled yet, or too long ago); a plugin `live`, `stale` (3 heartbeat intervals without a message), `gone` (30 s silent: its topics retracted), or `error` (it reported one, or nothing it sent was accepted yet)."),
            "message": .optional(.string, "What went wrong, or other detail for people."),
            "lastSuccess": .optional(.time, "When a fetch last succeeded."),
            "lastAttempt": .optional(.time, "When a fetch was last tried."),
            "kind": .optional(.ref(FeedStatus.Kind.self), "Where it runs; absent from a rates-fetcher older than plugins (then built in)."),
            "lastMessage": .optional(.time, "For a plugin: when the hub last accepted a message of it."),
            "accepted": .optional(.integer(minimum: 0), "For a plugin: how many of its messages the hub accepted (heartbeats included)."),
            "refused": .optional(.map(.integer(minimum: 0)), "For a feed name: how many messages the hub refused, by reason (`malformed`, `topic`, `reserved`, `name-taken`, `seq`, `value`, `rate-limit`, `version`)."),
        ])
    }
}

extension FiatRateHistory: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A source's daily fiat rates from one base currency over a span of days: one `FiatRates` per day it published (the ECB publishes none on weekends and TARGET holidays), oldest first.", [
            "source": .required(.string, "Who published them, e.g. \"ecb\"."),
            "base": .required(.currency, "The currency every rate starts from, e.g. \"EUR\"."),
            "start": .required(.string, "The first day asked for, \"YYYY-MM-DD\" (a source may add the last published day before it)."),
            "end": .required(.string, "The last day asked for."),
            "days": .required(.array(.ref(FiatRates.self)), "The published days, oldest first; each one's `date` is its day."),
        ])
    }
}

extension FiatRates: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A set of fiat exchange rates from one base currency, as one source published them for one day.", [
            "source": .required(.string, "Who published them: \"ecb\" (through Frankfurter) or \"fixer\"."),
            "base": .required(.currency, "The currency every rate starts from, e.g. \"EUR\"."),
            "date": .required(.string, "The day the rates are for, ISO 8601 (\"2025-06-20\")."),
            "rates": .required(.array(.ref(ExchangeRate.self)), "One rate per other currency, each `from` the base, sorted by `to`."),
        ])
    }
}

extension GNBTransaction: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One sale of a product, as the GNB (\"International Business Men\") service lists it.", [
            "sku": .required(.string, "The product's stock-keeping unit, e.g. \"T2006\"."),
            "amount": .required(.money, "What it sold for."),
            "currency": .required(.currency, "The currency of `amount`, e.g. \"USD\"."),
        ])
    }
}

extension MarketPair: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A traded pair: an amount of `base` priced in `quote`, e.g. BTC priced in MXN.", [
            "base": .required(.currency, "The currency bought and sold, e.g. \"BTC\"."),
            "quote": .required(.string, "The currency its price is given in, e.g. \"MXN\"."),
        ])
    }
}

extension Masterdata: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("Every asset and every wallet of one user (Bitpanda masterdata).", [
            "assets": .required(.array(.ref(Asset.self)), "Cryptocoins, then commodities, then fiats, each in source order."),
            "wallets": .required(.array(.ref(Wallet.self)), "Crypto wallets, then commodity wallets, then fiat wallets, each in source order; deleted ones included."),
        ])
    }
}

extension PricePoint: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A price at a moment.", [
            "time": .required(.time, "When."),
            "price": .required(.money, "The price then."),
        ])
    }
}

extension PriceHistory: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("An asset's price over time, oldest point first.", [
            "asset": .required(.string, "The asset, as its source names it (e.g. CoinGecko's \"bitcoin\")."),
            "currency": .required(.currency, "The currency prices are in, e.g. \"USD\"."),
            "points": .required(.array(.ref(PricePoint.self)), "The prices, oldest first."),
        ])
    }
}

extension Quote: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One market's latest data as one source reported it. Prices are in the market's quote currency and volumes in its base currency; every field but `last` is optional because sources differ in what they give.", [
            "source": .required(.string, "Who reported it, e.g. \"bitso\", \"wazirx\", \"coingecko\"."),
            "market": .required(.ref(MarketPair.self), "The pair quoted, e.g. BTC-MXN."),
            "last": .required(.money, "Price of the last trade."),
            "open": .optional(.money, "Price 24 hours ago."),
            "high": .optional(.money, "Highest price in the last 24 hours."),
            "low": .optional(.money, "Lowest price in the last 24 hours."),
            "volume": .optional(.money, "Amount of the base currency traded in the last 24 hours."),
            "quoteVolume": .optional(.money, "Value traded in the last 24 hours, in the quote currency."),
            "vwap": .optional(.money, "Volume-weighted average price over the last 24 hours."),
            "ask": .optional(.money, "Lowest price a seller asks."),
            "bid": .optional(.money, "Highest price a buyer bids."),
            "change24h": .optional(.money, "Absolute price change over the last 24 hours."),
            "changePercent24h": .optional(.money, "Price change over the last 24 hours in percent (`-1.5` is a 1.5 % fall)."),
            "marketCap": .optional(.money, "Market capitalisation in the quote currency."),
            "marketCapRank": .optional(.integer, "Rank by market capitalisation, 1 being the largest."),
            "circulatingSupply": .optional(.money, "Units of the base currency in circulation."),
            "totalSupply": .optional(.money, "Units of the base currency that exist."),
            "maxSupply": .optional(.money, "Units of the base currency that can ever exist."),
            "allTimeHigh": .optional(.money, "Highest price ever."),
            "time": .optional(.time, "When the source produced these numbers."),
        ])
    }
}

extension Wallet: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A user's holding of one asset (Bitpanda masterdata).", [
            "id": .required(.string, "The wallet's id (a UUID string)."),
            "kind": .required(.ref(AssetKind.self), "The kind of asset it holds."),
            "name": .required(.string, "Its name, e.g. \"BTC Wallet\"."),
            "assetId": .required(.string, "The id of the asset it holds, within `kind`."),
            "assetSymbol": .required(.string, "The symbol of the asset it holds, e.g. \"BTC\"."),
            "balance": .required(.money, "How much of the asset it holds."),
            "isDefault": .required(.boolean, "Whether it is the default wallet for its asset (fiat wallets never are)."),
            "deleted": .required(.boolean, "Whether the user deleted it (fiat wallets never are)."),
            "pendingTransactions": .required(.integer, "Transactions not yet settled."),
        ])
    }
}
