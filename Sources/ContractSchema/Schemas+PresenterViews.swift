import Market
import Money
import PresenterViews
import TickwireContract

extension AssetsView.Filter: JSONSchemaDescribable {
    public static var schemaName: String? { "AssetsViewFilter" }
    public static var jsonSchema: JSONSchema {
        .enumeration(Self.allCases.map(\.rawValue), "Which kinds of asset the screen lists.")
    }
}

extension AssetsView.Row: JSONSchemaDescribable {
    public static var schemaName: String? { "AssetsViewRow" }
    public static var jsonSchema: JSONSchema {
        .object("One asset.", [
            "kind": .required(.ref(AssetKind.self), "Cryptocoin, commodity or fiat."),
            "id": .required(.string, "The id within its kind."),
            "symbol": .required(.string, "Ticker symbol, e.g. \"BTC\"."),
            "name": .required(.string, "Display name, e.g. \"Bitcoin\"."),
            "iconLight": .required(.string, "Icon for light backgrounds, on the presenter."),
            "iconDark": .required(.string, "Icon for dark backgrounds, on the presenter."),
            "averagePrice": .optional(.ref(DisplayAmount.self), "Average price in EUR with the asset's own fiat-price precision; nil for fiats (they show no price)."),
            "unit": .optional(.string, "What the price is per, for commodities counted in a unit, e.g. \"g\"."),
            "change24h": .optional(.ref(DisplayAmount.self), "Price change over 24 hours in percent, when the masterdata gives it."),
            "trend": .optional(.ref(Trend.self), "Which way the 24 h change went."),
        ])
    }
}

extension AssetsView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The assets screen: cryptocoins, commodities and fiats of the masterdata, with their average EUR price.", [
            "screen": .required(.constant("assets"), "Which screen this is (`assets`): what a client reads to know the view's shape."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "The currency prices are in: always \"EUR\", the masterdata's average-price currency."),
            "filter": .required(.ref(AssetsView.Filter.self), "The filter applied."),
            "rows": .required(.array(.ref(AssetsView.Row.self)), "Cryptocoins, then commodities, then fiats with a wallet, each in masterdata order."),
            "notices": .required(.array(.string), "Messages to show above the list."),
            "dataAge": .optional(.ref(DataAge.self), "How old the masterdata is, when known."),
        ])
    }
}

extension BookView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One book's ticker (Bitso): last price, volume, high, low, 24 h change and VWAP, with ask and bid apart.", [
            "screen": .required(.constant("book"), "Which screen this is (`book`): what a client reads to know the view's shape."),
            "book": .required(.string, "The exchange's id, e.g. \"btc_mxn\"."),
            "name": .required(.string, "The name shown, e.g. \"BTC MXN\"."),
            "last": .required(.ref(DisplayAmount.self), "The last traded price."),
            "volume": .optional(.ref(DisplayAmount.self), "Units of the base currency traded in 24 hours."),
            "high": .optional(.ref(DisplayAmount.self), "Highest price in 24 hours."),
            "low": .optional(.ref(DisplayAmount.self), "Lowest price in 24 hours."),
            "change24h": .optional(.ref(DisplayAmount.self), "Price change over 24 hours, with its sign."),
            "changePercent24h": .optional(.ref(DisplayAmount.self), "Price change over 24 hours in percent: the source's, or else computed from the change and the last price."),
            "trend": .optional(.ref(Trend.self), "Which way the price went in 24 hours."),
            "vwap": .optional(.ref(DisplayAmount.self), "Volume-weighted average price over 24 hours."),
            "ask": .optional(.ref(DisplayAmount.self), "Lowest price a seller asks."),
            "bid": .optional(.ref(DisplayAmount.self), "Highest price a buyer bids."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "The book's quote currency, e.g. \"MXN\"."),
            "notices": .required(.array(.string), "Messages to show: stale ticker, feed trouble."),
            "dataAge": .optional(.ref(DataAge.self), "How old the ticker is, when the exchange timed it."),
        ])
    }
}

