import Bus
import ChildProcesses
import Foundation
import Testing
import ZeroMQ

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The four services as real processes on mock feeds, each logging JSON lines at debug level (span lines included).
private final class TracedStack: Stoppable, @unchecked Sendable {
    let endpoints: Endpoints
    let fetcher, converter, portfolio, presenter: ServiceProcess
    let context: ZMQContext
    let presenterRPC: RPCClient
    let portfolioRPC: RPCClient
    /// Each service's log, read on from where the last look ended.
    let fetcherLog, converterLog, portfolioLog, presenterLog: LogTail
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
        fetcherLog = LogTail(fetcher)
        converterLog = LogTail(converter)
        portfolioLog = LogTail(portfolio)
        presenterLog = LogTail(presenter)
        context = try ZMQContext()
        presenterRPC = try client(context, endpoints.presenterRep)
        portfolioRPC = try client(context, endpoints.portfolioRep)
    }

    /// Waits for every service, and reads the dashboard's address from the presenter's log.
    func ready() async throws {
        try await waitUntilHealthy(portfolioRPC, portfolio, within: .seconds(90))
        try await waitUntilHealthy(presenterRPC, presenter, within: .seconds(90))
        var url: URL?
        _ = await polling(within: .seconds(30)) {
            url = presenterLog.read().first { $0.message == "dashboard listening" }?.metadata["url"].flatMap { URL(string: $0) }
            return url != nil
        }
        guard let url else { throw StackError.notReady("presenter's dashboard", presenter.log) }
        baseURL = url
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

    /// The JSON line `line`, or nil when it is not one.
    static func parse(_ line: Substring) -> LogLine? {
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

/// A service's debug-level JSON log, read on from the byte where the last read ended: each line is parsed once, and
/// only the lines the test looks at (with a trace id, or the dashboard's address) are parsed at all. Read by one task.
private final class LogTail: @unchecked Sendable {
    private let url: URL
    private var offset: UInt64 = 0
    /// The end of the last read, when it ended inside a line.
    private var partial = Data()
    private var lines: [LogLine] = []

    init(_ service: ServiceProcess) { url = service.logURL }

    /// Every line of interest logged so far.
    func read() -> [LogLine] {
        guard let handle = try? FileHandle(forReadingFrom: url) else { return lines }
        defer { try? handle.close() }
        guard (try? handle.seek(toOffset: offset)) != nil, let data = try? handle.readToEnd(), !data.isEmpty else { return lines }
        offset += UInt64(data.count)
        partial.append(data)
        guard let end = partial.lastIndex(of: UInt8(ascii: "\n")) else { return lines }
        let complete = String(decoding: partial[..<end], as: UTF8.self)
        partial = Data(partial[partial.index(after: end)...])
        for line in complete.split(separator: "\n") where line.contains("\"trace_id\"") || line.contains("dashboard listening") {
            if let parsed = LogLine.parse(line) { lines.append(parsed) }
        }
        return lines
    }

    /// The trace ids of the lines that `match` accepts.
    func traceIDs(where match: (LogLine) -> Bool = { _ in true }) -> Set<String> {
        Set(read().filter(match).compactMap(\.traceID))
    }
}

/// Polls `condition` every 300 ms until it holds or `timeout` passes: the logs it reads grow by thousands of lines a second.
private func polling(within timeout: Duration, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(300))
    }
    return try await condition()
}

