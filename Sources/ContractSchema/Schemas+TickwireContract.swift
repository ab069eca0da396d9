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
            "source": .optional(.string, "The feed of the quote the price's first step comes from, e.g. `coingecko`; after a fallback the feed and the higher-ranked one it stands in for, e.g. `bitso (kraken stale)`."),
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

extension CandlesRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`candles {market, interval, source?, start?, end?}`: a market's stored candles of one interval in a span.", [
            "market": .required(.string, "The market `BASE-QUOTE`, e.g. \"BTC-MXN\"."),
            "interval": .required(.ref(CandleInterval.self), "`1m`, `5m`, `1h` or `1d`."),
            "source": .optional(.string, "The feed whose candles are wanted; the first feed with candles of the market when left out."),
            "start": .optional(.time, "The first candle start wanted (inclusive); the store's oldest when left out."),
            "end": .optional(.time, "The last candle start wanted (inclusive); now when left out."),
        ])
    }
}

extension CandleSeries: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("What `candles` answers: the closed candles in the span, oldest first, and the feed they came from.", [
            "source": .required(.string, "The feed the candles were built from."),
            "market": .required(.ref(MarketPair.self), "The market."),
            "interval": .required(.ref(CandleInterval.self), "The interval."),
            "candles": .required(.array(.ref(Candle.self)), "The candles, oldest first."),
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

extension ActivityKind: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue),
                     "What an activity does (Ghostfolio's BUY, SELL, FEE, lower-case; a transfer moves units without realizing a gain).")
    }
}

extension Trade: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One activity of the user's portfolio (a trade): a buy, sell, fee or transfer.", [
            "id": .required(.string, "The trade's id."),
            "portfolio": .optional(.string, "The portfolio (a named account) it belongs to; absent (written before several portfolios): `main`."),
            "kind": .optional(.ref(ActivityKind.self), "What it does; absent (written before activities): `buy`."),
            "asset": .required(.string, "The asset concerned."),
            "amount": .required(.money, "Units of the asset (zero for a fee)."),
            "price": .required(.money, "Price per unit, in `currency` (zero for a fee and a transfer out, and for a transfer in at no cost)."),
            "currency": .required(.currency, "The currency of `price` (a fee's: the fee's currency)."),
            "fee": .optional(.ref(CurrencyAmount.self), "The fee paid: on a buy or sell, or the amount of a fee activity."),
            "date": .required(.time, "When the trade happened."),
            "recordedAt": .required(.time, "When it was first recorded (an edit keeps it; the history says when it changed)."),
        ])
    }
}

/// The members of `trades.add`, which `trades.edit` takes too.
private enum ActivityMembers {
    static let kind = JSONSchema.Property.optional(.ref(ActivityKind.self), "What it does; `buy` when absent.")
    static let asset = JSONSchema.Property.required(.string, "The asset, e.g. `BTC`.")
    static let amount = JSONSchema.Property.optional(.money, "Units bought, sold or moved; must be positive. Required except for a fee (which has none).")
    static let price = JSONSchema.Property.optional(
        .money, "Price per unit; must not be negative. Required for a buy or sell; a transfer in without one costs nothing; a fee and a transfer out have none.")
    static let currency = JSONSchema.Property.optional(
        .currency, "The currency of `price`: an ISO 4217 fiat, a metal or an asset the portfolio knows. Required except for a fee (the fee's currency).")
    static let fee = JSONSchema.Property.optional(
        .ref(CurrencyAmount.self),
        "On a buy (added to its lot's cost) or sell (taken from its proceeds), not negative; a fee activity's amount, required and positive.")
    static let date = JSONSchema.Property.required(.time, "When it happened; not in the future.")
    static let requestId = JSONSchema.Property.required(
        .string, "A client-chosen id naming this write; a retried request with the same id returns the first result.")
    static let by = JSONSchema.Property.optional(
        .string, "Who makes the change, as the caller names itself (not authenticated), for the audit history; `anonymous` when absent.")
    static let portfolio = PortfolioMember.property("The portfolio it goes to; `main` when absent.")
    static let editPortfolio = PortfolioMember.property("The portfolio to move it to; absent keeps it where it is.")
}

/// The `portfolio` member of the requests that act on or read one portfolio.
enum PortfolioMember {
    /// The rule every portfolio name keeps.
    static let rule = "1 to 40 letters, digits, spaces, `-`, `_` or `.` (trimmed)"