extension BooksView.Row: JSONSchemaDescribable {
    public static var schemaName: String? { "BooksViewRow" }
    public static var jsonSchema: JSONSchema {
        .object("One book.", [
            "book": .required(.string, "The exchange's id, e.g. \"btc_mxn\"."),
            "name": .required(.string, "The name shown, e.g. \"BTC MXN\"."),
            "base": .required(.currency, "The currency traded, e.g. \"BTC\"."),
            "quote": .required(.string, "The currency prices are in, e.g. \"MXN\"."),
            "maximumPrice": .required(.ref(DisplayAmount.self), "The highest accepted price: the highlighted figure."),
            "minimumPrice": .required(.ref(DisplayAmount.self), "The lowest accepted price."),
            "minimumValue": .required(.ref(DisplayAmount.self), "The smallest order value (secondary text)."),
            "maximumValue": .required(.ref(DisplayAmount.self), "The largest order value (secondary text)."),
            "minimumAmount": .required(.ref(DisplayAmount.self), "The smallest order, in the base currency."),
            "maximumAmount": .required(.ref(DisplayAmount.self), "The largest order, in the base currency."),
            "last": .optional(.ref(DisplayAmount.self), "The last traded price, when a ticker for the book is known."),
        ])
    }
}

extension DepthLadder.Level: JSONSchemaDescribable {
    public static var schemaName: String? { "DepthLadderLevel" }
    public static var jsonSchema: JSONSchema {
        .object("One price level.", [
            "price": .required(.ref(DisplayAmount.self), "The price, in the quote currency."),
            "size": .required(.ref(DisplayAmount.self), "The size at this price, in the base currency."),
            "total": .required(.ref(DisplayAmount.self), "The size at this price and every better one."),
            "depth": .required(.integer(in: 0...100), "The cumulative size in percent (whole, at least 1 for a level with a size) of the largest cumulative size of either side: the bar's length."),
        ])
    }
}

extension DepthLadder.Trade: JSONSchemaDescribable {
    public static var schemaName: String? { "DepthLadderTrade" }
    public static var jsonSchema: JSONSchema {
        .object("One trade.", [
            "id": .required(.string, "The exchange's trade id."),
            "price": .required(.ref(DisplayAmount.self), "The price, in the quote currency."),
            "size": .required(.ref(DisplayAmount.self), "The size, in the base currency."),
            "side": .optional(.string, "`buy` or `sell` (the taker's side), when the exchange says."),
            "time": .required(.string, "When it traded, ISO 8601."),
            "timeText": .required(.string, "When it traded, for the reader's locale."),
        ])
    }
}

extension DepthLadder: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One market's order book as a depth ladder: the best bids and asks with their cumulative sizes and a depth bar, the spread, the exchange's sequence and the feed, and the last trades.", [
            "feed": .required(.string, "The feed the book came from, e.g. `bitso-ws`."),
            "market": .required(.string, "The market, e.g. `BTC-MXN`."),
            "name": .required(.string, "The name shown, e.g. \"BTC MXN\"."),
            "base": .required(.string, "The currency traded, e.g. \"BTC\": sizes are in it."),
            "quote": .required(.string, "The currency prices are in, e.g. \"MXN\"."),
            "sequence": .required(.integer, "The exchange's sequence number of the book."),
            "bids": .required(.array(.ref(DepthLadder.Level.self)), "The bids, best (highest) first."),
            "asks": .required(.array(.ref(DepthLadder.Level.self)), "The asks, best (lowest) first."),
            "spread": .optional(.ref(DisplayAmount.self), "Best ask minus best bid, in the quote currency; nil when a side is empty."),
            "spreadPercent": .optional(.ref(DisplayAmount.self), "The spread in percent of the mid price; nil when a side is empty."),
            "trades": .required(.array(.ref(DepthLadder.Trade.self)), "The last trades, newest first."),
            "dataAge": .optional(.ref(DataAge.self), "How old the book is, when the exchange timed it."),
        ])
    }
}

