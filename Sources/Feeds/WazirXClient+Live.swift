import AsyncHTTPClient
import Foundation
import Logging

extension WazirXClient {
    /// WazirX's public API at `baseURL` (e.g. https://api.wazirx.com); `http` is the caller's to shut down.
    public static func live(
        http: HTTPClient, baseURL: URL, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "tickwire.feeds.wazirx")
    ) -> Self {
        let feed = HTTPFeed(http: http, source: WazirXWire.source, timeout: timeout, logger: logger)
        return Self(tickers: {
            try await feed.get(
                HTTPFeed.endpoint(baseURL, "/sapi/v1/tickers/24hr"),
                apiError: { data, url in WazirXWire.apiError(in: data, origin: url) }
            ) { data, url throws(FeedError) in try WazirXWire.tickers(from: data, origin: url) }
        })
    }
}
