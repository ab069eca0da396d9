import AsyncHTTPClient
import Foundation
import Logging

extension FiatHistoryClient {
    /// Frankfurter's ECB series, `GET {baseURL}/{start}..{end}?from={base}`; `http` is the caller's to shut down.
    public static func live(
        http: HTTPClient, baseURL: URL, base: String = "EUR", timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "tickwire.feeds.fiat-history")
    ) -> Self {
        let feed = HTTPFeed(http: http, source: "frankfurter", timeout: timeout, logger: logger)
        return Self(history: { start, end in
            let url = try HTTPFeed.endpoint(baseURL, "/\(start.iso)..\(end.iso)", [("from", base)])
            return try await feed.get(url) { data, origin throws(FeedError) in
                var history = try FiatHistoryWire.frankfurter(from: data, origin: origin, base: base)
                history.start = start.iso
                history.end = end.iso
                return history
            }
        })
    }
}