    /// An optional `portfolio`: `description`, then the rule.
    static func property(_ description: String) -> JSONSchema.Property {
        .optional(.string, "\(description) A name: \(rule); another is invalid params (-32602).")
    }
}

extension AddTradeRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`trades.add`: records an activity once per `requestId` (a buy unless `kind` says otherwise).", [
            "kind": ActivityMembers.kind, "asset": ActivityMembers.asset, "amount": ActivityMembers.amount, "price": ActivityMembers.price,
            "currency": ActivityMembers.currency, "fee": ActivityMembers.fee, "date": ActivityMembers.date,
            "requestId": ActivityMembers.requestId, "by": ActivityMembers.by, "portfolio": ActivityMembers.portfolio,
        ])
    }
}

extension EditTradeRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`trades.edit`: gives activity `id` the fields of a `trades.add`, once per `requestId`.", [
            "id": .required(.string, "The trade's id."),
            "kind": ActivityMembers.kind, "asset": ActivityMembers.asset, "amount": ActivityMembers.amount, "price": ActivityMembers.price,
            "currency": ActivityMembers.currency, "fee": ActivityMembers.fee, "date": ActivityMembers.date,
            "requestId": ActivityMembers.requestId, "by": ActivityMembers.by, "portfolio": ActivityMembers.editPortfolio,
        ])
    }
}

extension RemoveTradeRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`trades.remove`: removes an activity, keeping the removal in its history.", [
            "id": .required(.string, "The trade's id."),
            "requestId": .optional(.string, "A client-chosen id: a retried removal with the same id answers `true` again instead of \"not found\"."),
            "by": .optional(.string, "Who removes, as the caller names itself (not authenticated); `anonymous` when absent."),
        ])
    }
}

extension TradesRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`trades.list {portfolio?}`: the activities of one portfolio (the params may be left out).", [
            "portfolio": PortfolioMember.property("The portfolio; `main` when absent."),
        ])
    }
}

extension TradeHistoryRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`trades.history {id?, portfolio?}`: the audit history of one activity, or of all, or of those of one portfolio.", [
            "id": .optional(.string, "The trade's id; every trade's history when absent."),
            "portfolio": PortfolioMember.property("Only the revisions of activities in this portfolio (before or after the change); every portfolio's when absent."),
        ])
    }
}

extension PortfolioSummary: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One portfolio (a named account) and how many activities it has.", [
            "name": .required(.string, "Its name."),
            "activities": .required(.integer, "How many activities belong to it."),
        ])
    }
}

extension PortfolioList: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `portfolios.list`: every portfolio with an activity, and `main` always; `main` first, then by name.", [
            "portfolios": .required(.array(.ref(PortfolioSummary.self)), "The portfolios."),
        ])
    }
}

extension TradeRevision.Action: JSONSchemaDescribable {
    public static var schemaName: String? { "TradeRevisionAction" }
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "What was done to an activity: `added`, `edited` or `removed`.")
    }
}

extension TradeRevision: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One change of an activity, as its audit history keeps it.", [
            "seq": .required(.integer, "The revision's number, increasing over the whole portfolio."),
            "tradeId": .required(.string, "The trade's id."),
            "action": .required(.ref(TradeRevision.Action.self), "What was done."),
            "by": .required(.string, "Who did it: the name the caller gave, or `anonymous`."),
            "at": .required(.time, "When."),
            "requestId": .optional(.string, "The request's id, if it had one."),
            "before": .optional(.ref(Trade.self), "The activity before (absent when added)."),
            "after": .optional(.ref(Trade.self), "The activity after (absent when removed)."),
        ])
    }
}

extension CostBasisMethod: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "How the cost of units sold is taken: `fifo` (oldest lots first) or `average` (the pool's average cost).")
    }
}

extension GainsRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`gains {currency?, method?, portfolio?}`: realized and unrealized gains per asset and in total.", [
            "currency": .optional(.currency, "The display currency (USD by default)."),
            "method": .optional(.ref(CostBasisMethod.self), "The cost basis method; the service's `--cost-basis` (FIFO by default) when absent."),
            "portfolio": PortfolioMember.property("The portfolio; `main` when absent."),
        ])
    }
}

