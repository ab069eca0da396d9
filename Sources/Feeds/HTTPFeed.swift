import AsyncHTTPClient
import Foundation
import Logging

/// The live clients' one way to fetch: GET with `Accept: application/json`, a timeout,
/// a status check and strict decoding. Errors carry the status, the URL and a body excerpt.
struct HTTPFeed: Sendable {
    /// Largest body accepted; anything bigger is a transport error.
    static let maximumBodySize = 16 * 1024 * 1024

    let http: HTTPClient
    let source: String
    let timeout: Duration
    let logger: Logger

    /// Fetches `url` and hands the body to `decode`.
    ///
    /// A non-2xx answer becomes the API's own error when `apiError` recognises the body,
    /// otherwise `.httpStatus`. `secretQueryItems` are masked in every URL that leaves this call.
    func get<T: Sendable>(
        _ url: URL,
        secretQueryItems: Set<String> = [],
        apiError: (Data, String) -> FeedError? = { _, _ in nil },
        decode: (Data, String) throws(FeedError) -> T
    ) async throws(FeedError) -> T {
        let shown = Self.redacted(url, secretQueryItems)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "tickwire")
        logger.debug("GET", metadata: ["source": "\(source)", "url": "\(shown)"])

        let (status, data) = try await fetch(request, shown: shown)
        logger.debug("response", metadata: ["url": "\(shown)", "status": "\(status)", "bytes": "\(data.count)"])

        guard (200..<300).contains(status) else {
            throw apiError(data, shown) ?? .httpStatus(code: status, url: shown, body: Wire.excerpt(data))
        }
        return try decode(data, shown)
    }

    /// Status and body of `request`, all within `timeout`. AsyncHTTPClient's own deadline ends with the
    /// response head (and reports why a connection failed), so a timer a little later bounds a stalled body.
    private func fetch(_ request: HTTPClientRequest, shown: String) async throws(FeedError) -> (Int, Data) {
        let (http, timeout) = (http, timeout)
        do {
            return try await withThrowingTaskGroup(of: (Int, Data)?.self) { group in
                group.addTask {
                    let response = try await http.execute(request, timeout: .nanoseconds(Self.nanoseconds(timeout)))
                    let body = try await response.body.collect(upTo: Self.maximumBodySize)
                    return (Int(response.status.code), Data(body.readableBytesView))
                }
                group.addTask {
                    try await Task.sleep(for: timeout + .milliseconds(100))
                    return nil
                }
                defer { group.cancelAll() }
                guard let first = try await group.next(), let answer = first else {
                    throw HTTPClientError.deadlineExceeded
                }
                return answer
            }
        } catch {
            throw Self.transportError(error, url: shown)
        }
    }

    /// Builds `base` + `path` (e.g. "/v3/ticker/") with `query` items in order.
    static func endpoint(_ base: URL, _ path: String, _ query: [(String, String)] = []) throws(FeedError) -> URL {
        let root = base.absoluteString.hasSuffix("/") ? String(base.absoluteString.dropLast()) : base.absoluteString
        guard var components = URLComponents(string: root + path) else {
            throw .transport(url: root + path, message: "not a valid URL")
        }
        if !query.isEmpty { components.queryItems = query.map { URLQueryItem(name: $0.0, value: $0.1) } }
        guard let url = components.url else { throw .transport(url: root + path, message: "not a valid URL") }
        return url
    }

    private static func redacted(_ url: URL, _ secrets: Set<String>) -> String {
        guard !secrets.isEmpty, var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        components.queryItems = components.queryItems?.map {
            secrets.contains($0.name) ? URLQueryItem(name: $0.name, value: "***") : $0
        }
        return components.string ?? url.absoluteString
    }

    private static func transportError(_ error: any Error, url: String) -> FeedError {
        if let error = error as? HTTPClientError,
            [.deadlineExceeded, .readTimeout, .connectTimeout].contains(error)
        {
            return .timedOut(url: url)
        }
        return .transport(url: url, message: String(describing: error))
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}
