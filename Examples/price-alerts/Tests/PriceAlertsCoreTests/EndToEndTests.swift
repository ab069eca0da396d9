import Bus
import ChildProcesses
import Foundation
import PriceAlertsAPI
import Testing
import TickwireClients
import TickwireStack
import BusContract
import Money
import TickwireContract

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where the executables of the end-to-end test are.
enum Executables {
    /// This package's folder.
    static let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    /// The main package's folder, two up.
    static let root = package.deletingLastPathComponent().deletingLastPathComponent()
    /// The main package's debug build: rates-fetcher, converter, portfolio and presenter.
    static let rootDebug = root.appendingPathComponent(".build/debug")
    /// This package's build, next to the test bundle: price-alerts.
    static let own: URL = {
        let bundle = Bundle.main.bundleURL
        for candidate in [bundle.deletingLastPathComponent(), bundle, bundle.deletingLastPathComponent().deletingLastPathComponent()]
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("price-alerts").path) {
            return candidate
        }
        return package.appendingPathComponent(".build/debug")
    }()

    /// The executables the test starts, by name.
    static let paths = [
        "rates-fetcher": rootDebug.appendingPathComponent("rates-fetcher"),
        "converter": rootDebug.appendingPathComponent("converter"),
        "portfolio": rootDebug.appendingPathComponent("portfolio"),
        "presenter": rootDebug.appendingPathComponent("presenter"),
        "price-alerts": own.appendingPathComponent("price-alerts"),
    ]

    /// Whether every one is built; when not, prints the missing ones and how to build them.
    static let ready: Bool = {
        let missing = paths.values.filter { !FileManager.default.isExecutableFile(atPath: $0.path) }.map(\.path).sorted()
        if !missing.isEmpty {
            print("price-alerts end-to-end test skipped: missing \(missing.joined(separator: ", ")) (run `swift build` in \(root.path) and here)")
        }
        return missing.isEmpty
    }()
}

/// The processes one test started: each logs to a file in the test's folder, and all are stopped
/// (SIGTERM, then SIGKILL) by ``stop()``, or killed when this is released.
final class Children: @unchecked Sendable {
    // @unchecked: only the test that owns it touches `processes`, one call at a time.
    let folder: URL
    private var processes: [String: ChildProcess] = [:]

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("price-alerts-e2e-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    deinit {
        for process in processes.values { process.signal(SIGKILL) }
    }

    /// An ipc endpoint in the folder.
    func ipc(_ name: String) -> String { "ipc://\(folder.path)/\(name)" }

    /// rates-fetcher's flags over mock feeds: its endpoints, its ingest endpoint and its coin list in the folder (not
    /// the default port a running stack holds, nor the user's state directory).
    var fetcherArguments: [String] {
        ["--feeds", "mock", "--pub", ipc("fetcher-pub"), "--rep", ipc("fetcher-rep"), "--ingest", ipc("fetcher-ingest"),
         "--state-dir", folder.path]
    }

    /// The converter's flags, following that rates-fetcher.
    var converterArguments: [String] {
        ["--rep", ipc("converter-rep"), "--pub", ipc("converter-pub"), "--fetcher-pub", ipc("fetcher-pub"), "--fetcher-rep", ipc("fetcher-rep")]
    }

    /// Starts `executable` (a path, or a name on the PATH) with `arguments` as `name`; its standard error goes to
    /// `<name>.log`, and its standard output too unless `output` names another file.
    @discardableResult
    func start(_ name: String, _ executable: String, _ arguments: [String], environment: [String: String] = [:],
               output: URL? = nil) async throws -> ChildProcess {
        let logURL = folder.appendingPathComponent("\(name).log")
        let process = try await ChildProcess.start(executable, arguments, environment: environment, output: output ?? logURL, error: logURL)
        processes[name] = process
        return process
    }

    /// Starts one of the ``Executables`` with `arguments` and `--log-level debug`.
    func start(service name: String, _ arguments: [String]) async throws {
        guard let executable = Executables.paths[name] else { throw EndToEndError("no executable named \(name)") }
        try await start(name, executable.path, arguments + ["--log-level", "debug"])
    }

    /// SIGTERM to `name`, SIGKILL after ten seconds; its exit status.
    @discardableResult
    func stop(_ name: String) async -> Int32? {
        guard let process = processes.removeValue(forKey: name) else { return nil }
        return await process.stop()
    }

    /// Stops every process, newest first, and removes the folder.
    func stop() async {
        for name in processes.keys.sorted(by: >) { await stop(name) }
        try? FileManager.default.removeItem(at: folder)
    }

    /// The end of what `name` logged, for failure messages.
    func log(_ name: String) -> String {
        String(((try? String(contentsOf: folder.appendingPathComponent("\(name).log"), encoding: .utf8)) ?? "").suffix(3000))
    }
}