extension AssetGains: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One asset's gains in the display currency; a figure that needs a conversion the converter could not make is absent.", [
            "asset": .required(.string, "The asset."),
            "quantity": .required(.money, "Units held now."),
            "activities": .required(.integer, "How many activities concern it."),
            "costBasis": .optional(.money, "What the units held cost (their lots, buy fees included)."),
            "price": .optional(.money, "The current price per unit, if known."),
            "value": .optional(.money, "`quantity × price`, rounded to the currency's minor units, if the price is known."),
            "realizedGain": .optional(.money, "Sells' proceeds (less their fees) over the cost of the units sold, less fee activities."),
            "unrealizedGain": .optional(.money, "`value − costBasis`."),
            "fees": .optional(.money, "Every fee paid for it: on buys and sells, and fee activities."),
            "priceTime": .optional(.time, "When the price was last updated."),
        ])
    }
}

extension PortfolioGains: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `gains`: every asset with an activity, and the totals of what is known.", [
            "currency": .required(.currency, "The display currency."),
            "method": .required(.ref(CostBasisMethod.self), "The cost basis method used."),
            "assets": .required(.array(.ref(AssetGains.self)), "One entry per asset with an activity (sold out ones included), sorted by asset."),
            "totalCostBasis": .required(.money, "The sum of the known cost bases."),
            "totalValue": .required(.money, "The sum of the known values."),
            "totalRealizedGain": .required(.money, "The sum of the known realized gains."),
            "totalUnrealizedGain": .required(.money, "The sum of the known unrealized gains."),
            "totalGain": .required(.money, "`totalRealizedGain + totalUnrealizedGain`."),
            "totalFees": .required(.money, "The sum of the known fees."),
            "pricesAsOf": .optional(.time, "The oldest price used."),
            "offline": .required(.boolean, "Whether the converter's price stream is down, so stored prices were used."),
            "warnings": .required(.array(.string), "What could not be worked out, and why."),
        ])
    }
}

extension PerformanceRange: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "A range ending now: `1D`, `7D`, `30D` (24 hours, 7 and 30 days), `YTD` (since 1 January, UTC), `1Y` (365 days), `Max` (since the first activity).")
    }
}

extension PerformanceRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`performance {currency?, range?, portfolio?}`: the value over a range and the time-weighted return of every range.", [
            "currency": .optional(.currency, "The display currency (USD by default)."),
            "range": .optional(.ref(PerformanceRange.self), "The range of the value series (`Max` by default); the returns cover every range."),
            "portfolio": PortfolioMember.property("The portfolio; `main` when absent."),
        ])
    }
}

extension ValuePoint: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The portfolio's value at a moment: every unit held then at its price then, rounded to the currency's minor units.", [
            "time": .required(.time, "When."),
            "value": .required(.money, "What the holdings were worth."),
        ])
    }
}

extension RangeReturn: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The time-weighted return over one range, or why it is unknown.", [
            "range": .required(.ref(PerformanceRange.self), "The range."),
            "start": .optional(.time, "Where it starts (absent for `Max` without activities)."),
            "startValue": .optional(.money, "What the holdings were worth at its start, when known."),
            "endValue": .optional(.money, "What they are worth now, when known."),
            "twr": .optional(.money, "The time-weighted return as a fraction (`0.0525` is 5.25 %), rounded half-even to 8 places; absent when unknown."),
            "subPeriods": .required(.integer, "How many sub-periods (split at each activity) with something held it chains."),
            "missing": .optional(.string, "Why `twr` is unknown (a price history missing, nothing held)."),
        ])
    }
}

extension PortfolioPerformance: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer to `performance`: the value series over the range asked and the time-weighted return of every range.", [
            "currency": .required(.currency, "The display currency."),
            "range": .required(.ref(PerformanceRange.self), "The range of `series`."),
            "series": .required(.array(.ref(ValuePoint.self)), "The value at each price point of the range, at each activity and now, oldest first; a moment whose value is unknown is left out, with a warning."),
            "returns": .required(.array(.ref(RangeReturn.self)), "One return per range: 1D, 7D, 30D, YTD, 1Y, Max."),
            "asOf": .required(.time, "The moment the ranges end."),
            "warnings": .required(.array(.string), "What could not be worked out, and why."),
        ])
    }
}