extension DepthChoice: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A book the Books screen can show the ladder of: its feed and market.", [
            "feed": .required(.string, "The feed, e.g. `bitso-ws`."),
            "market": .required(.string, "The market, e.g. `BTC-MXN`."),
        ])
    }
}

extension BooksView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The exchange's books (Bitso): each named \"BTC MXN\", its maximum price highlighted, min/max order value beside it; and the live depth ladder of one market's order book, from any feed that publishes `book.<feed>.<BASE>-<QUOTE>`.", [
            "screen": .required(.constant("books"), "Which screen this is (`books`): what a client reads to know the view's shape."),
            "rows": .required(.array(.ref(BooksView.Row.self)), "The books, in the order given."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "No single display currency: each book is in its quote currency."),
            "notices": .required(.array(.string), "Messages to show: feed trouble, stale data."),
            "dataAge": .optional(.ref(DataAge.self), "How old the book list is, when known."),
            "depth": .optional(.ref(DepthLadder.self), "The depth ladder of the chosen order book, when any feed publishes one."),
            "depthChoices": .required(.array(.ref(DepthChoice.self)), "Every order book a ladder can be shown of, by feed and market."),
        ])
    }
}

extension ChartData.Point: JSONSchemaDescribable {
    public static var schemaName: String? { "ChartDataPoint" }
    public static var jsonSchema: JSONSchema {
        .object("One point of the history.", [
            "time": .required(.string, "When, ISO 8601 UTC."),
            "label": .required(.string, "When, for the reader: date and time, e.g. \"Jun 15, 2025 at 3:06 PM\"."),
            "day": .required(.string, "The day alone, short, e.g. \"Jun 15\"."),
            "tick": .optional(.string, "Its label on the time axis: the day, or the time of day (\"3:06 PM\") when the whole chart spans at most 26 hours. A presenter older than it leaves it out: then the day."),
            "price": .required(.ref(DisplayAmount.self), "The price then."),
        ])
    }
}

extension ChartData: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("A price history ready to draw: every point with its time and formatted price, and the extremes.", [
            "currency": .required(.currency, "The currency of every price."),
            "points": .required(.array(.ref(ChartData.Point.self)), "Every point, oldest first."),
            "min": .required(.ref(ChartData.Point.self), "The point with the lowest price (the first such)."),
            "max": .required(.ref(ChartData.Point.self), "The point with the highest price (the first such)."),
            "first": .required(.ref(ChartData.Point.self), "The oldest point."),
            "last": .required(.ref(ChartData.Point.self), "The newest point."),
            "change": .optional(.ref(DisplayAmount.self), "The change from first to last in percent, when it can be computed (the first price is not zero)."),
            "candlesFrom": .optional(.ref(ChartData.Point.self), "The first point of stored candles after older history points (backfilled or mock), the join the chart marks; absent when the points are of one kind."),
        ])
    }
}

extension CoinView.Supply: JSONSchemaDescribable {
    public static var schemaName: String? { "CoinViewSupply" }
    public static var jsonSchema: JSONSchema {
        .object("How many units exist.", [
            "circulating": .optional(.ref(DisplayAmount.self), "Units in circulation."),
            "total": .optional(.ref(DisplayAmount.self), "Units that exist."),
            "max": .optional(.ref(DisplayAmount.self), "Units that can ever exist."),
        ])
    }
}