/// A failure of the end-to-end set-up, said plainly.
struct EndToEndError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// The first update of `events` that `match` picks, within `timeout`.
func firstUpdate<Value: Sendable>(
    _ events: StreamEvents<Value>, within timeout: Duration, _ match: @escaping @Sendable (StreamUpdate<Value>) -> Bool
) async -> StreamUpdate<Value>? {
    await withTaskGroup(of: StreamUpdate<Value>?.self) { group in
        group.addTask {
            for await event in events {
                switch event {
                case .snapshot(let updates): if let hit = updates.first(where: match) { return hit }
                case .update(let update): if match(update) { return update }
                case .removed, .unavailable: continue
                }
            }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let first = await group.next() ?? nil
        group.cancelAll()
        return first
    }
}

@Suite("price-alerts end to end", .serialized,
       .enabled("needs rates-fetcher, converter, portfolio and presenter in the main package's .build/debug, and price-alerts here", { Executables.ready }))
struct EndToEndTests {
    /// rates-fetcher (mock feeds), the converter and price-alerts as real processes on ipc: a rule added over
    /// JSON-RPC fires on `alert.BTC.USD`, seen by a Swift subscriber and by the Python client's; the rule
    /// survives a restart of price-alerts.
    @Test func alertReachesSwiftAndPythonSubscribers() async throws {
        let children = try Children()
        do {
            try await run(children)
        } catch {
            for name in ["rates-fetcher", "converter", "price-alerts", "python"] { print("--- \(name).log\n\(children.log(name))") }
            await children.stop()
            throw error
        }
        await children.stop()
    }

    private func run(_ children: Children) async throws {
        let (converterRep, converterPub) = (children.ipc("converter-rep"), children.ipc("converter-pub"))
        let (alertsRep, alertsPub) = (children.ipc("alerts-rep"), children.ipc("alerts-pub"))
        let database = children.folder.appendingPathComponent("alerts.sqlite").path
        let alertsArguments = ["--rep", alertsRep, "--pub", alertsPub, "--converter-rep", converterRep, "--converter-pub", converterPub,
                               "--database", database]
        try await children.start(service: "rates-fetcher", children.fetcherArguments)
        try await children.start(service: "converter", children.converterArguments)
        try await children.start(service: "price-alerts", alertsArguments)

        let connection = try LiveConnection(timeout: .seconds(5), retries: 1, logger: quiet)
        let rpc = try RPCClient(context: connection.context, endpoint: alertsRep, timeout: .seconds(5), retries: 1, logger: quiet)
        try await waitUntilHealthy(rpc, children)

        let printed = children.folder.appendingPathComponent("python.out")
        let subscriber = try await children.start(
            "python", "python3",
            [Executables.package.appendingPathComponent("Tests/PriceAlertsCoreTests/python/alert_subscriber.py").path,
             alertsPub, alertsRep, "alert.BTC.USD", "30"],
            environment: ["PYTHONPATH": Executables.root.appendingPathComponent("clients/python/src").path], output: printed)
        let alerts = try PriceAlertsClient.live(connection, rep: alertsRep, pub: alertsPub).alerts()

        // The request exactly as any client would write it.
        let rule = try await rpc.call("alerts.add", params: ["asset": "BTC", "currency": "USD", "above": "1"], as: AlertRule.self)
        #expect(rule.asset == "BTC" && rule.currency == "USD" && rule.above == 1)

        let seen = try #require(await firstUpdate(alerts, within: .seconds(15)) { $0.value.ruleId == rule.id }, "no alert reached the Swift subscriber")
        #expect(seen.topic.rawValue == "alert.BTC.USD")
        #expect(seen.source == "price-alerts")
        #expect(seen.value.condition == "above" && seen.value.threshold == 1 && seen.value.price > 1)

        #expect(await eventually(within: .seconds(35)) { !subscriber.isRunning }, "the Python subscriber is still waiting")
        let line = (try? String(contentsOf: printed, encoding: .utf8)) ?? ""
        let envelope = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "python printed: \(line)")
        let data = try #require(envelope["data"] as? [String: Any])
        #expect(envelope["topic"] as? String == "alert.BTC.USD")
        #expect(data["ruleId"] as? String == rule.id)
        #expect((data["price"] as? String).flatMap { try? ExactDecimal($0) } == seen.value.price, "money is a decimal string on the wire")
        #expect(await children.stop("python") == 0)

        // A restart keeps the rule, and that it holds.
        #expect(await children.stop("price-alerts") == 0, "a clean exit on SIGTERM")
        try await children.start(service: "price-alerts", alertsArguments)
        try await waitUntilHealthy(rpc, children)
        let rules = try await rpc.call("alerts.list", as: [AlertRule].self)
        #expect(rules.map(\.id) == [rule.id])
        #expect(rules.first?.holds == true && rules.first?.lastFired != nil)
        await rpc.close()
    }

    /// Waits until price-alerts' `health` says the converter's stream is ok.
    private func waitUntilHealthy(_ rpc: RPCClient, _ children: Children) async throws {
        let healthy = await eventually(within: .seconds(60)) { try await rpc.call(StandardAPI.health).status == "ok" }
        if !healthy { throw EndToEndError("price-alerts did not become healthy") }
    }
}
