import AsyncHTTPClient
import Foundation
import Logging

/// Where live fiat rates come from.
public enum FiatProvider: Sendable, Hashable {
    /// Frankfurter's ECB rates, `GET {baseURL}/latest?from={base}`; no key needed.
    case frankfurter(baseURL: URL, base: String = "EUR")
    /// fixer.io, `GET {baseURL}/latest?access_key={accessKey}`; rates from EUR on the free plan.
    case fixer(baseURL: URL, accessKey: String)
}

extension FiatClient {
    /// Live rates from `provider`; `http` is the caller's to shut down. An access key never appears in errors or logs.
    public static func live(
        http: HTTPClient, provider: FiatProvider, timeout: Duration = .seconds(10),
        logger: Logger = Logger(label: "tickwire.feeds.fiat")
    ) -> Self {
        switch provider {
        case let .frankfurter(baseURL, base):
            let feed = HTTPFeed(http: http, source: "frankfurter", timeout: timeout, logger: logger)
            return Self(latest: {
                try await feed.get(HTTPFeed.endpoint(baseURL, "/latest", [("from", base)])) {
                    data, url throws(FeedError) in try FiatWire.frankfurter(from: data, origin: url, base: base)
                }
            })
        case let .fixer(baseURL, accessKey):
            let feed = HTTPFeed(http: http, source: "fixer", timeout: timeout, logger: logger)
            return Self(latest: {
                try await feed.get(
                    HTTPFeed.endpoint(baseURL, "/latest", [("access_key", accessKey)]),
                    secretQueryItems: ["access_key"],
                    apiError: { data, url in FiatWire.fixerError(in: data, origin: url) }
                ) { data, url throws(FeedError) in try FiatWire.fixer(from: data, origin: url) }
            })
        }
    }
}
