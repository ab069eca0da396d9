import ArgumentParser
import ProxyCore
import ServiceSupport

/// `tickwire-proxy`: libzmq's XSUB/XPUB proxy, so one publisher feeds many subscribers over one connection.
@main
struct ProxyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tickwire-proxy",
        abstract: "Fans a publisher's stream out to many subscribers through libzmq's XSUB/XPUB proxy.",
        discussion: "Subscribers connect their stream to the proxy (--bind) and still fetch snapshots from the publisher's own JSON-RPC endpoint.",
        version: buildVersion)

    @OptionGroup var options: ProxyOptions
    @OptionGroup var common: CommonOptions

    func run() async throws {
        let runtime = try Runtime.bootstrap(service: "tickwire-proxy", options: common)
        try await runtime.run(Proxy.services(options.configuration(), runtime: runtime))
    }
}
