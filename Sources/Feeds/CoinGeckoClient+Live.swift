import AsyncHTTPClient
import Foundation
import Logging

extension CoinGeckoClient {
    /// CoinGecko's public API at `baseURL` (e.g. https://api.coingecko.com/api/v3); `http` is the caller's to shut down.
    public static func live(
        http: HTTPClient, baseURL: URL, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "tickwire.feeds.coingecko")
    ) -> Self {
        let feed = HTTPFeed(http: http, source: CoinGeckoWire.source, timeout: timeout, logger: logger)
        let apiError: @Sendable (Data, String) -> FeedError? = { data, url in CoinGeckoWire.apiError(in: data, origin: url) }
        return Self(
            markets: { ids, currency in
                var query = [("vs_currency", currency.lowercased())]
                if !ids.isEmpty { query.append(("ids", ids.joined(separator: ","))) }
                return try await feed.get(HTTPFeed.endpoint(baseURL, "/coins/markets", query), apiError: apiError) {
                    data, url throws(FeedError) in try CoinGeckoWire.markets(from: data, origin: url, currency: currency)
                }
            },
            history: { id, currency, days in
                var segment = CharacterSet.urlPathAllowed
                segment.remove("/")
                let path = "/coins/\(id.addingPercentEncoding(withAllowedCharacters: segment) ?? id)/market_chart"
                let query = [("vs_currency", currency.lowercased()), ("days", String(days))]
                return try await feed.get(HTTPFeed.endpoint(baseURL, path, query), apiError: apiError) {
                    data, url throws(FeedError) in
                    try CoinGeckoWire.history(from: data, origin: url, id: id, currency: currency)
                }
            },
            coinList: {
                try await feed.get(HTTPFeed.endpoint(baseURL, "/coins/list", []), apiError: apiError) {
                    data, url throws(FeedError) in try Wire.decode([CoinGeckoCoin].self, from: data, origin: url)
                }
            }
        )
    }
}
