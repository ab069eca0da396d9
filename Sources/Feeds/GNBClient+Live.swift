import AsyncHTTPClient
import Foundation
import Logging

extension GNBClient {
    /// The GNB service at `baseURL`; `http` is the caller's to shut down. The format is chosen by the `Accept` header.
    public static func live(
        http: HTTPClient, baseURL: URL, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "tickwire.feeds.gnb")
    ) -> Self {
        let feed = HTTPFeed(http: http, source: "gnb", timeout: timeout, logger: logger)
        return Self(
            rates: {
                try await feed.get(HTTPFeed.endpoint(baseURL, "/rates")) {
                    data, url throws(FeedError) in try GNBWire.rates(from: data, origin: url)
                }
            },
            transactions: {
                try await feed.get(HTTPFeed.endpoint(baseURL, "/transactions")) {
                    data, url throws(FeedError) in try GNBWire.transactions(from: data, origin: url)
                }
            }
        )
    }
}