extension CoinView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One coin in detail: price, change, market data, a 30-day chart and the user's holding of it.", [
            "screen": .required(.constant("coin"), "Which screen this is (`coin`): what a client reads to know the view's shape."),
            "symbol": .required(.string, "Ticker symbol, e.g. \"BTC\"."),
            "name": .required(.string, "Display name."),
            "image": .optional(.string, "Logo URL, if known."),
            "price": .optional(.ref(DisplayAmount.self), "The price in the display currency, or nil when there is none."),
            "priceText": .required(.string, "What the price says: the formatted price, or \"no price\"."),
            "change24h": .optional(.ref(DisplayAmount.self), "The 24 h change as a signed percentage, if known."),
            "trend": .optional(.ref(Trend.self), "Which way the 24 h change went."),
            "marketCap": .optional(.ref(DisplayAmount.self), "Market capitalisation in the display currency (whole units)."),
            "rank": .optional(.integer, "Rank by market capitalisation, 1 the largest."),
            "volume": .optional(.ref(DisplayAmount.self), "Value traded in 24 hours in the display currency (whole units), or else units of the coin traded."),
            "high24h": .optional(.ref(DisplayAmount.self), "Highest price in 24 hours."),
            "low24h": .optional(.ref(DisplayAmount.self), "Lowest price in 24 hours."),
            "allTimeHigh": .optional(.ref(DisplayAmount.self), "Highest price ever."),
            "ask": .optional(.ref(DisplayAmount.self), "The best price a seller is asking."),
            "bid": .optional(.ref(DisplayAmount.self), "The best price a buyer is bidding."),
            "marketNote": .optional(.string, "How the market data came into the display currency, e.g. \"MXN → USD via ECB rate of 2026-11-24\"; nil when the source quotes it in the display currency."),
            "supply": .required(.ref(CoinView.Supply.self), "Circulating, total and maximum supply (whole units)."),
            "chart": .optional(.ref(ChartData.self), "The price history to draw, when there is one in the display currency."),
            "chartNote": .optional(.string, "How the history came into the display currency (converted from the source's, at which rate); nil when the source has it in the display currency."),
            "tradePrices": .required(.map(.money), "The price the trade form suggests, by currency: the coin's own current price in each display currency."),
            "holding": .optional(.ref(HoldingRow.self), "The user's holding of the coin in `portfolio`, if any."),
            "portfolio": .optional(.string, "The portfolio the holding is of and the trade form adds to, e.g. \"main\" (absent in a view from a presenter of one portfolio, which was \"main\")."),
            "watched": .required(.boolean, "Whether the coin is on the watch list."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "The display currency."),
            "notices": .required(.array(.string), "Messages to show: missing or stale data, feed trouble."),
            "dataAge": .optional(.ref(DataAge.self), "The age of the price shown, when known."),
        ])
    }
}

extension CoinsView.Row: JSONSchemaDescribable {
    public static var schemaName: String? { "CoinsViewRow" }
    public static var jsonSchema: JSONSchema {
        .object("One coin.", [
            "symbol": .required(.string, "Ticker symbol, e.g. \"BTC\"."),
            "name": .required(.string, "Display name."),
            "image": .optional(.string, "Logo URL, if known."),
            "price": .optional(.ref(DisplayAmount.self), "The price in the display currency, or nil when there is none."),
            "priceText": .required(.string, "What the price cell says: the formatted price, or \"no price\"."),
            "change24h": .optional(.ref(DisplayAmount.self), "The 24 h change as a signed percentage, if known."),
            "trend": .optional(.ref(Trend.self), "Which way the 24 h change went."),
            "watched": .required(.boolean, "Whether the coin is on the watch list."),
            "priceTime": .optional(.string, "When the price was quoted, ISO 8601, if known."),
            "tracked": .optional(.boolean, "Whether rates-fetcher polls the coin on CoinGecko, so it can be removed from the list (nil: not said)."),
        ])
    }
}

