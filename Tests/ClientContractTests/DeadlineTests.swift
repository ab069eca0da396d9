import Bus
import Foundation
import Logging
import PortfolioCore
import PortfolioEngine
@testable import PresenterCore
import ServiceSupport
import Testing
import TickwireClients
import TickwireMocks
import PresenterViews
import TickwireContract

/// Deadlines shrink along a chain of calls, so the service nearest a dead peer answers first, with what it has.
@Suite("Deadlines along the chain")
struct DeadlineTests {
    /// The presenter asks the portfolio (5 s an attempt) whose converter is dead (its calls would wait
    /// 10 s × 2 attempts): the portfolio gives up on the converter within the presenter's deadline and
    /// answers its offline valuation, which the presenter shows instead of an error. (The services' 2 s would do;
    /// these leave a loaded machine room, and keep the converter's wait longer than the presenter's.)
    @Test func presenterShowsTheOfflineValuationWhileTheConverterIsDown() async throws {
        let (folder, logger) = try Self.setUp()
        func ipc(_ name: String) -> String { "ipc://\(folder.path)/\(name)" }

        let fetcher = RatesFetcherClient.mock(seed: 9, interval: .seconds(60))
        let portfolioRuntime = try Runtime(service: "portfolio", logger: logger)
        let deadConverter = try ConverterClient.live(portfolioRuntime.connection(timeout: .seconds(10)), rep: ipc("converter-rep"), pub: ipc("converter-pub"))
        let services = try await Portfolio.services(
            PortfolioConfiguration(rep: ipc("portfolio-rep"), pub: ipc("portfolio-pub")), store: .memory(),
            converter: deadConverter, fetcher: fetcher, runtime: portfolioRuntime)
        let running = services.map { service in Task { try? await service.run() } }
        defer { for task in running { task.cancel() } }

        let presenterRuntime = try Runtime(service: "presenter", logger: logger)
        let portfolio = try PortfolioClient.live(presenterRuntime.connection(timeout: .seconds(5)), rep: ipc("portfolio-rep"), pub: ipc("portfolio-pub"))
        // The mock rates-fetcher's masterdata reaches the portfolio within seconds; more on a 2-core machine under load.
        #expect(await eventually(within: .seconds(30)) { try await !portfolio.assets().assets.isEmpty })
        _ = try await portfolio.addTrade(AddTradeRequest(
            asset: "ETH", amount: 1, price: 20_000, currency: "SEK", date: Date(timeIntervalSinceNow: -3_600), requestId: "deadline"))

        let core = Presenter.Core(
            upstreams: PresenterUpstreams(portfolio: portfolio, converter: .failing, fetcher: fetcher), runtime: presenterRuntime)
        // Without deadlines the portfolio waits 20 s on the converter, the presenter gives up first (after 2 × 5 s)
        // and `view` throws; with them the portfolio answers within the presenter's deadline with its offline
        // valuation and the notice below. No wall-clock bound here: a loaded CI machine stretches every call.
        let view = try await core.builder.view(ViewRequest(screen: "portfolio", currency: "USD"))
        guard case .portfolio(let shown) = view else {
            Issue.record("not a portfolio view")
            return
        }
        #expect(shown.offline)
        #expect(shown.notices.contains { $0.contains("before the deadline") }, "\(shown.notices)")
        #expect(shown.holdings.map(\.asset) == ["ETH"])
    }

    /// `performance` reads a history per asset through rates-fetcher and the converter, so the live client gives it 5 s
    /// on a socket of its own: over a connection of 2 s an attempt, a performance that takes 2.5 s and ends only once
    /// `portfolios.list` (asked while it runs, on the other socket) has been answered still comes back.
    @Test func performanceHasItsOwnTimeoutAndSocket() async throws {
        let (folder, logger) = try Self.setUp()
        let (listed, lists) = AsyncStream<Void>.makeStream()
        var methods = RPCMethods()
        methods.register(PortfolioAPI.portfolios) {
            lists.yield()
            return PortfolioList(portfolios: [PortfolioSummary(name: "main", activities: 0)])
        }
        methods.register(PortfolioAPI.performance) { request in
            try await Task.sleep(for: .milliseconds(2_500))
            for await _ in listed { break }
            return PortfolioPerformance(currency: request.currency ?? "USD", range: request.range ?? .max, series: [], returns: [],
                                        asOf: Date(), warnings: [])
        }
        let rep = "ipc://\(folder.path)/portfolio-rep"
        let server = try Runtime(service: "portfolio", logger: logger).rpcServer(binding: [rep], methods: methods)
        let serving = Task { await server.run() }
        defer { serving.cancel() }

        let connection = try Runtime(service: "presenter", logger: logger).connection(timeout: .seconds(2))
        let portfolio = try PortfolioClient.live(connection, rep: rep, pub: "ipc://\(folder.path)/portfolio-pub")
        async let performance = portfolio.performance(PerformanceRequest(currency: "SEK", range: .thirtyDays))
        try await Task.sleep(for: .milliseconds(300))
        #expect(try await portfolio.portfolios().portfolios.map(\.name) == ["main"])
        let answered = try await performance
        #expect(answered.currency == "SEK" && answered.range == .thirtyDays)
    }

    /// A fresh folder for the test's ipc endpoints, and a logger that keeps quiet.
    private static func setUp() throws -> (folder: URL, logger: Logger) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-deadline-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var logger = Logger(label: "deadline")
        logger.logLevel = .critical
        return (folder, logger)
    }
}
