import Bus
import BusContract
import Foundation
import ServiceLifecycle
import PriceAlertsAPI
import ServiceSupport
import TickwireClients
import TickwireContract

/// price-alerts' settings.
public struct PriceAlertsConfiguration: Sendable {
    /// Where its JSON-RPC server binds.
    public var rep: String
    /// Where its alert stream binds.
    public var pub: String

    /// A configuration.
    public init(rep: String, pub: String) {
        self.rep = rep
        self.pub = pub
    }
}

/// price-alerts: follows the converter's prices, answers `alerts.add`/`alerts.list`/`alerts.remove` and `panel` (its
/// page on the dashboard), and publishes `alert.<ASSET>.<FIAT>` when a rule's condition starts to hold.
public enum PriceAlerts {
    /// The services of one price-alerts process, in start order: its publisher, its JSON-RPC server,
    /// and the loop that follows `converter`'s prices; the rules come from `store`.
    public static func services(
        _ configuration: PriceAlertsConfiguration, converter: ConverterClient, store: AlertStore, runtime: Runtime,
        now: @escaping @Sendable () -> Date = { Date() }
    ) async throws -> [any Service] {
        let publisher = try runtime.publisher(binding: [configuration.pub])
        let source = runtime.service
        let state = PriceAlertsState(store: store, publish: { alert in
            try publisher.publish(alert, on: PriceAlertsAPI.alertTopic(asset: alert.asset, currency: alert.currency), source: source)
        }, logger: runtime.logger, now: now)
        try await state.restore()
        let methods = methods(state, standard: runtime.standardMethods(publisher: publisher) {
            await state.health(service: runtime.service, started: runtime.started)
        })
        let server = try runtime.rpcServer(binding: [configuration.rep], methods: methods)
        let prices = converter.prices()
        return [publisher, server, LoopService {
            // Each price is applied in a span of the trace it came in: the alerts it fires are published in it.
            await state.follow(prices: prices) { trace, apply in await TraceContext.withSpan("price", continuing: trace, apply) }
        }]
    }

    /// `standard` and price-alerts' own methods, answered by `state`: what its server serves, and what
    /// in-process tests call through `LocalRPC`.
    public static func methods(_ state: PriceAlertsState, standard: RPCMethods = RPCMethods()) -> RPCMethods {
        var methods = standard
        methods.register(PriceAlertsAPI.add) { try await state.add($0) }
        methods.register(PriceAlertsAPI.list) { await state.list() }
        methods.register(PriceAlertsAPI.remove) { try await state.remove($0) }
        methods.register(PluginAPI.panel) { await state.panel() }
        return methods
    }
}
