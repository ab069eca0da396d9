import Bus
import ChildProcesses
import Foundation
import Testing
import ZeroMQ
import BusContract

/// A stack started with `--keys`, as a Python user with pyzmq meets it; and a service that will not bind a
/// non-loopback address in the clear.
@Suite("security end to end", .serialized)
struct SecurityEndToEndTests {
    /// Known readers get prices and answers, unknown and plain clients nothing, readers cannot add trades and
    /// writers can (Tests/EndToEndTests/python/secure_stack.py against rates-fetcher, converter and portfolio on
    /// loopback tcp with CURVE); through a tickwire-proxy with the same keys, the portfolio (`--stream-key
    /// converter=tickwire-proxy`) and a Python subscriber follow the converter's prices.
    @Test func pythonClientsMeetAStackWithKeys() async throws {
        let endpoints = try Endpoints()
        let keys = endpoints.directory.appendingPathComponent("keys")
        let made = try await runTool("tickwire-keys", ["generate", keys.path, "--clients", "alice", "--writers", "bob"])
        #expect(made.status == 0, "tickwire-keys: \(made.output)")
        // Ports below 32768 (libzmq's outgoing connections use the ones above), apart per run.
        let base = Int.random(in: 20_000..<31_000)
        func tcp(_ offset: Int) -> String { "tcp://127.0.0.1:\(base + offset)" }
        let (fetcherPub, fetcherRep, converterRep, converterPub, portfolioRep, portfolioPub) = (tcp(0), tcp(1), tcp(2), tcp(3), tcp(4), tcp(5))
        let (proxyPub, proxyRep) = (tcp(6), tcp(7))
        let secured = ["--keys", keys.path]
        let fetcher = try await ServiceProcess(
            "rates-fetcher", ["--pub", fetcherPub, "--rep", fetcherRep, "--ingest", tcp(8), "--feeds", "mock"] + secured, in: endpoints.directory)
        let upstreams = ["--fetcher-pub", fetcherPub, "--fetcher-rep", fetcherRep]
        let converter = try await ServiceProcess("converter", ["--rep", converterRep, "--pub", converterPub] + upstreams + secured, in: endpoints.directory)
        let proxy = try await ServiceProcess("tickwire-proxy", ["--upstream", converterPub, "--bind", proxyPub, "--rep", proxyRep] + secured,
                                       in: endpoints.directory)
        // The portfolio's prices come through the proxy, which presents its own key.
        let portfolio = try await ServiceProcess("portfolio", [
            "--rep", portfolioRep, "--pub", portfolioPub, "--converter-pub", proxyPub, "--converter-rep", converterRep,
            "--database", ":memory:", "--stream-key", "converter=tickwire-proxy",
        ] + upstreams + secured, in: endpoints.directory)
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("python/secure_stack.py")
        let result = try await runTool("python3", [script.path], environment: [
            "PYTHONPATH": root.appendingPathComponent("clients/python/src").path, "PYTHONDONTWRITEBYTECODE": "1",
            "TICKWIRE_KEYS": keys.path, "TICKWIRE_CONVERTER_PUB": converterPub, "TICKWIRE_CONVERTER_REP": converterRep,
            "TICKWIRE_PORTFOLIO_REP": portfolioRep, "TICKWIRE_PROXY_PUB": proxyPub,
        ], within: .seconds(180))
        #expect(result.status == 0, "secure_stack.py:\n\(result.output.suffix(4000))\nconverter:\n\(converter.log.suffix(2000))")
        #expect(result.output.contains("OK"), "\(result.output.suffix(500))")
        #expect(converter.log.contains("refused a peer at the handshake"), "a refused peer is logged: \(converter.log.suffix(2000))")
        // The refusals are counted; the metrics method answers a known key only.
        let context = try ZMQContext()
        let reader = try RPCClient(context: context, endpoint: converterRep, timeout: .seconds(5), retries: 1,
                                   security: try KeyDirectory(keys).clientSecurity("alice", connectingTo: "converter"))
        let metrics = try await reader.call("metrics", as: String.self)
        let refusals = { (reason: String) in metricSum(metrics, "tickwire_auth_refused_total", label: "reason", is: reason) }
        #expect(refusals("unknown-key") >= 1, "the unknown key's refusal is counted: \(metrics.suffix(3000))")
        // The plain clients' (a REQ and a SUB): `mechanism` when libzmq read their greeting, `handshake` when they hung up
        // first on seeing the server's CURVE greeting (EPIPE), as happens at random.
        #expect(refusals("mechanism") + refusals("handshake") >= 2, "the plain clients' refusals are counted: \(metrics.suffix(3000))")
        await reader.close()
        // The portfolio follows the converter's stream through the proxy: its health says the stream is up, and
        // its subscriber reads the stream's messages (a refused handshake would leave it on snapshots alone).
        let portfolioClient = try RPCClient(context: context, endpoint: portfolioRep, timeout: .seconds(5), retries: 1,
                                            security: try KeyDirectory(keys).clientSecurity("alice", connectingTo: "portfolio"))
        var (converterStream, streamed) = ("", 0.0)
        for _ in 0..<40 {
            converterStream = try await portfolioClient.call("health", as: Health.self).upstreams["converter"] ?? "missing"
            streamed = metricSum(try await portfolioClient.call("metrics", as: String.self), "tickwire_bus_received_total",
                                 label: "subscriber", is: "converter")
            if converterStream == "ok", streamed >= 10 { break }
            try await Task.sleep(for: .milliseconds(500))
        }
        #expect(converterStream == "ok", "the portfolio's converter stream through the proxy: \(converterStream)\n\(portfolio.log.suffix(2000))")
        #expect(streamed >= 10, "the portfolio read \(streamed) messages of the converter's stream through the proxy")
        await portfolioClient.close()
        #expect(await portfolio.stop() == 0)
        #expect(await proxy.stop() == 0)
        #expect(await converter.stop() == 0)
        #expect(await fetcher.stop() == 0)
    }

