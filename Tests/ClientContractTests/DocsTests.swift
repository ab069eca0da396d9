import ChildProcesses
import Foundation
import PresenterViews
import Testing
import TickwireClients
import BusContract
import TickwireContract

/// docs/protocol.md, the contract and the running services list the same methods and streams.
@Suite("The protocol document matches the contract")
struct DocsTests {
    /// The document's text.
    static let document: String = {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return (try? String(contentsOf: root.appendingPathComponent("docs/protocol.md"), encoding: .utf8)) ?? ""
    }()

    /// Each service's section heading, its methods and streams in the contract, and its client's closures.
    static let services: [(name: String, methods: [AnyRPCMethod], streams: [AnyTopicSpec], client: any Sendable)] = [
        ("rates-fetcher", RatesFetcherAPI.methods, RatesFetcherAPI.streams, RatesFetcherClient.failing),
        ("converter", ConverterAPI.methods, ConverterAPI.streams, ConverterClient.failing),
        ("portfolio", PortfolioAPI.methods, PortfolioAPI.streams, PortfolioClient.failing),
        ("presenter", PresenterAPI.methods, PresenterAPI.streams, PresenterClient.failing),
    ]

    /// The first cells (`` `name` ``) of the tables in the section whose heading starts with `heading`.
    static func names(under heading: String) -> [String] {
        let lines = document.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("### \(heading)") }) else { return [] }
        let section = lines[(start + 1)...].prefix { !$0.hasPrefix("#") }
        return section.compactMap { line in
            guard line.hasPrefix("| `"), let end = line.dropFirst(3).firstIndex(of: "`") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 3)..<end])
        }
    }

    /// Every service's methods are documented under its heading (and the standard ones under "Every
    /// service"), and nothing else is.
    @Test(arguments: services.map(\.name))
    func methodsAreDocumented(service: String) throws {
        let entry = try #require(Self.services.first { $0.name == service })
        let standard = Set(StandardAPI.methods(publishes: true).map(\.name))
        #expect(Set(Self.names(under: "Every service")) == standard)
        let own = Set(entry.methods.map(\.name)).subtracting(standard)
        #expect(Set(Self.names(under: "\(service) (")) == own, "docs/protocol.md's \(service) table")
    }

    /// Every stream's topics are documented under "Topics of <service>", heartbeats under "Heartbeats".
    @Test(arguments: services.map(\.name))
    func streamsAreDocumented(service: String) throws {
        let entry = try #require(Self.services.first { $0.name == service })
        let kinds = Set(entry.streams.map(\.kind)).subtracting([StandardStreams.heartbeat.kind])
        // A table lists a service's topics, or a paragraph names its one stream in bold: **price** (`price.<ASSET>.<FIAT>`).
        let documented = Self.names(under: "Topics of \(service) (").map { String($0.prefix { $0 != "." }) }
            + Self.boldKinds(under: "Topics of \(service) (")
        #expect(Set(documented) == kinds, "docs/protocol.md's topics of \(service)")
        #expect(Self.document.contains("`heartbeat.<service>`"))
    }

    /// The kinds named in bold at the start of a paragraph: `**price** (`price.…`)`.
    static func boldKinds(under heading: String) -> [String] {
        let lines = document.components(separatedBy: "\n")
        guard let start = lines.firstIndex(where: { $0.hasPrefix("### \(heading)") }) else { return [] }
        return lines[(start + 1)...].prefix { !$0.hasPrefix("#") }.compactMap { line in
            guard line.hasPrefix("**"), let end = line.dropFirst(2).firstIndex(of: "*") else { return nil }
            return String(line[line.index(line.startIndex, offsetBy: 2)..<end].prefix { $0 != "." })
        }
    }

    /// Every method has a closure in its client, and every stream one too, besides `health`.
    @Test(arguments: services.map(\.name))
    func clientsOfferEveryMethod(service: String) throws {
        let entry = try #require(Self.services.first { $0.name == service })
        let closures = Mirror(reflecting: entry.client).children.count
        let methods = entry.methods.filter { !["metrics", "snapshot"].contains($0.name) }.count
        let streams = entry.streams.filter { $0.kind != StandardStreams.heartbeat.kind }.isEmpty ? 0 : 1
        #expect(closures == methods + streams, "\(service)'s client has a closure per method (metrics and snapshot aside) and one for its streams")
    }

    /// The running services register exactly the methods their contract declares.
    @Test func servicesRegisterTheirContract() async throws {
        try await LiveStack().use { stack in
            for (name, methods, _, _) in Self.services where stack.registered[name] != nil {
                #expect(Set(stack.registered[name] ?? []) == Set(methods.map(\.name)), "\(name) registers its contract")
            }
            #expect(Set(stack.registered.keys) == ["rates-fetcher", "converter", "portfolio", "presenter"])
        }
    }
}
