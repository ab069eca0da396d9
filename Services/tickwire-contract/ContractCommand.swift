import ArgumentParser
import ContractSchema
import Foundation

/// `tickwire-contract`: writes the contract as documents (JSON Schema, AsyncAPI, OpenRPC) or checks they are current.
@main
struct ContractCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tickwire-contract",
        abstract: "Writes Tickwire's contract as documents: a JSON Schema of every message, an AsyncAPI document of the "
            + "streams and an OpenRPC document of each service's methods, all made from the contract types.",
        version: buildVersion,
        subcommands: [Generate.self, Check.self])

    /// `tickwire-contract generate --out DIR`.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Writes every document under DIR, replacing what is there.")

        @Option(help: "the folder to write to")
        var out = "docs/contract"

        func run() throws {
            let root = URL(fileURLWithPath: out)
            for (path, text) in try ContractDocuments.render().sorted(by: { $0.key < $1.key }) {
                let url = root.appendingPathComponent(path)
                try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(text.utf8).write(to: url)
                print("wrote \(url.path)")
            }
        }
    }

    /// `tickwire-contract check --in DIR`.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Exits 1, naming each document, unless every document under DIR is what generate would write.")

        @Option(name: .customLong("in"), help: "the folder to check")
        var folder = "docs/contract"

        func run() throws {
            let root = URL(fileURLWithPath: folder)
            let stale = try ContractDocuments.render().sorted(by: { $0.key < $1.key }).filter { path, text in
                (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)) != text
            }
            guard stale.isEmpty else {
                for (path, _) in stale { print("\(root.appendingPathComponent(path).path) is missing or out of date") }
                print("regenerate with: swift run tickwire-contract generate --out \(folder)")
                throw ExitCode.failure
            }
            print("the documents in \(root.path) are current")
        }
    }
}
