import Market
import Money
import TickwireContract

extension ConvertRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`convert {amount, from, to, source?}`.", [
            "amount": .required(.money, "The amount to convert."),
            "from": .required(.currency, "Its currency."),
            "to": .required(.currency, "The currency wanted."),
            "source": .optional(.string, "The rate source (`ecb`, `fixer`, `gnb`, `market`); default: see the protocol."),
        ])
    }
}

extension ConvertResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `convert`.", [
            "amount": .required(.money, "The converted amount, rounded half-even to the target currency's minor units."),
            "currency": .required(.currency, "The target currency."),
            "rate": .required(.money, "The derived rate as a decimal (exact when it terminates within 18 places)."),
            "rateExact": .required(.boolean, "Whether `rate` is exact (an inverse such as 1/3 is not)."),
            "path": .required(.array(.string), "The currencies the rate was derived through, from source to target."),
            "source": .required(.string, "The rate source used."),
        ])
    }
}

extension TotalRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`total {items, to, source?}`: the GNB rule over many amounts.", [
            "items": .required(.array(.ref(CurrencyAmount.self)), "The amounts to add up."),
            "to": .required(.currency, "The currency of the total."),
            "source": .optional(.string, "The rate source; default: see the protocol."),
        ])
    }
}

extension TotalResult.Item: JSONSchemaDescribable {
    public static var schemaName: String? { "TotalResultItem" }
    public static var jsonSchema: JSONSchema {
        .object("One converted item.", [
            "amount": .required(.money, "The amount as given."),
            "currency": .required(.currency, "Its currency."),
            "converted": .required(.money, "The amount in the target currency, rounded half-even to its minor units."),
            "path": .required(.array(.string), "The path of the rate used."),
        ])
    }
}

extension TotalResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `total`.", [
            "total": .required(.money, "The sum of the rounded items."),
            "currency": .required(.currency, "The target currency."),
            "source": .required(.string, "The rate source used."),
            "items": .required(.array(.ref(TotalResult.Item.self)), "Every item, in the order given."),
        ])
    }
}

extension RatesRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`rates {base, source?}`.", [
            "base": .required(.currency, "The currency every rate starts from."),
            "source": .optional(.string, "The rate source; default: see the protocol."),
        ])
    }
}

extension RatesResult.Entry: JSONSchemaDescribable {
    public static var schemaName: String? { "RatesResultEntry" }
    public static var jsonSchema: JSONSchema {
        .object("One reachable currency.", [
            "currency": .required(.currency, "The currency."),
            "rate": .required(.money, "1 base in this currency, as a decimal."),
            "rateExact": .required(.boolean, "Whether `rate` is exact."),
            "path": .required(.array(.string), "The path the rate was derived through."),
        ])
    }
}

extension RatesResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `rates`: every currency reachable from `base`.", [
            "base": .required(.currency, "The base currency."),
            "source": .required(.string, "The rate source used."),
            "rates": .required(.array(.ref(RatesResult.Entry.self)), "Every reachable currency, sorted by code."),
        ])
    }
}

extension AssetPrice: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The payload of `price.<ASSET>.<FIAT>`: an asset's price in a display currency.", [
            "asset": .required(.string, "The asset, e.g. `BTC`."),
            "currency": .required(.currency, "The display currency, e.g. `SEK`."),
            "price": .required(.money, "One unit of the asset in `currency`, rounded half-even to 8 places."),
            "changePercent24h": .optional(.money, "The 24 h change in percent, carried over from the quote."),
            "path": .required(.array(.string), "The currencies the price was derived through."),
            "quoteTime": .optional(.time, "When the underlying quote was made, if the feed said."),
        ])
    }
}

extension RateSourceInfo: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`sources`: the rate sources the converter holds, with their currencies.", [
            "source": .required(.string, "The source's name."),
            "rates": .required(.integer, "How many rates it has."),
            "currencies": .required(.array(.string), "Its currencies, sorted."),
        ])
    }
}

extension ConvertSeriesRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`convert.series {history, to}`: a price history in another currency, each point at the daily rate of its day (UTC) where the daily source has one, else at today's rate.", [
            "history": .required(.ref(PriceHistory.self), "The history, in its own currency."),
            "to": .required(.currency, "The currency wanted."),
        ])
    }
}

extension SeriesRateKind: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(["daily", "today", "mixed"], "Which rates a converted series used.")
    }
}

extension ConvertSeriesResult.DayRate: JSONSchemaDescribable {
    public static var schemaName: String? { "ConvertSeriesResultDayRate" }
    public static var jsonSchema: JSONSchema {
        .object("The rate used for the points of one day.", [
            "day": .required(.string, "The points' day, \"YYYY-MM-DD\" (UTC)."),
            "rateDay": .optional(.string, "The day whose published rate was used (the day itself, or the last published day before it); nil when today's rate was used."),
            "rate": .required(.money, "The derived rate, to 18 places."),
            "path": .required(.array(.string), "The currencies it was derived through."),
        ])
    }
}

