import ChildProcesses
import Foundation
import Testing

/// Whether `python3` imports jsonschema and pyzmq (scripts/install-deps.sh installs them into the project's venv).
let pythonHasJSONSchema: Bool = {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments = ["python3", "-c", "import jsonschema, zmq"]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { return false }
    process.waitUntilExit()
    return process.terminationStatus == 0
}()

/// What python/validate_contract.py reports.
struct ContractReport: Decodable {
    let envelopes: Int
    let snapshotEntries: Int
    let replies: Int
    let kinds: [String]
    let methods: [String]
    let failures: [String]
}

@Suite("the contract's documents against a running stack", .serialized)
struct ContractDocumentsEndToEndTests {
    /// Every stream message, snapshot entry, request and reply of a running stack (mock feeds) validates against
    /// the committed JSON Schema, AsyncAPI and OpenRPC documents with Python's jsonschema, no member left undescribed.
    @Test(.enabled(if: pythonHasJSONSchema, "python3 lacks jsonschema or pyzmq: scripts/install-deps.sh installs them into the project's venv"))
    func everyMessageAndReplyValidates() async throws {
        try await FullStack(feeds: "mock").use { stack in
            let endpoints = stack.endpoints
            let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python/validate_contract.py")
            let outputURL = endpoints.directory.appendingPathComponent("contract.out")
            let errorURL = endpoints.directory.appendingPathComponent("contract.err")
            let python = try await ChildProcess.start("python3", [
                script.path, root.appendingPathComponent("docs/contract").path, "4",
                "rates-fetcher=\(endpoints.fetcherRep),\(endpoints.fetcherPub)",
                "converter=\(endpoints.converterRep),\(endpoints.converterPub)",
                "portfolio=\(endpoints.portfolioRep),\(endpoints.portfolioPub)",
                "presenter=\(endpoints.presenterRep)",
            ], environment: ["PYTHONDONTWRITEBYTECODE": "1"], output: outputURL, error: errorURL)
            let status = await python.waitForExit(within: .seconds(120))
            if status == nil { await python.stop() }
            let output = String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self)
            let errors = (try? String(contentsOf: errorURL, encoding: .utf8)) ?? ""
            let line = try #require(output.split(separator: "\n").last, "validate_contract.py printed nothing: \(errors.suffix(2000))")
            let report = try JSONDecoder().decode(ContractReport.self, from: Data(line.utf8))
            #expect(report.failures.isEmpty, "\(report.failures.prefix(20).joined(separator: "\n"))")
            #expect(status == 0)
            #expect(report.envelopes > 10, "the streams carried \(report.envelopes) messages in 4 s")
            #expect(report.snapshotEntries > 10)
            let published: Set = ["quote", "rate", "limits", "coin", "status", "assets", "wallets", "transactions", "price", "portfolio", "heartbeat"]
            // A candle goes out only when a minute closes, which the 4 s may or may not cross.
            #expect(Set(report.kinds).subtracting(["candle"]) == published, "stream kinds seen: \(report.kinds)")
            let reads = ["health", "metrics"].flatMap { method in
                ["rates-fetcher", "converter", "portfolio", "presenter"].map { "\($0).\(method)" }
            } + ["rates-fetcher.snapshot", "converter.snapshot", "portfolio.snapshot", "rates-fetcher.history", "rates-fetcher.feeds",
                 "rates-fetcher.rates.history", "rates-fetcher.coins.list", "rates-fetcher.coins.known", "rates-fetcher.candles", "converter.convert",
                 "converter.total", "converter.rates", "converter.sources", "converter.convert.series", "portfolio.trades.list", "portfolio.portfolios.list",
                 "portfolio.holdings", "portfolio.watchlist.list", "portfolio.wallets", "portfolio.assets", "portfolio.products",
                 "portfolio.product", "portfolio.trades.history", "portfolio.gains", "portfolio.performance",
                 "portfolio.activities.export", "portfolio.watchlist.add", "presenter.view"]
            #expect(Set(report.methods) == Set(reads), "methods called: \(report.methods)")
        }
    }
}