extension HoldingsRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`holdings {currency?, portfolio?}` (USD and `main` by default).", [
            "currency": .optional(.currency, "The valuation currency."),
            "portfolio": PortfolioMember.property("The portfolio valued; `main` when absent."),
        ])
    }
}

extension Holding: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("What the user holds of one asset, valued in one currency.", [
            "asset": .required(.string, "The asset."),
            "amount": .required(.money, "Units held now (bought and moved in, less sold and moved out)."),
            "trades": .required(.integer, "How many activities of the asset make it up."),
            "price": .optional(.money, "The price per unit used, if known."),
            "value": .optional(.money, "`amount × price`, rounded to the currency's minor units, if the price is known."),
            "cost": .optional(.money, "The cost basis of the units held (the service's method), in the valuation currency, if every amount could be converted."),
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
            "reason": .required(.string, "What changed: `trade.added`, `trade.edited`, `trade.removed`, `trades.imported`, `watchlist.added`, `watchlist.removed`."),
            "subject": .required(.string, "The trade id or asset concerned; for `trades.imported`, how many activities the import added."),
            "portfolio": .optional(.string, "The portfolio the change is about (an edit that moves an activity: the one it moved to); absent for the watch list, which all portfolios share."),
        ])
    }
}

extension Panel: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The answer of a plugin's `panel`: its page on the dashboard, shown (and linked in the navigation) while the plugin answers.", [
            "title": .required(.string, "The page's title, and its link's text in the navigation, e.g. `Alerts`."),
            "summary": .optional(.string, "One line under the title."),
            "sections": .required(.array(.ref(PanelSection.self)), "The sections, top to bottom."),
            "topics": .required(.array(.string), "Topic prefixes on the plugin's stream (its PUB socket) whose messages change the page, e.g. `alert.`: the dashboard reloads the page when one arrives."),
        ])
    }
}

extension PanelSection: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One section of a panel: a heading, and any of a paragraph, a table and a form, shown in that order.", [
            "title": .optional(.string, "The heading."),
            "text": .optional(.string, "A paragraph of plain text."),
            "table": .optional(.ref(PanelTable.self), "A table."),
            "form": .optional(.ref(PanelForm.self), "A form whose submit calls one of the plugin's methods."),
        ])
    }
}

extension PanelTable: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A table of plain-text cells; each row may carry one action (a form of hidden fields and a button, e.g. Remove).", [
            "columns": .required(.array(.string), "The column headings."),
            "rows": .required(.array(.ref(PanelRow.self)), "The rows, each as many cells as there are columns."),
            "empty": .optional(.string, "What the table says when it has no rows."),
        ])
    }
}

extension PanelRow: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One row of a panel's table.", [
            "cells": .required(.array(.string), "The cells' text, one per column."),
            "action": .optional(.ref(PanelForm.self), "A button at the row's end that submits this form."),
        ])
    }
}

extension PanelForm: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A form: submitting it calls `method` on the plugin with one by-name param per field that has a value (an empty field is left out); the dashboard shows the answer or the error. Only methods named by a form of the plugin's current panel may be called from the dashboard.", [
            "method": .required(.string, "The plugin's method the submit calls, e.g. `alerts.add`."),
            "submit": .required(.string, "The button's text."),
            "fields": .required(.array(.ref(PanelField.self)), "The fields, in order."),
            "confirm": .optional(.boolean, "Whether the dashboard asks \"are you sure?\" before calling (a removal)."),
        ])
    }
}

extension PanelField: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One field of a panel's form; its `name` is the JSON-RPC param it fills.", [
            "name": .required(.string, "The param's name, e.g. `asset`."),
            "label": .optional(.string, "The label shown beside it; none for a hidden field."),
            "kind": .required(.enumeration(PanelField.Kind.allCases.map(\.rawValue),
                                           "How the value is entered and sent: `text`, `decimal` (money: a decimal string), `select` (one of `options`) and `hidden` (its fixed `value`) are sent as JSON strings, `integer` as a JSON number."),
                              "What the field holds."),
            "value": .optional(.string, "Its starting value (a hidden field's only value)."),
            "options": .optional(.array(.string), "A select's choices."),
            "required": .optional(.boolean, "Whether the form cannot be sent without it."),
            "placeholder": .optional(.string, "A hint shown in the empty field, e.g. `BTC`."),
        ])
    }
}
