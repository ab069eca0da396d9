import Bus
import Foundation
import Logging
import Testing
import ZeroMQ

#if canImport(FoundationNetworking)
import FoundationNetworking
import BusContract
#endif

/// The dashboard's coin list, read loosely.
private struct CoinRows: Decodable {
    struct Row: Decodable { let symbol: String }
    let rows: [Row]
}

@Suite("A stack spread over hosts (network namespaces)", .serialized)
struct AcrossHostsTests {
    /// Each service in a network namespace of its own, talking over real addresses (the converter's price
    /// stream reaching the presenter through tickwire-proxy on a host of its own). The converter's link goes
    /// down for 10 s and comes back: every service notices, then recovers by itself, with no process restarted.
    @Test func linkDownAndBackIsRecoveredFrom() async throws {
        let (made, reason) = await TestNetwork.make()
        guard let network = made else {
            print("skipped: the across-hosts test needs `ip netns` and the right to use it: \(reason ?? "")")
            return
        }
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-hosts-\(network.id)")
        var services: [ServiceProcess] = []
        var clients: [RPCClient] = []
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try await Self.run(on: network, in: directory, services: &services, clients: &clients)
        } catch {
            await Self.tearDown(network, directory, services, clients)
            throw error
        }
        await Self.tearDown(network, directory, services, clients)
    }

    private static func tearDown(_ network: TestNetwork, _ directory: URL, _ services: [ServiceProcess], _ clients: [RPCClient]) async {
        for client in clients { await client.close() }
        for service in services { await service.stop() }
        await network.remove()
        try? FileManager.default.removeItem(at: directory)
    }

    private static func run(on network: TestNetwork, in directory: URL, services: inout [ServiceProcess], clients: inout [RPCClient]) async throws {
        let hosts = ["rates-fetcher": 2, "converter": 3, "tickwire-proxy": 4, "portfolio": 5, "presenter": 6]
        for (name, index) in hosts.sorted(by: { $0.value < $1.value }) { try await network.addHost(name, index: index) }
        func at(_ name: String, _ port: Int) -> String { "tcp://\(network.address(hosts[name]!)):\(port)" }
        let arguments: [(String, [String])] = [
            ("rates-fetcher", ["--pub", "tcp://0.0.0.0:7101", "--rep", "tcp://0.0.0.0:7102", "--feeds", "mock", "--seed", "7"]),
            ("converter", ["--rep", "tcp://0.0.0.0:7201", "--pub", "tcp://0.0.0.0:7202",
                           "--fetcher-pub", at("rates-fetcher", 7101), "--fetcher-rep", at("rates-fetcher", 7102)]),
            ("tickwire-proxy", ["--upstream", at("converter", 7202), "--bind", "tcp://0.0.0.0:7211", "--rep", "tcp://0.0.0.0:7212"]),
            ("portfolio", ["--rep", "tcp://0.0.0.0:7301", "--pub", "tcp://0.0.0.0:7302", "--database", ":memory:",
                           "--fetcher-pub", at("rates-fetcher", 7101), "--fetcher-rep", at("rates-fetcher", 7102),
                           "--converter-pub", at("converter", 7202), "--converter-rep", at("converter", 7201)]),
            ("presenter", ["--rep", "tcp://0.0.0.0:7401", "--http", "http://0.0.0.0:8080",
                           "--fetcher-pub", at("rates-fetcher", 7101), "--fetcher-rep", at("rates-fetcher", 7102),
                           // Prices through the proxy; the converter's snapshots straight from it.
                           "--converter-pub", at("tickwire-proxy", 7211), "--converter-rep", at("converter", 7201),
                           "--portfolio-pub", at("portfolio", 7302), "--portfolio-rep", at("portfolio", 7301)]),
        ]
        // Real addresses without keys: each service is told it may bind them in the clear.
        for (name, flags) in arguments {
            services.append(try await ServiceProcess(name, flags + ["--insecure"], in: directory, namespace: network.namespace(name)))
        }
        let context = try ZMQContext()
        let rpcPorts = ["converter": 7201, "tickwire-proxy": 7212, "portfolio": 7301, "presenter": 7401]
        var rpc: [String: RPCClient] = [:]
        for (name, port) in rpcPorts {
            rpc[name] = try client(context, at(name, port))
            clients.append(rpc[name]!)
        }
        let watched = services.filter { rpcPorts[$0.name] != nil }
        for service in watched { try await waitUntilHealthy(rpc[service.name]!, service, within: .seconds(40)) }
        let processIDs = services.map(\.processIdentifier)
        let dashboard = URL(string: "http://\(network.address(hosts["presenter"]!)):8080/api/views/coins?currency=USD")!
        #expect(try await coinRows(dashboard) > 0, "the dashboard answers from its host before the outage")

        // The converter's host drops off the network for 10 s.
        let down = ContinuousClock.now
        try await network.setLink(hosts["converter"]!, up: false)
        let noticed = await eventually(within: .seconds(9)) {
            let states = await (health(rpc["tickwire-proxy"]!), health(rpc["portfolio"]!))
            return states.0 != "ok" && states.1 != "ok"
        }
        #expect(noticed, "the proxy and the portfolio should notice the converter is gone")
        try await Task.sleep(until: down + .seconds(10), clock: .continuous)
        try await network.setLink(hosts["converter"]!, up: true)

        // Everyone recovers by itself: subscribers re-synchronise, clients reconnect, no process restarted.
        for service in watched { try await waitUntilHealthy(rpc[service.name]!, service, within: .seconds(40)) }
        #expect(services.allSatisfy { $0.isRunning })
        #expect(services.map(\.processIdentifier) == processIDs)
        #expect(try await coinRows(dashboard) > 0, "the dashboard answers after the outage")

        // A subscriber elsewhere, through the proxy, gets the converter's whole state and its updates.
        let converterRPC = rpc["converter"]!
        let subscriber = try Subscriber(
            context: context, name: "across-hosts", endpoint: at("tickwire-proxy", 7211), prefixes: ["price."],
            snapshot: { try await converterRPC.call("snapshot", params: SnapshotRequest(prefix: $0), as: Snapshot.self) },
            logger: Logger(label: "test"))
        let following = Task { await subscriber.run() }
        // Stopping the subscriber finishes its events: the loop below ends after 20 s at the latest.
        let watchdog = Task {
            try? await Task.sleep(for: .seconds(20))
            following.cancel()
        }
        var snapshotTopics = 0
        for await event in subscriber.events {
            if case .snapshot(_, _, let messages) = event {
                snapshotTopics = messages.count
                break
            }
        }
        watchdog.cancel()
        following.cancel()
        #expect(snapshotTopics > 0, "a snapshot of the converter's prices for a subscriber of the proxy")
        let proxy = try #require(services.first { $0.name == "tickwire-proxy" })
        #expect(await proxy.stop() == 0, "SIGTERM stops the proxy through its control socket, and it exits cleanly")
    }
}

/// The `health` status of a service, or why it did not answer.
private func health(_ rpc: RPCClient) async -> String {
    do {
        return try await rpc.call("health", as: HealthReport.self).status
    } catch {
        return "\(error)"
    }
}

/// The number of coins the dashboard's coin list shows.
private func coinRows(_ url: URL) async throws -> Int {
    let (data, response) = try await URLSession.shared.data(from: url)
    #expect((response as? HTTPURLResponse)?.statusCode == 200)
    return try JSONDecoder().decode(CoinRows.self, from: data).rows.count
}
