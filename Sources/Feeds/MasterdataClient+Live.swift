import AsyncHTTPClient
import Foundation
import Logging

extension MasterdataClient {
    /// The masterdata file served at `url`; `http` is the caller's to shut down.
    public static func live(
        http: HTTPClient, url: URL, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "tickwire.feeds.masterdata")
    ) -> Self {
        let feed = HTTPFeed(http: http, source: "masterdata", timeout: timeout, logger: logger)
        return Self(load: {
            try await feed.get(url) { data, origin throws(FeedError) in
                try MasterdataWire.masterdata(from: data, origin: origin)
            }
        })
    }
}