@Suite("one trace across the services", .serialized)
struct TraceEndToEndTests {
    /// A dashboard trade keeps one trace id from the presenter through the portfolio and back: its `portfolio.changed`
    /// reaches an open page as a `changed` event in that trace, and the page's reload (live.js's fetch with the event's
    /// `traceparent`) values the holdings, whose cost is in EUR, through the converter's `total`: one trace id in the
    /// presenter's, portfolio's and converter's logs. The page the trade lands on has its own; a request's `traceparent`
    /// header is continued; and one quote's trace id from rates-fetcher's poll reaches the converter's re-pricing,
    /// the portfolio and the presenter's Server-Sent Event: one trace id in four processes' logs.
    @Test func oneTraceIDAcrossFourProcesses() async throws {
        try await TracedStack().use { stack in
            try await stack.ready()
            // The trade, as the coin page's form posts it: the CSRF token of the page's cookie, a cost in EUR while
            // the pages show USD. URLSession follows the redirect to the coin page, which values the holdings.
            let session = URLSession(configuration: .ephemeral)
            let (_, page) = try await session.data(from: URL(string: "/coins/BTC", relativeTo: stack.baseURL)!)
            let cookie = try #require((page as? HTTPURLResponse)?.value(forHTTPHeaderField: "Set-Cookie"))
            let token = String(try #require(cookie.split(separator: ";").first?.split(separator: "=").last))
            // An open page's events (no prices), to hear of the trade's change.
            let changes = stack.endpoints.directory.appendingPathComponent("changes.out")
            #expect(FileManager.default.createFile(atPath: changes.path, contents: nil))
            let listener = try await ChildProcess.start(
                "curl", ["-sN", URL(string: "/events?currency=USD&prices=0", relativeTo: stack.baseURL)!.absoluteString],
                output: changes, error: URL(fileURLWithPath: "/dev/null"))
            let listening = await polling(within: .seconds(30)) {
                ((try? String(contentsOf: changes, encoding: .utf8)) ?? "").contains("event: changed")
            }
            #expect(listening, "the page's event stream did not start")
            var form = URLRequest(url: URL(string: "/coins/BTC/trades", relativeTo: stack.baseURL)!)
            form.httpMethod = "POST"
            form.setValue("application/x-www-form-urlencoded", forHTTPHeaderField: "Content-Type")
            form.setValue("tickwire_csrf=\(token)", forHTTPHeaderField: "Cookie")
            form.httpBody = Data("amount=0.5&price=30000&currency=EUR&date=2026-01-02&requestId=trace-e2e-1&csrf=\(token)".utf8)
            // BTC is tradable once its masterdata or price has come; until then the form says why, and is posted again.
            var landed: URL?
            let added = try await polling(within: .seconds(60)) {
                let (_, response) = try await session.data(for: form)
                landed = response.url
                return response.url?.query == "added=1"
            }
            #expect(added, "the trade was not added; landed on \(String(describing: landed)); presenter's log:\n\(stack.presenter.log.suffix(3000))")

            // The POST's trace: the presenter's "trade submitted" and the portfolio's "trade added" and its trades.add span.
            var tradeTrace: String?
            _ = await polling(within: .seconds(30)) {
                tradeTrace = stack.presenterLog.read()
                    .first { $0.message == "trade submitted" && $0.metadata["requestId"] == "trace-e2e-1" }?.traceID
                return tradeTrace != nil
            }
            let trade = try #require(tradeTrace, "no 'trade submitted' line with a trace id:\n\(stack.presenter.log.suffix(3000))")
            #expect(trade.count == 32)
            #expect(await polling(within: .seconds(30)) {
                stack.portfolioLog.traceIDs { $0.message == "trade added" }.contains(trade)
                    && stack.portfolioLog.traceIDs { $0.isSpan && $0.metadata["name"] == "trades.add" && $0.metadata["kind"] == "server" }.contains(trade)
            }, "the portfolio's trade added is not in the presenter's trace \(trade)")

            // The trade's change, told to the open page in the trade's trace; the page's reload continues it, through
            // the portfolio's holdings to the converter's total.
            var changedTrace: String?
            _ = await polling(within: .seconds(30)) {
                let events = (try? String(contentsOf: changes, encoding: .utf8)) ?? ""
                changedTrace = events.firstMatch(of: /"traceparent":"(00-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2})"/).map { String($0.1) }
                return changedTrace != nil
            }
            listener.signal(SIGTERM)
            _ = await listener.stop()
            let traceparent = try #require(changedTrace, "no changed event with a traceparent:\n\((try? String(contentsOf: changes, encoding: .utf8)) ?? "")")
            #expect(traceparent.split(separator: "-")[1] == trade, "the changed event is not in the trade's trace \(trade)")
            var reload = URLRequest(url: URL(string: "/coins/BTC", relativeTo: stack.baseURL)!)
            reload.setValue("text/html", forHTTPHeaderField: "Accept")
            reload.setValue(traceparent, forHTTPHeaderField: "traceparent")
            let (_, reloaded) = try await session.data(for: reload)
            #expect((reloaded as? HTTPURLResponse)?.statusCode == 200)
            #expect(await polling(within: .seconds(30)) {
                let told = stack.presenterLog.traceIDs { $0.message == "sse changed sent" }.contains(trade)
                let held = stack.portfolioLog.traceIDs { $0.isSpan && $0.metadata["name"] == "holdings" }.contains(trade)
                let totalled = stack.converterLog.traceIDs { $0.isSpan && $0.metadata["name"] == "total" && $0.metadata["kind"] == "server" }
                return told && held && totalled.contains(trade)
            }, "the trade's trace \(trade) did not reach the presenter's changed event, the portfolio's holdings and the converter's total")

            // The page the trade lands on (GET /coins/BTC?added=1): its HTTP span's trace reaches the portfolio's
            // holdings and, for the cost in EUR, the converter's total.
            var pageTrace: String?
            _ = await polling(within: .seconds(30)) {
                let landed = stack.presenterLog.read().first { (line: LogLine) -> Bool in
                    line.isSpan && line.metadata["kind"] == "server" && line.attributes["url.path"] == "/coins/BTC"
                        && line.attributes["url.query"] == "added=1"
                }
                pageTrace = landed?.traceID
                return pageTrace != nil
            }
            let landing = try #require(pageTrace, "no span of the page the trade landed on:\n\(stack.presenter.log.suffix(3000))")
            #expect(await polling(within: .seconds(30)) {
                stack.portfolioLog.traceIDs { $0.isSpan && $0.metadata["name"] == "holdings" }.contains(landing)
                    && stack.converterLog.traceIDs { $0.isSpan && $0.metadata["name"] == "total" && $0.metadata["kind"] == "server" }.contains(landing)
            }, "the coin page's trace \(landing) did not reach the portfolio's holdings and the converter's total")

            // A caller's own trace: the presenter continues a traceparent header, through the portfolio to the converter.
            let traceID = (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255)) }.joined()
            var portfolioPage = URLRequest(url: URL(string: "/portfolio", relativeTo: stack.baseURL)!)
            portfolioPage.setValue("00-\(traceID)-00f067aa0ba902b7-01", forHTTPHeaderField: "traceparent")
            let (_, shown) = try await session.data(for: portfolioPage)
            #expect((shown as? HTTPURLResponse)?.statusCode == 200)
            #expect(await polling(within: .seconds(30)) {
                stack.presenterLog.traceIDs().contains(traceID) && stack.portfolioLog.traceIDs().contains(traceID)
                    && stack.converterLog.traceIDs().contains(traceID)
            }, "the traceparent header's trace \(traceID) did not reach the presenter, portfolio and converter")

            // A bad traceparent header (version ff) is no error: the page is served, in a fresh trace.
            let badID = "4bf92f3577b34da6a3ce929d0e0e4736"
            var badlyTraced = URLRequest(url: URL(string: "/portfolio?currency=SEK", relativeTo: stack.baseURL)!)
            badlyTraced.setValue("ff-\(badID)-00f067aa0ba902b7-01", forHTTPHeaderField: "traceparent")
            let (_, served) = try await session.data(for: badlyTraced)
            #expect((served as? HTTPURLResponse)?.statusCode == 200)
            var freshSpan: LogLine?
            _ = await polling(within: .seconds(30)) {
                freshSpan = stack.presenterLog.read().first {
                    $0.isSpan && $0.metadata["kind"] == "server" && $0.attributes["url.query"] == "currency=SEK"
                }
                return freshSpan != nil
            }
            let fresh = try #require(freshSpan, "no span of the request with a bad traceparent")
            #expect(fresh.traceID != badID && fresh.traceID?.count == 32)
            #expect(fresh.metadata["parent_span_id"] == nil, "the request's span starts its own trace")
            #expect(!stack.presenterLog.traceIDs().contains(badID))

            // One quote: a poll's trace in rates-fetcher, the converter's re-pricing, the portfolio's price and the SSE
            // event the presenter sends a dashboard that listens.
            let output = stack.endpoints.directory.appendingPathComponent("sse.out")
            #expect(FileManager.default.createFile(atPath: output.path, contents: nil))
            let curl = try await ChildProcess.start(
                "curl", ["-sN", URL(string: "/events?currency=USD", relativeTo: stack.baseURL)!.absoluteString],
                output: output, error: URL(fileURLWithPath: "/dev/null"))
            var shared: Set<String> = []
            let followed = await polling(within: .seconds(90)) {
                let polls = stack.fetcherLog.traceIDs { $0.isSpan && $0.metadata["name"] == "feed.poll" }
                let repriced = stack.converterLog.traceIDs { $0.message == "price published" }
                let received = stack.portfolioLog.traceIDs { $0.message == "price received" }
                let sent = stack.presenterLog.traceIDs { $0.message == "sse price sent" }
                shared = polls.intersection(repriced).intersection(received).intersection(sent)
                return !shared.isEmpty
            }
            curl.signal(SIGTERM)
            _ = await curl.stop()
            #expect(followed, "no quote's trace id from a rates-fetcher poll in the converter's, portfolio's and presenter's logs")
            if let quote = shared.first {
                let parents = stack.converterLog.read().filter { $0.isSpan && $0.metadata["name"] == "reprice" && $0.traceID == quote }
                #expect(!parents.isEmpty && parents.allSatisfy { $0.metadata["parent_span_id"] != nil },
                        "the converter's reprice span continues the poll's trace as a child")
            }
        }
    }
}

