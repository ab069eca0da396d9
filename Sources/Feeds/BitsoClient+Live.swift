import AsyncHTTPClient
import Foundation
import Logging
import Market

extension BitsoClient {
    /// Bitso's public API at `baseURL` (e.g. https://api.bitso.com); `http` is the caller's to shut down.
    public static func live(
        http: HTTPClient, baseURL: URL, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "tickwire.feeds.bitso")
    ) -> Self {
        let feed = HTTPFeed(http: http, source: BitsoWire.source, timeout: timeout, logger: logger)
        let apiError: @Sendable (Data, String) -> FeedError? = { data, url in BitsoWire.apiError(in: data, origin: url) }
        return Self(
            availableBooks: {
                try await feed.get(HTTPFeed.endpoint(baseURL, "/v3/available_books/"), apiError: apiError) {
                    data, url throws(FeedError) in try BitsoWire.books(from: data, origin: url)
                }
            },
            ticker: { book in
                try await feed.get(HTTPFeed.endpoint(baseURL, "/v3/ticker/", [("book", book)]), apiError: apiError) {
                    data, url throws(FeedError) in try BitsoWire.ticker(from: data, origin: url)
                }
            },
            tickers: {
                try await feed.get(HTTPFeed.endpoint(baseURL, "/v3/ticker/"), apiError: apiError) {
                    data, url throws(FeedError) in try BitsoWire.tickers(from: data, origin: url)
                }
            }
        )
    }
}