    /// Asked to bind every interface without keys, a service exits non-zero and says how to make keys.
    @Test func serviceRefusesANonLoopbackBindWithoutKeys() async throws {
        let endpoints = try Endpoints()
        let port = Int.random(in: 20_000..<31_000)
        let refused = try await runTool("converter", [
            "--rep", "tcp://0.0.0.0:\(port)", "--pub", endpoints.converterPub,
            "--fetcher-pub", endpoints.fetcherPub, "--fetcher-rep", endpoints.fetcherRep,
        ])
        #expect(refused.status != 0)
        #expect(refused.output.contains("refusing to bind tcp://0.0.0.0:\(port) without keys"), "\(refused.output)")
        #expect(refused.output.contains("tickwire-keys generate"), "\(refused.output)")
    }
}

/// Runs `tool` (one of the built executables, else a program on the PATH) with `arguments` and waits at most
/// `within` for it to end; its standard output and error together.
func runTool(
    _ tool: String, _ arguments: [String], environment: [String: String] = [:], within: Duration = .seconds(30)
) async throws -> (status: Int32, output: String) {
    let built = ServiceProcess.binDirectory.appendingPathComponent(tool)
    let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-tool-\(UUID().uuidString.prefix(8)).out")
    defer { try? FileManager.default.removeItem(at: outputURL) }
    let process = try await ChildProcess.start(
        FileManager.default.isExecutableFile(atPath: built.path) ? built.path : tool, arguments, environment: environment, output: outputURL)
    var status = await process.waitForExit(within: within)
    if status == nil { status = await process.stop() }
    return (status ?? -1, String(decoding: (try? Data(contentsOf: outputURL)) ?? Data(), as: UTF8.self))
}

/// The sum of the Prometheus samples of `metric` whose `label` is `value` in `text`.
private func metricSum(_ text: String, _ metric: String, label: String, is value: String) -> Double {
    text.split(separator: "\n")
        .filter { $0.hasPrefix("\(metric){") && $0.contains(#"\#(label)="\#(value)""#) }
        .compactMap { $0.split(separator: " ").last.flatMap { Double($0) } }
        .reduce(0, +)
}