extension CoinsView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The coin list: name, price in the display currency (USD by default, SEK switchable) and 24 h change.", [
            "screen": .required(.constant("coins"), "Which screen this is (`coins`): what a client reads to know the view's shape."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "The display currency, e.g. \"USD\"."),
            "rows": .required(.array(.ref(CoinsView.Row.self)), "The coins, in the order given."),
            "notices": .required(.array(.string), "Messages to show above the list: missing and stale prices, feed trouble."),
            "dataAge": .optional(.ref(DataAge.self), "The age of the oldest price shown, when known."),
            "suggestions": .optional(.array(.ref(KnownCoin.self)), "Coins CoinGecko lists that are not tracked yet, to suggest in the add box (nil: none offered)."),
        ])
    }
}

extension DataAge: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("How old a view's data is: when it was current and how long ago that was.", [
            "asOf": .required(.string, "When the data was current, ISO 8601 UTC, e.g. \"2025-06-15T15:06:40Z\"."),
            "asOfText": .required(.string, "The same moment for the reader's locale, e.g. \"15. Juni 2025, 15:06\"."),
            "seconds": .required(.integer, "Whole seconds between `asOf` and the view's making (0 if `asOf` lies ahead)."),
            "text": .required(.string, "The age for people: \"40 s\", \"5 min\", \"3 h\", \"2 days\"."),
        ])
    }
}

extension DisplayAmount: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("An amount as a client shows it: the exact value, the text formatted for the reader's locale, and its currency. `raw` is the exact decimal before rounding for display, so a client can format it again.", [
            "raw": .required(.string, "The exact decimal value, e.g. \"70187.12345678\"."),
            "text": .required(.string, "The value formatted for the locale, e.g. \"$70,187.12\" or \"+3,13 %\"."),
            "currency": .optional(.currency, "The currency code, or nil for a plain number or a percentage."),
        ])
    }
}

extension ErrorView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("What a screen shows when its data is unavailable: the message and how old the last good data is.", [
            "screen": .required(.constant("error"), "Which screen this is (`error`): what a client reads to know the view's shape."),
            "title": .required(.string, "The screen's title, e.g. \"Books\"."),
            "message": .required(.string, "What went wrong, for people, e.g. \"The exchange is unreachable.\""),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "The display currency."),
            "notices": .required(.array(.string), "More messages, e.g. feed status."),
            "dataAge": .optional(.ref(DataAge.self), "How old the last good data is, when there was any."),
            "dataAgeText": .required(.string, "The data age for people: \"Last good data: 12 min ago (…)\" or \"No data has arrived yet.\""),
        ])
    }
}

extension HoldingRow: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("What the user holds of one asset, as the portfolio and coin screens show it.", [
            "asset": .required(.string, "The asset, e.g. \"BTC\"."),
            "amount": .required(.ref(DisplayAmount.self), "Units held, with the asset's digits (8 for crypto)."),
            "trades": .required(.integer, "How many trades make it up."),
            "price": .optional(.ref(DisplayAmount.self), "The price per unit used, if known."),
            "value": .optional(.ref(DisplayAmount.self), "The value (amount × price), if the price is known."),
            "cost": .optional(.ref(DisplayAmount.self), "What the trades cost, if every one could be converted."),
            "gain": .optional(.ref(DisplayAmount.self), "Value less cost with its sign (\"+$120.00\"), when both are known."),
            "trend": .optional(.ref(Trend.self), "Which way the gain went."),
            "priceTime": .optional(.string, "When the price was last updated, ISO 8601, if known."),
        ])
    }
}

extension PortfolioView.TradeRow: JSONSchemaDescribable {
    public static var schemaName: String? { "PortfolioViewTradeRow" }
    public static var jsonSchema: JSONSchema {
        .object("One activity (trade).", [
            "id": .required(.string, "The trade's id."),
            "kind": .optional(.string, "What it does: `buy`, `sell`, `fee`, `transfer_in` or `transfer_out` (a buy when absent)."),
            "kindText": .optional(.string, "What it does, for the reader: \"Buy\", \"Transfer in\"."),
            "asset": .required(.string, "The asset concerned, e.g. \"BTC\"."),
            "amount": .required(.ref(DisplayAmount.self), "Units, with the asset's digits."),
            "price": .required(.ref(DisplayAmount.self), "Price per unit, in the trade's currency."),
            "fee": .optional(.ref(DisplayAmount.self), "The fee paid (a fee activity's amount), in its currency."),
            "date": .required(.string, "When it happened, ISO 8601 UTC."),
            "dateText": .required(.string, "When it happened, for the reader: \"15. Juni 2025\" (de_AT)."),
        ])
    }
}

