import ArgumentParser
import Bus
import Foundation

/// `tickwire-keys`: makes a stack's CURVE certificates.
@main
struct KeysCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tickwire-keys",
        abstract: "Makes the CURVE certificates of a Tickwire stack (the layout of pyzmq's zmq.auth and CZMQ).",
        version: buildVersion,
        subcommands: [Generate.self])

    /// `tickwire-keys generate DIR`.
    struct Generate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Writes DIR/public/<name>.key and DIR/private/<name>.key_secret for every service and named client; "
                + "the presenter and the named writers also go into DIR/writers/. Existing certificates are kept.")

        @Argument(help: "the keys directory")
        var directory: String
        @Option(help: "clients that may read, comma-separated (e.g. alice,grafana)")
        var clients: String = ""
        @Option(help: "clients that may also change state (trades, watch list, refresh, a plugin's methods), comma-separated")
        var writers: String = ""
        @Option(help: "the services, comma-separated")
        var services: String = "rates-fetcher,converter,portfolio,presenter,tickwire-proxy"
        @Option(name: .customLong("service"), help: ArgumentHelp(
            "one more service with a certificate of its own, e.g. a plugin (repeatable)", valueName: "name"))
        var extraServices: [String] = []

        func run() throws {
            let url = URL(fileURLWithPath: directory)
            let writerClients = names(writers)
            let allServices = names(services) + extraServices.flatMap(names)
            let made = try KeyDirectory.generate(
                at: url, services: allServices, clients: names(clients) + writerClients,
                writers: (allServices.contains("presenter") ? ["presenter"] : []) + writerClients)
            for name in made.keys.sorted() {
                print("\(name): \(made[name]!.publicKey)")
            }
            print("keys in \(url.path): start each service with --keys \(url.path) (or TICKWIRE_KEYS=\(url.path)); "
                + "give a client its private/<name>.key_secret and public/<service>.key")
        }

        private func names(_ list: String) -> [String] {
            list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
    }
}
