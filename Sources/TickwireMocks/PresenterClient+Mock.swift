import Bus
import Foundation
import Logging
import PresenterViews
import Synchronization
import TickwireContract
import BusContract
import TickwireClients

extension PresenterClient {
    /// A presenter that builds its views with the real one's ``ScreenBuilder`` in memory, over `portfolio`,
    /// `converter` and `fetcher` (by default mocks of one shared ``RatesFetcherClient/mock(seed:interval:)``):
    /// every screen in any locale and currency, and the service's errors for bad requests.
    public static func mock(
        fetcher: RatesFetcherClient = .mock(), converter: ConverterClient? = nil, portfolio: PortfolioClient? = nil,
        logger: Logger = Logger(label: "tickwire.mock-presenter")
    ) -> Self {
        let converter = converter ?? .mock(fetcher: fetcher)
        let portfolio = portfolio ?? .mock(fetcher: fetcher, converter: converter)
        let state = PresenterState(logger: logger)
        let builder = ScreenBuilder(state: state, sources: ViewSources(portfolio: portfolio, fetcher: fetcher, converter: converter))
        let presenter = MockPresenter()
        let updates = fetcher.updates([.quote, .book, .coin, .status, .assets, .wallets, .rate])
        let prices = converter.prices()
        let changes = portfolio.changes()
        presenter.loops.follow(
            Task { [weak presenter] in
                for await event in updates {
                    await state.apply(event, from: "rates-fetcher")
                    if case .snapshot = event { presenter?.fetcherSynchronized.open() }
                }
            },
            Task { [weak presenter] in
                for await event in prices {
                    await state.apply(event, from: "converter")
                    if case .snapshot = event { presenter?.pricesSynchronized.open() }
                }
            },
            Task { await state.follow(portfolio: changes) })
        return Self(
            view: { request in
                await presenter.fetcherSynchronized.wait(atMost: .seconds(5))
                await presenter.pricesSynchronized.wait(atMost: .seconds(5))
                return try await RPCError.answering { try await builder.view(request) }
            },
            health: { Health(service: "presenter", started: presenter.started, upstreams: await state.streams) })
    }
}

/// What a mock presenter keeps besides its ``PresenterState``: the loops that follow its upstreams.
final class MockPresenter: Sendable {
    let fetcherSynchronized = Gate()
    let pricesSynchronized = Gate()
    let started = Date()
    /// The loops that follow its upstreams, ended when it goes.
    let loops = Loops()
}