extension GainsSection.Row: JSONSchemaDescribable {
    public static var schemaName: String? { "GainsSectionRow" }
    public static var jsonSchema: JSONSchema {
        .object("One asset's gains, in the display currency; a figure the portfolio could not work out is absent.", [
            "asset": .required(.string, "The asset, e.g. \"BTC\"."),
            "quantity": .required(.ref(DisplayAmount.self), "Units held now, with the asset's digits."),
            "costBasis": .optional(.ref(DisplayAmount.self), "What the units held cost."),
            "realized": .optional(.ref(DisplayAmount.self), "Realized gain, signed."),
            "realizedTrend": .optional(.ref(Trend.self), "Which way the realized gain went."),
            "unrealized": .optional(.ref(DisplayAmount.self), "Unrealized gain, signed."),
            "unrealizedTrend": .optional(.ref(Trend.self), "Which way the unrealized gain went."),
            "fees": .optional(.ref(DisplayAmount.self), "Every fee paid for it."),
        ])
    }
}

extension GainsSection: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The Portfolio screen's gains: realized and unrealized per asset and in total, by the cost basis method used.", [
            "method": .required(.string, "The cost basis method, for the reader: \"FIFO\" or \"Average cost\"."),
            "methodCode": .required(.ref(CostBasisMethod.self), "The method's wire name."),
            "rows": .required(.array(.ref(GainsSection.Row.self)), "One row per asset with an activity, sorted by asset."),
            "realized": .required(.ref(DisplayAmount.self), "The sum of the known realized gains, signed."),
            "realizedTrend": .required(.ref(Trend.self), "Which way it went."),
            "unrealized": .required(.ref(DisplayAmount.self), "The sum of the known unrealized gains, signed."),
            "unrealizedTrend": .required(.ref(Trend.self), "Which way it went."),
            "total": .required(.ref(DisplayAmount.self), "Realized and unrealized together, signed."),
            "trend": .required(.ref(Trend.self), "Which way it went."),
            "fees": .required(.ref(DisplayAmount.self), "The sum of the known fees."),
        ])
    }
}

extension PerformanceSection.Return: JSONSchemaDescribable {
    public static var schemaName: String? { "PerformanceSectionReturn" }
    public static var jsonSchema: JSONSchema {
        .object("One range's time-weighted return.", [
            "range": .required(.ref(PerformanceRange.self), "The range."),
            "twr": .optional(.ref(DisplayAmount.self), "The time-weighted return in percent, signed (\"+5.25%\"), when known."),
            "trend": .optional(.ref(Trend.self), "Which way it went."),
            "missing": .optional(.string, "Why it is unknown, when it is."),
        ])
    }
}

extension PerformanceSection: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The Portfolio screen's performance: the time-weighted return of every range and the value over the range chosen.", [
            "range": .required(.ref(PerformanceRange.self), "The range the chart shows."),
            "returns": .required(.array(.ref(PerformanceSection.Return.self)), "One return per range, in order."),
            "chart": .optional(.ref(ChartData.self), "The value over `range`, when there are points to draw."),
            "notes": .required(.array(.string), "What could not be worked out (missing price histories), as the portfolio says it."),
        ])
    }
}

