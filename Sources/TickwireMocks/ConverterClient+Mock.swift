import Bus
import Conversion
import Foundation
import Logging
import Market
import Synchronization
import TickwireContract
import BusContract
import TickwireClients

extension ConverterClient {
    /// A converter that runs the real one's rules in memory over `fetcher`'s rates and quotes (by default
    /// ``RatesFetcherClient/mock(seed:interval:)``): conversions are exact and err as the service does,
    /// and every asset is re-priced into `currencies` as soon as a quote or a rate changes; `convert.series`
    /// takes its daily rates from `fetcher`'s `rates.history`.
    public static func mock(
        fetcher: RatesFetcherClient = .mock(), currencies: [String] = ["USD", "SEK", "EUR", "MXN"],
        logger: Logger = Logger(label: "tickwire.mock-converter")
    ) -> Self {
        let converter = MockConverter(currencies: currencies, logger: logger)
        let updates = fetcher.updates([.rate, .quote, .status])
        let following = Task { [weak converter] in
            for await event in updates {
                guard let converter else { return }
                await converter.apply(event)
            }
        }
        converter.loops.follow(following)
        return Self(
            convert: { request in try await converter.answer { try await $0.convert(request) } },
            total: { request in try await converter.answer { try await $0.total(request) } },
            rates: { request in try await converter.answer { try await $0.rates(request) } },
            sources: { try await converter.answer { await $0.sources() } },
            convertSeries: { request in
                let (daily, problem) = await SeriesConversion.dailyRates(for: request, fetch: fetcher.ratesHistory)
                return try await converter.answer { try await $0.convertSeries(request, daily: daily, dailyProblem: problem) }
            },
            health: { Health(service: "converter", started: converter.started, upstreams: ["rates-fetcher": await converter.state.upstream]) },
            prices: { converter.broadcast.stream { converter.priceSnapshot() } })
    }
}

/// A mock converter: the service's ``ConverterState``, and its prices published the moment they change.
final class MockConverter: Sendable {
    let state: ConverterState
    let broadcast = Broadcast<AssetPrice>()
    let started = Date()
    private let prices = Mutex<[Topic: StreamUpdate<AssetPrice>]>([:])
    private let synchronized = Gate()
    /// The loop that follows rates-fetcher, ended when this converter goes.
    let loops = Loops()

    init(currencies: [String], logger: Logger) {
        state = ConverterState(currencies: currencies, logger: logger)
    }

    /// `body`'s answer from the state once the first snapshot of rates came (or five seconds passed: then
    /// the answers are the errors of a converter without rates), with the errors the service answers.
    func answer<T>(_ body: (ConverterState) async throws -> T) async throws -> T {
        await synchronized.wait(atMost: .seconds(5))
        return try await RPCError.answering { try await body(state) }
    }

    /// Applies an event of rates-fetcher's, then publishes every price that changed and retracts every price
    /// that went (its asset's last quote retracted), as the service does.
    func apply(_ event: StreamEvent<FetcherUpdate>) async {
        let changes = await state.applyChanges(event)
        if case .snapshot = event { synchronized.open() }
        let now = Date()
        for price in changes.removed {
            guard let topic = try? Topics.price(asset: price.asset, currency: price.currency).topic,
                  prices.withLock({ $0.removeValue(forKey: topic) }) != nil else { continue }
            broadcast.send(.removed(topic))
        }
        for price in changes.changed {
            guard let topic = try? Topics.price(asset: price.asset, currency: price.currency).topic else { continue }
            let update = prices.withLock { prices -> StreamUpdate<AssetPrice>? in
                if prices[topic]?.value == price { return nil }
                let update = StreamUpdate(topic: topic, seq: (prices[topic]?.seq ?? 0) + 1, time: now, source: "converter", value: price)
                prices[topic] = update
                return update
            }
            if let update { broadcast.send(.update(update)) }
        }
    }

    /// Every price held, sorted by topic.
    func priceSnapshot() -> [StreamUpdate<AssetPrice>] {
        prices.withLock { $0.values.sorted { $0.topic < $1.topic } }
    }
}
