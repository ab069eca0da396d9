import Bus
import ChildProcesses
import Foundation
import Testing
import ZeroMQ

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The four services as real processes on mock feeds, each logging JSON lines at debug level (span lines included).
private final class TracedStack: @unchecked Sendable {
    let endpoints: Endpoints
    let fetcher, converter, portfolio, presenter: ServiceProcess
    let context: ZMQContext
    let presenterRPC: RPCClient
    let portfolioRPC: RPCClient
    private(set) var baseURL = URL(fileURLWithPath: "/")

    init() async throws {
        let endpoints = try Endpoints()
        self.endpoints = endpoints
        let json = ["--log-format", "json"]
        fetcher = try await ServiceProcess(
            "rates-fetcher", endpoints.fetcherArguments + ["--feeds", "mock", "--seed", "7"] + json, in: endpoints.directory)
        converter = try await ServiceProcess("converter", endpoints.converterArguments + json, in: endpoints.directory)
        portfolio = try await ServiceProcess("portfolio", endpoints.portfolioArguments + json, in: endpoints.directory)
        presenter = try await ServiceProcess("presenter", [
            "--rep", endpoints.presenterRep, "--http", "http://127.0.0.1:0",
            "--fetcher-pub", endpoints.fetcherPub, "--fetcher-rep", endpoints.fetcherRep,
            "--converter-pub", endpoints.converterPub, "--converter-rep", endpoints.converterRep,
            "--portfolio-pub", endpoints.portfolioPub, "--portfolio-rep", endpoints.portfolioRep,
        ] + json, in: endpoints.directory)
        context = try ZMQContext()
        presenterRPC = try client(context, endpoints.presenterRep)
        portfolioRPC = try client(context, endpoints.portfolioRep)
    }

    /// Waits for every service, and reads the dashboard's address from the presenter's log.
    func ready() async throws {
        try await waitUntilHealthy(portfolioRPC, portfolio, within: .seconds(90))
        try await waitUntilHealthy(presenterRPC, presenter, within: .seconds(90))
        var url: URL?
        _ = await eventually(within: .seconds(30)) {
            url = LogLine.read(presenter).first { $0.message == "dashboard listening" }?.metadata["url"].flatMap { URL(string: $0) }
            return url != nil
        }
        guard let url else { throw StackError.notReady("presenter's dashboard", presenter.log) }
        baseURL = url
    }

    /// Runs `body` with a ready stack, then stops it, also when `body` throws.
    static func with(_ body: (TracedStack) async throws -> Void) async throws {
        let stack = try await TracedStack()
        do {
            try await stack.ready()
            try await body(stack)
        } catch {
            await stack.stop()
            throw error
        }
        await stack.stop()
    }

    func stop() async {
        await presenterRPC.close()
        await portfolioRPC.close()
        for service in [presenter, portfolio, converter, fetcher] { await service.stop() }
    }
}

/// One JSON log line (`--log-format json`): its message, logger and metadata (`trace_id`, `span_id`, a span line's `name`).
private struct LogLine {
    let message: String
    let logger: String
    let metadata: [String: String]
    /// A span line's attributes (`url.query`, `rpc.method`, ...).
    let attributes: [String: String]

    /// A span line (logger `tickwire.<service>.spans`): one ended span.
    var isSpan: Bool { logger.hasSuffix(".spans") && message == "span" }
    var traceID: String? { metadata["trace_id"] }

    /// Every JSON line `service` has logged so far; other lines are skipped.
    static func read(_ service: ServiceProcess) -> [LogLine] {
        service.log.split(separator: "\n").compactMap { line in
            guard line.hasPrefix("{"),
                  let object = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let message = object["message"] as? String
            else { return nil }
            let metadata = object["metadata"] as? [String: Any] ?? [:]
            return LogLine(
                message: message, logger: object["logger"] as? String ?? "", metadata: metadata.compactMapValues { $0 as? String },
                attributes: (metadata["attributes"] as? [String: Any] ?? [:]).compactMapValues { $0 as? String })
        }
    }