extension ConvertSeriesResult: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `convert.series`.", [
            "history": .required(.ref(PriceHistory.self), "The history in the wanted currency, each price rounded half-even to 8 places."),
            "kind": .required(.ref(SeriesRateKind.self), "Which rates were used."),
            "source": .required(.string, "The daily rates' source (e.g. \"ecb\") when any point used one, else today's rate's source."),
            "days": .required(.array(.ref(ConvertSeriesResult.DayRate.self)), "One rate per day of the points, oldest first."),
            "reason": .optional(.string, "Why points are at today's rate (nil when none is)."),
        ])
    }
}

extension HistoryRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`history {asset, currency?, days?}`: an asset's price history (USD and 30 days by default).", [
            "asset": .required(.string, "The asset, e.g. `BTC`."),
            "currency": .optional(.currency, "The price currency."),
            "days": .optional(.integer, "How many days back, 1 to 365."),
        ])
    }
}

extension RefreshRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`refresh {feed}`: poll a feed now (pull-to-refresh).", [
            "feed": .required(.string, "The feed's name, e.g. `bitso`."),
        ])
    }
}

extension RatesHistoryRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`rates.history {start, end}`: the fiat source's daily rates from its base, days written \"YYYY-MM-DD\".", [
            "start": .required(.string, "The first day wanted."),
            "end": .required(.string, "The last day wanted, at most 366 days after `start`."),
        ])
    }
}

extension CoinRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`coins.add {coin}` and `coins.remove {coin}`: one coin, by its CoinGecko id (`polkadot`), symbol (`DOT`) or name (`Polkadot`), case aside.", [
            "coin": .required(.string, "The coin's id, symbol or name."),
        ])
    }
}

extension KnownCoin: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A CoinGecko coin: its id (what rates-fetcher polls), its symbol upper-cased (the topics' key), its name. A tracked coin whose symbol and name no answer has brought yet (given by id on the command line) has neither.", [
            "id": .required(.string, "CoinGecko's id, e.g. `polkadot`."),
            "symbol": .optional(.string, "The symbol, e.g. `DOT`."),
            "name": .optional(.string, "The name, e.g. `Polkadot`."),
        ])
    }
}

extension CoinsChange: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("What `coins.add` and `coins.remove` answer: the coin acted on, and every coin tracked after it.", [
            "coin": .required(.ref(KnownCoin.self), "The coin added or removed."),
            "changed": .required(.boolean, "Whether the list changed (false: it was already tracked, or already not)."),
            "coins": .required(.array(.ref(KnownCoin.self)), "The coins tracked now, in the order they were added."),
        ])
    }
}

extension KnownCoinsRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`coins.known {query?, limit?}`: coins CoinGecko lists whose id, symbol or name contains `query`, for suggestions.", [
            "query": .optional(.string, "Text to look for, case aside; none: the first coins of the list."),
            "limit": .optional(.integer, "At most this many, 1 to 200 (default 20)."),
        ])
    }
}

extension Trade: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One trade of the user's portfolio.", [
            "id": .required(.string, "The trade's id."),
            "asset": .required(.string, "The asset bought (positive amount)."),
            "amount": .required(.money, "Units of the asset."),
            "price": .required(.money, "Price paid per unit, in `currency`."),
            "currency": .required(.currency, "The currency of `price`."),
            "date": .required(.time, "When the trade happened."),
            "recordedAt": .required(.time, "When it was recorded."),
        ])
    }
}

extension AddTradeRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`trades.add`: records a trade once per `requestId`.", [
            "asset": .required(.string, "The asset, e.g. `BTC`."),
            "amount": .required(.money, "Units bought; must be positive."),
            "price": .required(.money, "Price per unit; must not be negative."),
            "currency": .required(.currency, "The currency of `price`."),
            "date": .required(.time, "When the trade happened; not in the future."),
            "requestId": .required(.string, "A client-chosen id; a retried request with the same id returns the first result."),
        ])
    }
}

extension RemoveTradeRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`trades.remove`.", [
            "id": .required(.string, "The trade's id."),
        ])
    }
}

extension HoldingsRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`holdings {currency?}` (USD by default).", [
            "currency": .optional(.currency, "The valuation currency."),
        ])
    }
}

extension Holding: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("What the user holds of one asset, valued in one currency.", [
            "asset": .required(.string, "The asset."),
            "amount": .required(.money, "Units held."),
            "trades": .required(.integer, "How many trades make it up."),
            "price": .optional(.money, "The price per unit used, if known."),
            "value": .optional(.money, "`amount × price`, rounded to the currency's minor units, if the price is known."),
            "cost": .optional(.money, "What the trades cost, in the valuation currency, if every trade could be converted."),
            "gain": .optional(.money, "`value − cost`, when both are known."),
            "priceTime": .optional(.time, "When the price was last updated."),
        ])
    }
}

