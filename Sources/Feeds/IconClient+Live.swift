import AsyncHTTPClient
import Foundation
import Logging

extension IconClient {
    /// The largest icon accepted, in bytes.
    public static let maximumIconSize = 512 * 1024

    /// Icons fetched over `http` (the caller's to shut down): any HTTP(S) URL, at most ``maximumIconSize`` bytes.
    public static func live(
        http: HTTPClient, timeout: Duration = .seconds(10), logger: Logger = Logger(label: "tickwire.feeds.icons")
    ) -> Self {
        let feed = HTTPFeed(http: http, source: "icons", timeout: timeout, logger: logger)
        return Self(icon: { url in
            guard url.scheme == "https" || url.scheme == "http" else {
                throw FeedError.transport(url: url.absoluteString, message: "only http and https icons are fetched")
            }
            return try await feed.get(url) { data, origin throws(FeedError) in
                guard data.count <= maximumIconSize else {
                    throw FeedError.malformed(url: origin, reason: "an icon of \(data.count) bytes, more than \(maximumIconSize)", body: "")
                }
                return data
            }
        })
    }
}