    /// The trace ids of `service`'s lines that `match` accepts.
    static func traceIDs(_ service: ServiceProcess, where match: (LogLine) -> Bool = { _ in true }) -> Set<String> {
        Set(read(service).filter(match).compactMap(\.traceID))
    }
}

@Suite("one trace across the services", .serialized)
struct TraceEndToEndTests {
    /// A dashboard trade and the page it leads to each keep one trace id from the presenter through the portfolio
    /// (and for the page's valuation, whose cost is in EUR, the converter's `total`); a request's `traceparent`
    /// header is continued; and one quote's trace id from rates-fetcher's poll reaches the converter's re-pricing,
    /// the portfolio and the presenter's Server-Sent Event: one trace id in four processes' logs.
    @Test func oneTraceIDAcrossFourProcesses() async throws {
        try await TracedStack.with { stack in
            // The trade, as the coin page's form posts it: the CSRF token of the page's cookie, a cost in EUR while
            // the pages show USD. URLSession follows the redirect to the coin page, which values the holdings.
            let session = URLSession(configuration: .ephemeral)
            let (_, page) = try await session.data(from: URL(string: "/coins/BTC", relativeTo: stack.baseURL)!)
            let cookie = try #require((page as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie"))
            let token = String(try #require(cookie.split(separator: ";").first?.split(separator: "=").last))
            var form = URLRequest(url: URL(string: "/coins/BTC/trades", relativeTo: stack.baseURL)!)
            form.httpMethod = "POST"
            form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            form.setValue("tickwire_csrf=\(token)", forHTTPHeaderField: "Cookie")
            form.httpBody = Data("amount=0.5&price=30000&currency=EUR&date=2026-01-02&requestId=trace-e2e-1&csrf=\(token)".utf8)
            // BTC is tradable once its masterdata or price has come; until then the form says why, and is posted again.
            var landed: URL?
            let added = try await eventually(within: .seconds(60)) {
                let (_, response) = try await session.data(for: form)
                landed = response.url
                return response.url?.query == "added=1"
            }
            #expect(added, "the trade was not added; landed on \(String(describing: landed)); presenter's log:\n\(stack.presenter.log.suffix(3000))")

            // The POST's trace: the presenter's "trade submitted" and the portfolio's "trade added" and its trades.add span.
            var tradeTrace: String?
            _ = await eventually(within: .seconds(30)) {
                tradeTrace = LogLine.read(stack.presenter)
                    .first { $0.message == "trade submitted" && $0.metadata["requestId"] == "trace-e2e-1" }?.traceID
                return tradeTrace != nil
            }
            let trade = try #require(tradeTrace, "no 'trade submitted' line with a trace id:\n\(stack.presenter.log.suffix(3000))")
            #expect(trade.count == 32)
            #expect(await eventually(within: .seconds(30)) {
                LogLine.traceIDs(stack.portfolio) { $0.message == "trade added" }.contains(trade)
                    && LogLine.traceIDs(stack.portfolio) { $0.isSpan && $0.metadata["name"] == "trades.add" && $0.metadata["kind"] == "server" }.contains(trade)
            }, "the portfolio's trade added is not in the presenter's trace \(trade)")

            // The page the trade lands on (GET /coins/BTC?added=1): its HTTP span's trace reaches the portfolio's
            // holdings and, for the cost in EUR, the converter's total.
            var pageTrace: String?
            _ = await eventually(within: .seconds(30)) {
                pageTrace = LogLine.read(stack.presenter).first {
                    $0.isSpan && $0.metadata["kind"] == "server" && $0.attributes["url.path"] == "/coins/BTC" && $0.attributes["url.query"] == "added=1"
                }?.traceID
                return pageTrace != nil
            }
            let landing = try #require(pageTrace, "no span of the page the trade landed on:\n\(stack.presenter.log.suffix(3000))")
            #expect(await eventually(within: .seconds(30)) {
                LogLine.traceIDs(stack.portfolio) { $0.isSpan && $0.metadata["name"] == "holdings" }.contains(landing)
                    && LogLine.traceIDs(stack.converter) { $0.isSpan && $0.metadata["name"] == "total" && $0.metadata["kind"] == "server" }.contains(landing)
            }, "the coin page's trace \(landing) did not reach the portfolio's holdings and the converter's total")

            // A caller's own trace: the presenter continues a traceparent header, through the portfolio to the converter.
            let traceID = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            var portfolioPage = URLRequest(url: URL(string: "/portfolio", relativeTo: stack.baseURL)!)
            portfolioPage.setValue("00-\(traceID)-00f067aa0ba902b7-01", forHTTPHeaderField: "traceparent")
            let (_, shown) = try await session.data(for: portfolioPage)
            #expect((shown as? HTTPURLResponse)?.statusCode == 200)
            #expect(await eventually(within: .seconds(30)) {
                LogLine.traceIDs(stack.presenter).contains(traceID) && LogLine.traceIDs(stack.portfolio).contains(traceID)
                    && LogLine.traceIDs(stack.converter).contains(traceID)
            }, "the traceparent header's trace \(traceID) did not reach the presenter, portfolio and converter")

            // A bad traceparent header (version ff) is no error: the page is served, in a fresh trace.
            let badID = "4bf92f3577b34da6a3ce929d0e0e4736"
            var badlyTraced = URLRequest(url: URL(string: "/portfolio?currency=SEK", relativeTo: stack.baseURL)!)
            badlyTraced.setValue("ff-\(badID)-00f067aa0ba902b7-01", forHTTPHeaderField: "traceparent")
            let (_, served) = try await session.data(for: badlyTraced)
            #expect((served as? HTTPURLResponse)?.statusCode == 200)
            var freshSpan: LogLine?
            _ = await eventually(within: .seconds(30)) {
                freshSpan = LogLine.read(stack.presenter).first {
                    $0.isSpan && $0.metadata["kind"] == "server" && $0.attributes["url.query"] == "currency=SEK"
                }
                return freshSpan != nil
            }
            let fresh = try #require(freshSpan, "no span of the request with a bad traceparent")
            #expect(fresh.traceID != badID && fresh.traceID?.count == 32)
            #expect(fresh.metadata["parent_span_id"] == nil, "the request's span starts its own trace")
            #expect(!LogLine.traceIDs(stack.presenter).contains(badID))

            // One quote: a poll's trace in rates-fetcher, the converter's re-pricing, the portfolio's price and the SSE
            // event the presenter sends a dashboard that listens.
            let output = stack.endpoints.directory.appendingPathComponent("sse.out")
            #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
            let curl = try await ChildProcess.start(
                "curl", ["-sN", URL(string: "/events?currency=USD", relativeTo: stack.baseURL)!.absoluteString],
                output: output, error: URL(fileURLWithPath: "/dev/null"))
            var shared: Set<String> = []
            let followed = await eventually(within: .seconds(90)) {
                let polls = LogLine.traceIDs(stack.fetcher) { $0.isSpan && $0.metadata["name"] == "feed.poll" }
                let repriced = LogLine.traceIDs(stack.converter) { $0.message == "price published" }
                let received = LogLine.traceIDs(stack.portfolio) { $0.message == "price received" }
                let sent = LogLine.traceIDs(stack.presenter) { $0.message == "sse price sent" }
                shared = polls.intersection(repriced).intersection(received).intersection(sent)
                return !shared.isEmpty
            }
            curl.signal(SIGTERM)
            _ = await curl.stop()
            #expect(followed, "no quote's trace id from a rates-fetcher poll in the converter's, portfolio's and presenter's logs")
            if let quote = shared.first {
                let parents = LogLine.read(stack.converter).filter { $0.isSpan && $0.metadata["name"] == "reprice" && $0.traceID == quote }
                #expect(!parents.isEmpty && parents.allSatisfy { $0.metadata["parent_span_id"] != nil },
                        "the converter's reprice span continues the poll's trace as a child")
            }
        }
    }
}

