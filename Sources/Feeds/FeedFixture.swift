import Foundation

/// The recorded API responses behind the `test` and `mock` clients (origins in `Fixtures/PROVENANCE.md`).
///
/// Public so other modules' tests can serve the same bytes from a fake API.
public enum FeedFixture: String, CaseIterable, Sendable {
    /// Bitso `GET /v3/available_books/`: six books.
    case bitsoAvailableBooks = "bitso/available_books.json"
    /// Bitso `GET /v3/available_books/` as served in February 2021: 25 books, each with the `fees` object
    /// (`flat_rate` and a volume `structure`) and `tick_size`, which Tickwire reads past.
    case bitsoAvailableBooksWithFees = "bitso/available_books_fees.json"
    /// Bitso `GET /v3/ticker/` without a book: six tickers.
    case bitsoTickers = "bitso/ticker_all.json"
    /// Bitso `GET /v3/ticker/?book=btc_mxn`.
    case bitsoTickerBTCMXN = "bitso/ticker_btc_mxn.json"
    /// WazirX `GET /sapi/v1/tickers/24hr`: four INR markets.
    case wazirxTickers = "wazirx/tickers_24hr.json"
    /// Frankfurter (ECB) `GET /latest?from=USD`.
    case frankfurterLatestUSD = "fiat/frankfurter-latest-from-USD.json"
    /// Frankfurter (ECB) `GET /2026-09-30..2026-10-02`: three days of INR and USD from EUR.
    case frankfurterTimeSeriesEUR = "fiat/frankfurter-timeseries-from-EUR.json"
    /// fixer.io `GET /latest`, base EUR.
    case fixerLatest = "fiat/fixer-latest.json"
    /// fixer.io's error body for an invalid base currency.
    case fixerErrorInvalidBase = "fiat/fixer-error-invalid_base_currency.json"
    /// CoinGecko `GET /coins/markets?vs_currency=usd`: bitcoin only.
    case coinGeckoMarkets = "coingecko/coins_markets.json"
    /// CoinGecko `GET /coins/markets?vs_currency=usd` of 2024-01-01: the top 17 coins by market cap.
    case coinGeckoTopMarkets = "coingecko/coins_markets_top17.json"
    /// CoinGecko `GET /coins/list`: its first 40 coins (ids, symbols, names).
    case coinGeckoCoinList = "coingecko/coins_list.json"
    /// CoinGecko `GET /coins/bitcoin/market_chart?vs_currency=usd`: 180 daily points.
    case coinGeckoBitcoinChart = "coingecko/market_chart_bitcoin.json"
    /// GNB `GET /rates`: the challenge statement's sample (four rates).
    case gnbRates = "gnb/rates.json"
    /// GNB `GET /transactions`: the challenge statement's sample (five transactions).
    case gnbTransactions = "gnb/transactions.json"
    /// GNB `GET /rates` as served on 2021-08-07 (six rates).
    case gnbRatesLarge = "gnb/quiet-stone-2021-08-07-rates.json"
    /// GNB `GET /transactions` as served on 2021-08-07 (5,061 transactions).
    case gnbTransactionsLarge = "gnb/quiet-stone-2021-08-07-transactions.json"
    /// Bitpanda's masterdata file.
    case masterdata = "masterdata/Masterdata.json"

    /// The file's bytes, exactly as stored.
    public func data() throws -> Data {
        guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw FeedError.notInFixtures("the Fixtures folder is missing from the Feeds bundle")
        }
        do {
            return try Data(contentsOf: folder.appendingPathComponent(rawValue))
        } catch {
            throw FeedError.notInFixtures("\(rawValue): \(error.localizedDescription)")
        }
    }

    /// Where decoding errors say the data came from.
    var origin: String { "fixture:\(rawValue)" }
}
