import AsyncHTTPClient
import Feeds
import Foundation
import Market
import Money
import Testing

/// How a live client fails: always a clear `FeedError`, never partial data.
@Suite struct LiveFailureTests {
    /// A 500 is an HTTP error carrying the status, the URL and the body.
    @Test func serverError() async throws {
        try await FakeAPI.serve([
            "/v3/ticker/?book=btc_mxn": .text("Internal Server Error", status: .internalServerError, contentType: "text/plain"),
        ]) { url in
            let error = await feedError { try await BitsoClient.live(http: .shared, baseURL: url).ticker("btc_mxn") }
            #expect(error == .httpStatus(
                code: 500, url: "\(url.absoluteString)/v3/ticker/?book=btc_mxn", body: "Internal Server Error"
            ))
        }
    }

    /// A server slower than the client's timeout is a timeout, reported at the client's timeout, not the server's pace.
    @Test func timeout() async throws {
        var slow = try Reply.fixture(.bitsoTickers)
        slow.delay = .seconds(6)
        try await FakeAPI.serve(["/v3/ticker/": slow]) { url in
            let clock = ContinuousClock()
            let start = clock.now
            let error = await feedError {
                try await BitsoClient.live(http: .shared, baseURL: url, timeout: .milliseconds(200)).tickers()
            }
            #expect(error == .timedOut(url: "\(url.absoluteString)/v3/ticker/"))
            #expect(clock.now - start < .seconds(5), "the client waited for the server (6 s), not for its own timeout")
        }
    }

    /// A server that sends half the body and then stalls is a timeout too, not a hang.
    @Test func stalledBody() async throws {
        var stalling = try Reply.fixture(.bitsoTickers)
        stalling.stall = .seconds(6)
        try await FakeAPI.serve(["/v3/ticker/": stalling]) { url in
            let clock = ContinuousClock()
            let start = clock.now
            let error = await feedError {
                try await BitsoClient.live(http: .shared, baseURL: url, timeout: .milliseconds(300)).tickers()
            }
            #expect(error == .timedOut(url: "\(url.absoluteString)/v3/ticker/"))
            #expect(clock.now - start < .seconds(5), "the client waited for the server (6 s), not for its own timeout")
        }
    }

    /// A body cut off half way is malformed, not a shorter list.
    @Test func truncatedJSON() async throws {
        let full = try FeedFixture.bitsoTickers.data()
        try await FakeAPI.serve(["/v3/ticker/": Reply(body: full.prefix(full.count / 2))]) { url in
            let error = await feedError { try await BitsoClient.live(http: .shared, baseURL: url).tickers() }
            guard case let .malformed(errorURL, _, body) = error else {
                Issue.record("expected .malformed, got \(String(describing: error))")
                return
            }
            #expect(errorURL == "\(url.absoluteString)/v3/ticker/")
            #expect(body.hasPrefix("{"))
        }
    }

    /// An HTML page where JSON was expected is malformed, with the page's start in the error.
    @Test func htmlInsteadOfJSON() async throws {
        let page = "<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"
        try await FakeAPI.serve(["/sapi/v1/tickers/24hr": .text(page, contentType: "text/html")]) { url in
            let error = await feedError { try await WazirXClient.live(http: .shared, baseURL: url).tickers() }
            guard case let .malformed(_, _, body) = error else {
                Issue.record("expected .malformed, got \(String(describing: error))")
                return
            }
            #expect(body.hasPrefix("<html>"))
        }
    }

    /// One bad number among many tickers fails the whole call.
    @Test func oneBadNumberFailsAll() async throws {
        let text = String(decoding: try FeedFixture.bitsoTickers.data(), as: UTF8.self)
        let broken = text.replacingOccurrences(of: #""last": "4630.00""#, with: #""last": "46,30""#)
        #expect(broken != text)
        try await FakeAPI.serve(["/v3/ticker/": .text(broken)]) { url in
            let error = await feedError { try await BitsoClient.live(http: .shared, baseURL: url).tickers() }
            guard case .malformed = error else {
                Issue.record("expected .malformed, got \(String(describing: error))")
                return
            }
        }
    }

    /// A request for a path the server does not have is an HTTP 404 error (the fake API's check works).
    @Test func unknownPath() async throws {
        try await FakeAPI.serve([:]) { url in
            let error = await feedError { try await GNBClient.live(http: .shared, baseURL: url).rates() }
            #expect(error == .httpStatus(code: 404, url: "\(url.absoluteString)/rates", body: "no route for /rates"))
        }
    }

    /// Nothing listening is an error naming the URL: a transport error, or, where a loaded machine lets the
    /// client's connection retries run into the deadline first, a timeout; never a hang or a crash.
    @Test func connectionRefused() async throws {
        let url = try #require(URL(string: "http://127.0.0.1:1"))
        let error = await feedError {
            try await GNBClient.live(http: .shared, baseURL: url, timeout: .seconds(3)).rates()
        }
        switch error {
        case let .transport(errorURL, _), let .timedOut(errorURL):
            #expect(errorURL == "http://127.0.0.1:1/rates")
        default:
            Issue.record("expected .transport or .timedOut, got \(String(describing: error))")
        }
    }
}