extension PortfolioView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The portfolio: trades, holdings valued in the display currency, and totals; works from stored prices offline.", [
            "screen": .required(.constant("portfolio"), "Which screen this is (`portfolio`): what a client reads to know the view's shape."),
            "portfolio": .optional(.string, "The portfolio shown, e.g. \"main\" (absent in a view from a presenter of one portfolio, which showed \"main\")."),
            "portfolios": .optional(.array(.ref(PortfolioSummary.self)),
                                    "Every portfolio to switch to, \"main\" first (the portfolio's `portfolios.list`); absent when it could not be listed."),
            "trades": .required(.array(.ref(PortfolioView.TradeRow.self)), "The trades, newest first."),
            "holdings": .required(.array(.ref(HoldingRow.self)), "One row per asset held, in the valuation's order."),
            "totalValue": .required(.ref(DisplayAmount.self), "The sum of the known values."),
            "totalCost": .required(.ref(DisplayAmount.self), "The sum of the known costs."),
            "totalGain": .required(.ref(DisplayAmount.self), "Total value less total cost, with its sign."),
            "trend": .required(.ref(Trend.self), "Which way the total gain went."),
            "gains": .optional(.ref(GainsSection.self), "Realized and unrealized gains per asset and in total, when the portfolio could work them out."),
            "performance": .optional(.ref(PerformanceSection.self), "The time-weighted returns and the value chart, when the portfolio could work them out."),
            "offline": .required(.boolean, "Whether the converter is unreachable and stored prices were used."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "The valuation currency."),
            "notices": .required(.array(.string), "Messages to show: offline and stale prices, what could not be valued."),
            "dataAge": .optional(.ref(DataAge.self), "The age of the oldest price used, when known."),
        ])
    }
}

extension ProductView.TransactionRow: JSONSchemaDescribable {
    public static var schemaName: String? { "ProductViewTransactionRow" }
    public static var jsonSchema: JSONSchema {
        .object("One transaction.", [
            "original": .required(.ref(DisplayAmount.self), "The amount as sold, in its currency."),
            "converted": .required(.ref(DisplayAmount.self), "The amount in the total's currency, rounded half-even to its minor units."),
            "path": .required(.array(.string), "The currencies the rate went through, from the sale's to the total's."),
            "pathText": .required(.string, "The path for people: \"AUD → CAD → EUR\"; \"—\" when no conversion was needed."),
        ])
    }
}

extension ProductView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("One GNB product: each transaction in its own currency and converted, with the rate path, and the total.", [
            "screen": .required(.constant("product"), "Which screen this is (`product`): what a client reads to know the view's shape."),
            "sku": .required(.string, "The SKU, e.g. \"T2006\"."),
            "transactions": .required(.array(.ref(ProductView.TransactionRow.self)), "The transactions, in the order given."),
            "total": .required(.ref(DisplayAmount.self), "The sum of the rounded conversions: the `#total`."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "The total's currency, e.g. \"EUR\"."),
            "notices": .required(.array(.string), "Messages to show."),
            "dataAge": .optional(.ref(DataAge.self), "How old the rates and transactions are, when known."),
        ])
    }
}

extension ProductsView.Row: JSONSchemaDescribable {
    public static var schemaName: String? { "ProductsViewRow" }
    public static var jsonSchema: JSONSchema {
        .object("One product.", [
            "sku": .required(.string, "The SKU, e.g. \"T2006\"."),
            "transactions": .required(.integer, "How many transactions it has."),
        ])
    }
}

extension ProductsView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The GNB products: each SKU and how many transactions it has.", [
            "screen": .required(.constant("products"), "Which screen this is (`products`): what a client reads to know the view's shape."),
            "rows": .required(.array(.ref(ProductsView.Row.self)), "The products, in the order given."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "The currency product totals are shown in."),
            "notices": .required(.array(.string), "Messages to show."),
            "dataAge": .optional(.ref(DataAge.self), "How old the transaction list is, when known."),
        ])
    }
}

extension Trend: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .enumeration(["up", "down", "flat"], "Which way a figure moved, for colouring: judged on the value as displayed, so \"0.00 %\" is flat.")
    }
}

