import ChildProcesses
import Foundation

/// The `ip` command, and what goes wrong running it.
enum NetworkTool {
    struct Failure: Error, CustomStringConvertible {
        let command: String
        let output: String
        var description: String { "`ip \(command)` failed: \(output)" }
    }

    /// Where `ip` is installed.
    static func ip() throws -> URL {
        let found = ["/usr/sbin/ip", "/sbin/ip", "/usr/bin/ip", "/bin/ip"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let found else { throw Failure(command: "", output: "ip (iproute2) is not installed") }
        return URL(fileURLWithPath: found)
    }

    /// Runs `ip arguments…`; throws with its output when it fails.
    @discardableResult
    static func run(_ arguments: String...) async throws -> String {
        let (status, output) = try await ChildProcess.run(try ip().path, arguments)
        guard status == 0 else { throw Failure(command: arguments.joined(separator: " "), output: output) }
        return output
    }
}

/// A bridge and network namespaces joined to it by veth pairs, made for one test with names of its own
/// (`tw<id>…`) on a /24 of 10.77.0.0/16 no route uses yet; ``remove()`` deletes all of it.
///
/// The bridge has address `.1`, so the test, in its own namespace, reaches every host; each host has
/// `.2`, `.3`, … on its end of a veth pair whose other end is on the bridge.
final class TestNetwork: @unchecked Sendable {
    // @unchecked: `hosts` changes only in the test that owns this value.
    let id: String
    let subnet: Int
    var bridge: String { "twb\(id)" }
    private(set) var hosts: [String: Int] = [:]

    /// Makes the bridge; nil, with the reason, where `ip netns` is missing or not permitted.
    static func make() async -> (network: TestNetwork?, reason: String?) {
        let id = String(UUID().uuidString.lowercased().filter(\.isHexDigit).prefix(6))
        do {
            let probe = "tw\(id)probe"
            try await NetworkTool.run("netns", "add", probe)
            try await NetworkTool.run("netns", "del", probe)
        } catch {
            return (nil, "\(error)")
        }
        var subnet = Int(getpid() % 200) + 20
        while subnet < 250, await Self.routed(subnet) { subnet += 1 }
        let network = TestNetwork(id: id, subnet: subnet)
        do {
            try await NetworkTool.run("link", "add", network.bridge, "type", "bridge")
            try await NetworkTool.run("addr", "add", "10.77.\(subnet).1/24", "dev", network.bridge)
            try await NetworkTool.run("link", "set", network.bridge, "up")
        } catch {
            await network.remove()
            return (nil, "\(error)")
        }
        return (network, nil)
    }

    /// Whether a route already covers 10.77.`subnet`.0/24.
    private static func routed(_ subnet: Int) async -> Bool {
        (try? await NetworkTool.run("route", "show", "10.77.\(subnet).0/24"))?.isEmpty == false
    }

    private init(id: String, subnet: Int) {
        self.id = id
        self.subnet = subnet
    }

    /// The address of host `index` (2…254).
    func address(_ index: Int) -> String { "10.77.\(subnet).\(index)" }
    /// The namespace of host `name`.
    func namespace(_ name: String) -> String { "tw\(id)-\(name)" }
    /// The bridge's end of host `index`'s veth pair.
    func hostLink(_ index: Int) -> String { "twh\(id)\(index)" }

    /// Makes namespace `name` with `address(index)`, joined to the bridge.
    func addHost(_ name: String, index: Int) async throws {
        let namespace = namespace(name), outside = hostLink(index), inside = "twn\(id)\(index)"
        try await NetworkTool.run("netns", "add", namespace)
        hosts[namespace] = index
        try await NetworkTool.run("link", "add", outside, "type", "veth", "peer", "name", inside)
        try await NetworkTool.run("link", "set", inside, "netns", namespace)
        try await NetworkTool.run("link", "set", outside, "master", bridge)
        try await NetworkTool.run("link", "set", outside, "up")
        try await NetworkTool.run("-n", namespace, "link", "set", "lo", "up")
        try await NetworkTool.run("-n", namespace, "addr", "add", "\(address(index))/24", "dev", inside)
        try await NetworkTool.run("-n", namespace, "link", "set", inside, "up")
    }

    /// Takes host `index`'s link down (`up: false`) or up again.
    func setLink(_ index: Int, up: Bool) async throws {
        try await NetworkTool.run("link", "set", hostLink(index), up ? "up" : "down")
    }

    /// Deletes every namespace (their veth pairs go with them) and the bridge; what is already gone is skipped.
    func remove() async {
        for (namespace, index) in hosts {
            _ = try? await NetworkTool.run("link", "del", hostLink(index))
            _ = try? await NetworkTool.run("netns", "del", namespace)
        }
        hosts = [:]
        _ = try? await NetworkTool.run("link", "del", bridge)
    }
}
