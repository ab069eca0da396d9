import Bus
import ChildProcesses
import ConverterCore
import Foundation
import Logging
import PortfolioCore
import PortfolioEngine
import PresenterCore
import RatesFetcherCore
import ServiceLifecycle
import ServiceSupport
import Testing
import TickwireClients
import TickwireStack
import TickwireMocks
import BusContract

/// The four clients a contract assertion runs against.
struct Clients: Sendable {
    var fetcher: RatesFetcherClient
    var converter: ConverterClient
    var portfolio: PortfolioClient
    var presenter: PresenterClient
}

/// Where the clients under test come from: the real services, or their mocks.
enum Stack: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case live, mock

    var testDescription: String { rawValue }

    /// Runs `body` with this stack's clients, then stops what was started.
    func with(_ body: (Clients) async throws -> Void) async throws {
        switch self {
        case .mock:
            let fetcher = RatesFetcherClient.mock(seed: 7, interval: .milliseconds(200))
            let converter = ConverterClient.mock(fetcher: fetcher)
            let portfolio = PortfolioClient.mock(fetcher: fetcher, converter: converter)
            try await body(Clients(
                fetcher: fetcher, converter: converter, portfolio: portfolio,
                presenter: .mock(fetcher: fetcher, converter: converter, portfolio: portfolio)))
        case .live:
            try await LiveStack().use { try await body($0.clients) }
        }
    }
}

/// The four real services in this process, on ipc endpoints of a fresh folder, rates-fetcher with its
/// recorded feeds (`--feeds test`), each reached only through its live client.
final class LiveStack: Stoppable {
    let clients: Clients
    /// The methods each service's server answers, by service.
    let registered: [String: [String]]
    private let tasks: [Task<Void, Never>]
    /// The converter's runtime, whose loop (`loop-converter`) ``stop()`` shuts down: no `Runtime.run` does here.
    private let converterRuntime: Runtime

    init() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-contract-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        func ipc(_ name: String) -> String { "ipc://\(folder.path)/\(name)" }
        var logger = Logger(label: "contract")
        logger.logLevel = .critical
        func runtime(_ service: String) throws -> Runtime { try Runtime(service: service, logger: logger) }

        let fetcherRuntime = try runtime("rates-fetcher")
        let configuration = try FetcherOptions.parse([
            "--feeds", "test", "--pub", ipc("fetcher-pub"), "--rep", ipc("fetcher-rep"), "--ingest", ipc("fetcher-ingest"), "--state-dir", folder.path,
        ])
            .configuration(environment: [:])
        var services = try RatesFetcher.services(
            configuration, environment: configuration.selection.environment(http: nil, logger: logger), runtime: fetcherRuntime)

        converterRuntime = try runtime("converter")
        let fetcherForConverter = try RatesFetcherClient.live(converterRuntime.connection(), rep: ipc("fetcher-rep"), pub: ipc("fetcher-pub"))
        services += try Converter.services(
            ConverterConfiguration(rep: ipc("converter-rep"), pub: ipc("converter-pub")), fetcher: fetcherForConverter, runtime: converterRuntime)

        let portfolioRuntime = try runtime("portfolio")
        let portfolioConnection = try portfolioRuntime.connection()
        services += try await Portfolio.services(
            PortfolioConfiguration(rep: ipc("portfolio-rep"), pub: ipc("portfolio-pub")), store: .memory(),
            converter: .live(portfolioConnection, rep: ipc("converter-rep"), pub: ipc("converter-pub")),
            fetcher: .live(portfolioConnection, rep: ipc("fetcher-rep"), pub: ipc("fetcher-pub")), runtime: portfolioRuntime)

        let presenterRuntime = try runtime("presenter")
        let presenterConnection = try presenterRuntime.connection()
        services += try Presenter.services(
            PresenterConfiguration(rep: ipc("presenter-rep"), http: "http://127.0.0.1:0"),
            upstreams: PresenterUpstreams(
                portfolio: .live(presenterConnection, rep: ipc("portfolio-rep"), pub: ipc("portfolio-pub")),
                converter: .live(presenterConnection, rep: ipc("converter-rep"), pub: ipc("converter-pub")),
                fetcher: .live(presenterConnection, rep: ipc("fetcher-rep"), pub: ipc("fetcher-pub"))),
            runtime: presenterRuntime)
        registered = Dictionary(uniqueKeysWithValues: services.compactMap { $0 as? RPCServer }.map { ($0.service, $0.methodNames) })
        tasks = services.map { service in Task { try? await service.run() } }

        let connection = try LiveConnection(logger: logger)
        clients = Clients(
            fetcher: try .live(connection, rep: ipc("fetcher-rep"), pub: ipc("fetcher-pub")),
            converter: try .live(connection, rep: ipc("converter-rep"), pub: ipc("converter-pub")),
            portfolio: try .live(connection, rep: ipc("portfolio-rep"), pub: ipc("portfolio-pub")),
            presenter: try .live(connection, rep: ipc("presenter-rep")))
    }

    /// Stops every service, then the converter's loop.
    func stop() async {
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
        // Converter.services made the loop: this only fetches it.
        await (try? converterRuntime.loop)?.shutdown()
    }
}

/// Polls `condition` until it holds or `timeout` passes; its last answer.
func eventually(within timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if (try? await condition()) == true { return true }
        try? await Task.sleep(for: .milliseconds(100))
    }
    return (try? await condition()) == true
}

/// The first event of `events` that `match` picks, within `timeout`.
func first<Value: Sendable, Picked: Sendable>(
    _ events: StreamEvents<Value>, within timeout: Duration = .seconds(15),
    _ match: @escaping @Sendable (StreamEvent<Value>) -> Picked?
) async -> Picked? {
    await withTaskGroup(of: Picked?.self) { group in
        group.addTask {
            for await event in events { if let picked = match(event) { return picked } }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}