extension ViewRequest: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("`view {screen, locale?, currency?, filter?, scope?, symbol?, book?, sku?, range?, portfolio?}` over REP.", [
            "screen": .required(.string, "assets, wallets, coins, coin, portfolio, books, book, products or product."),
            "locale": .optional(.string, "A locale such as `de_AT` (default en_US)."),
            "currency": .optional(.currency, "The display currency (default USD)."),
            "filter": .optional(.string, "The assets filter: all, crypto, commodity, fiat."),
            "scope": .optional(.string, "The coins scope: all or watchlist."),
            "symbol": .optional(.string, "The coin of the `coin` screen."),
            "book": .optional(.string, "The book of the `book` screen, e.g. `btc_mxn`."),
            "sku": .optional(.string, "The product of the `product` screen."),
            "range": .optional(.string, "The performance range of the `portfolio` screen: 1D, 7D, 30D, YTD, 1Y or Max (the default)."),
            "portfolio": .optional(.string, "The portfolio of the `portfolio` and `coin` screens (`main` when absent)."),
        ])
    }
}

extension WalletsView.Row: JSONSchemaDescribable {
    public static var schemaName: String? { "WalletsViewRow" }
    public static var jsonSchema: JSONSchema {
        .object("One wallet.", [
            "id": .required(.string, "The wallet's id."),
            "name": .required(.string, "Its name, e.g. \"BTC Wallet\"."),
            "symbol": .required(.string, "The asset's symbol, e.g. \"BTC\"."),
            "assetName": .required(.string, "The asset's name, e.g. \"Bitcoin\"."),
            "iconLight": .required(.string, "The asset's icon for light backgrounds, on the presenter."),
            "iconDark": .required(.string, "The asset's icon for dark backgrounds, on the presenter."),
            "balance": .required(.ref(DisplayAmount.self), "The balance with the wallet's precision and the asset's symbol, e.g. \"BTC 2.2691\"."),
            "isDefault": .required(.boolean, "Whether it is the default wallet of its asset."),
            "isFiat": .required(.boolean, "Whether it holds a fiat currency (shown apart from the others)."),
        ])
    }
}

extension WalletsView.Group: JSONSchemaDescribable {
    public static var schemaName: String? { "WalletsViewGroup" }
    public static var jsonSchema: JSONSchema {
        .object("The wallets of one kind.", [
            "kind": .required(.ref(AssetKind.self), "Fiat, cryptocoin or commodity."),
            "title": .required(.string, "The heading, e.g. \"Fiat wallets\"."),
            "rows": .required(.array(.ref(WalletsView.Row.self)), "Its wallets, largest balance first."),
        ])
    }
}

extension WalletsView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .object("The wallets screen: every wallet the user has not deleted, grouped fiat / crypto / commodity.", [
            "screen": .required(.constant("wallets"), "Which screen this is (`wallets`): what a client reads to know the view's shape."),
            "locale": .required(.string, "The reader's locale."),
            "currency": .optional(.currency, "No single display currency: each balance is in its own asset."),
            "groups": .required(.array(.ref(WalletsView.Group.self)), "Fiat, crypto and commodity wallets, in that order; a group may be empty."),
            "notices": .required(.array(.string), "Messages to show above the list."),
            "dataAge": .optional(.ref(DataAge.self), "How old the masterdata is, when known."),
        ])
    }
}

extension ScreenView: JSONSchemaDescribable {
    public static var jsonSchema: JSONSchema {
        .oneOf([
            .ref(AssetsView.self), .ref(WalletsView.self), .ref(CoinsView.self), .ref(CoinView.self), .ref(PortfolioView.self),
            .ref(BooksView.self), .ref(BookView.self), .ref(ProductsView.self), .ref(ProductView.self),
            .ref(ErrorView.self),
        ], "Any screen's view, told apart by its `screen` member (`error` is what a failed screen shows instead).")
    }
}