extension Valuation: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The whole portfolio valued in one currency: the answer to `holdings`.", [
            "currency": .required(.currency, "The valuation currency."),
            "holdings": .required(.array(.ref(Holding.self)), "One entry per asset held, sorted by asset."),
            "totalValue": .required(.money, "The sum of the known values."),
            "totalCost": .required(.money, "The sum of the known costs."),
            "totalGain": .required(.money, "`totalValue − totalCost` over holdings where both are known."),
            "pricesAsOf": .optional(.time, "The oldest price used."),
            "priceAgeSeconds": .optional(.integer, "Seconds since `pricesAsOf`."),
            "offline": .required(.boolean, "Whether the converter's price stream is down, so stored prices were used."),
            "warnings": .required(.array(.string), "What could not be valued, and why."),
        ])
    }
}

extension WatchlistRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`watchlist.add` / `watchlist.remove`.", [
            "asset": .required(.string, "The asset, e.g. `BTC`."),
        ])
    }
}

extension WalletEntry: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One wallet as the wallets screen lists it.", [
            "id": .required(.string, "The wallet's id."),
            "name": .required(.string, "Its name."),
            "balance": .required(.money, "Its balance."),
            "isDefault": .required(.boolean, "Whether it is the default wallet of its asset."),
            "symbol": .required(.string, "The asset's symbol."),
            "assetName": .required(.string, "The asset's name."),
            "iconLight": .required(.string, "The asset's light icon URL."),
            "iconDark": .required(.string, "The asset's dark icon URL."),
            "precision": .required(.integer, "Fraction digits for the balance."),
        ])
    }
}

extension WalletGroups: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`wallets`: every non-deleted wallet, grouped and sorted by balance, largest first.", [
            "fiat": .required(.array(.ref(WalletEntry.self)), "Fiat wallets."),
            "crypto": .required(.array(.ref(WalletEntry.self)), "Crypto wallets."),
            "commodity": .required(.array(.ref(WalletEntry.self)), "Commodity wallets."),
        ])
    }
}

extension ProductSummary: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One GNB product in `products`.", [
            "sku": .required(.string, "The SKU."),
            "transactions": .required(.integer, "How many transactions it has."),
        ])
    }
}

extension ProductRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`product {sku, currency?}` (EUR by default).", [
            "sku": .required(.string, "The SKU."),
            "currency": .optional(.currency, "The currency of the total."),
        ])
    }
}

extension ProductDetail: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One product's transactions converted, and their total (the GNB rule, through the converter's `gnb` source).", [
            "sku": .required(.string, "The SKU."),
            "currency": .required(.currency, "The total's currency."),
            "total": .required(.money, "The sum of the rounded conversions."),
            "transactions": .required(.array(.ref(TotalResult.Item.self)), "Each transaction with its converted amount and the rate path used."),
        ])
    }
}

extension PortfolioChange: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The payload of `portfolio.changed`.", [
            "reason": .required(.string, "What changed: `trade.added`, `trade.removed`, `watchlist.added`, `watchlist.removed`."),
            "subject": .required(.string, "The trade id or asset concerned."),
        ])
    }
}

extension AddAlertRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`alerts.add {asset, currency, above | below, requestId?}`: a rule on an asset's price in a currency.", [
            "asset": .required(.string, "The asset, e.g. `BTC`."),
            "currency": .required(.currency, "The currency of the threshold, e.g. `USD`."),
            "above": .optional(.money, "Fires when the price rises to this or above."),
            "below": .optional(.money, "Fires when the price falls to this or below."),
            "requestId": .optional(.string, "A client-chosen id: a retried request with the same id answers the first rule again."),
        ])
    }
}

extension AlertRule: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One alert rule as price-alerts keeps it.", [
            "id": .required(.string, "The rule's id."),
            "asset": .required(.string, "The asset, upper-cased."),
            "currency": .required(.currency, "The currency, upper-cased."),
            "above": .optional(.money, "The threshold it rises to, if it is an `above` rule."),
            "below": .optional(.money, "The threshold it falls to, if it is a `below` rule."),
            "createdAt": .required(.time, "When it was added."),
            "holds": .required(.boolean, "Whether its condition holds at the last price seen (it fires again only after it stopped holding)."),
            "lastFired": .optional(.time, "When it last fired."),
        ])
    }
}

extension RemoveAlertRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`alerts.remove {id}`.", [
            "id": .required(.string, "The rule's id."),
        ])
    }
}

extension AlertFired: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The payload of `alert.<ASSET>.<FIAT>`: a rule's condition started to hold.", [
            "ruleId": .required(.string, "The rule that fired."),
            "asset": .required(.string, "The asset."),
            "currency": .required(.currency, "The currency."),
            "condition": .required(.string, "`above` or `below`."),
            "threshold": .required(.money, "The rule's threshold."),
            "price": .required(.money, "The price that crossed it."),
            "firedAt": .required(.time, "When it fired."),
        ])
    }
}
