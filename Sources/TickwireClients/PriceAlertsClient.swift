import Bus
import Foundation
import Synchronization
import TickwireContract
import BusContract
import Money

/// price-alerts (the plugin of Examples/price-alerts): rules on prices, and the alerts they fire.
public struct PriceAlertsClient: Sendable {
    /// `alerts.add`: answers the rule with its id.
    public var add: @Sendable (AddAlertRequest) async throws -> AlertRule
    /// `alerts.list`: every rule, oldest first.
    public var list: @Sendable () async throws -> [AlertRule]
    /// `alerts.remove`.
    public var remove: @Sendable (RemoveAlertRequest) async throws -> Bool
    /// `health`.
    public var health: @Sendable () async throws -> Health
    /// `alert.<ASSET>.<FIAT>`: every alert as it fires.
    public var alerts: @Sendable () -> StreamEvents<AlertFired>

    /// A client from its closures.
    public init(
        add: @escaping @Sendable (AddAlertRequest) async throws -> AlertRule,
        list: @escaping @Sendable () async throws -> [AlertRule],
        remove: @escaping @Sendable (RemoveAlertRequest) async throws -> Bool,
        health: @escaping @Sendable () async throws -> Health,
        alerts: @escaping @Sendable () -> StreamEvents<AlertFired>
    ) {
        self.add = add
        self.list = list
        self.remove = remove
        self.health = health
        self.alerts = alerts
    }
}

extension PriceAlertsClient {
    /// price-alerts at `rep` (JSON-RPC) and `pub` (alerts), by default where the stack puts it
    /// (`TICKWIRE_PRICE_ALERTS_REP`, `TICKWIRE_PRICE_ALERTS_PUB`).
    public static func live(
        _ connection: LiveConnection,
        rep: String = DefaultEndpoint.priceAlertsRep.resolve(nil), pub: String = DefaultEndpoint.priceAlertsPub.resolve(nil)
    ) throws -> Self {
        let rpc = try connection.rpc(rep, service: "price-alerts")
        let alerts = try connection.stream("price-alerts", pub: pub, rep: rep, prefixes: [PriceAlertsAPI.alerts.prefix]) {
            try $0.decode(PriceAlertsAPI.alerts)?.data
        }
        return .live(rpc, alerts: alerts)
    }

    /// price-alerts' methods through `rpc`, and `alerts` for its stream.
    public static func live(_ rpc: some RPCCaller, alerts: StreamEvents<AlertFired> = .failing("no alert stream")) -> Self {
        Self(
            add: { try await rpc.call(PriceAlertsAPI.add, $0) },
            list: { try await rpc.call(PriceAlertsAPI.list) },
            remove: { try await rpc.call(PriceAlertsAPI.remove, $0) },
            health: { try await rpc.call(StandardAPI.health) },
            alerts: { alerts })
    }

    /// Every closure throws, naming itself; the stream says it is unavailable.
    public static let failing = Self(
        add: unimplemented("PriceAlertsClient.add"),
        list: unimplemented("PriceAlertsClient.list"),
        remove: unimplemented("PriceAlertsClient.remove"),
        health: unimplemented("PriceAlertsClient.health"),
        alerts: { .failing("PriceAlertsClient.alerts is not implemented here") })

    /// price-alerts' recorded answers (`scripts/record-client-fixtures.py`): the same whatever is asked;
    /// its stream reports the recorded alerts and then stays quiet.
    public static let test = Self(
        add: Fixtures.answer("price-alerts", "alerts.add"),
        list: Fixtures.answer("price-alerts", "alerts.list"),
        remove: { _ in true },
        health: Fixtures.answer("price-alerts", "health"),
        alerts: { .recorded { try Fixtures.snapshot("price-alerts") { try $0.decode(PriceAlertsAPI.alerts)?.data } } })

    /// A price-alerts in memory over `converter`'s prices (by default ``ConverterClient/mock(fetcher:currencies:logger:)``):
    /// rules are checked as the plugin checks them, fire when their condition starts to hold (at once if it
    /// holds as they are added) and re-arm when it stops; bad assets, currencies and thresholds are refused
    /// with the plugin's errors.
    public static func mock(converter: ConverterClient = .mock()) -> Self {
        let alerts = MockAlerts()
        let prices = converter.prices()
        alerts.loops.follow(Task { [weak alerts] in
            for await event in prices {
                switch event {
                case .snapshot(let updates): for update in updates { alerts?.price(update.value) }
                case .update(let update): alerts?.price(update.value)
                case .removed, .unavailable: continue
                }
            }
        })
        return Self(
            add: { request in try await RPCError.answering { try alerts.add(request) } },
            list: { alerts.rules() },
            remove: { request in try await RPCError.answering { try alerts.remove(request.id) } },
            health: { Health(service: "price-alerts", started: alerts.started, upstreams: ["converter": "ok"]) },
            alerts: { alerts.broadcast.stream { alerts.lastAlerts() } })
    }
}

/// A mock price-alerts' rules, last prices and alerts.
final class MockAlerts: Sendable {
    let broadcast = Broadcast<AlertFired>()
    let started = Date()
    /// The loop that follows the converter's prices, ended when this value goes.
    let loops = Loops()
    private struct State {
        var rules: [AlertRule] = []
        var requests: [String: AlertRule] = [:]
        var prices: [String: ExactDecimal] = [:]
        var last: [Topic: StreamUpdate<AlertFired>] = [:]
    }
    private let state = Mutex(State())

    func rules() -> [AlertRule] { state.withLock { $0.rules } }

    func lastAlerts() -> [StreamUpdate<AlertFired>] { state.withLock { $0.last.values.sorted { $0.topic < $1.topic } } }

    func add(_ request: AddAlertRequest) throws -> AlertRule {
        let asset = try Currency(code: request.asset).code, currency = try Currency(code: request.currency).code
        guard (request.above == nil) != (request.below == nil) else { throw RPCError.invalidParams("give exactly one of above and below") }
        guard (request.above ?? request.below ?? .zero) > .zero else { throw RPCError.invalidParams("the threshold must be positive") }
        let (rule, fired) = state.withLock { state -> (AlertRule, AlertFired?) in
            if let id = request.requestId, let first = state.requests[id] { return (first, nil) }
            var rule = AlertRule(id: UUID().uuidString.lowercased(), asset: asset, currency: currency, above: request.above, below: request.below,
                                 createdAt: Date(), holds: false, lastFired: nil)
            let fired = state.prices["\(asset)/\(currency)"].flatMap { price in Self.check(&rule, at: price) }
            state.rules.append(rule)
            if let id = request.requestId { state.requests[id] = rule }
            return (rule, fired)
        }
        if let fired { publish(fired) }
        return rule
    }

    func remove(_ id: String) throws -> Bool {
        try state.withLock { state in
            guard let index = state.rules.firstIndex(where: { $0.id == id }) else { throw RPCError.notFound("no rule with id \(id)") }
            state.rules.remove(at: index)
            return true
        }
    }

    func price(_ price: AssetPrice) {
        let fired = state.withLock { state -> [AlertFired] in
            state.prices["\(price.asset)/\(price.currency)"] = price.price
            var fired: [AlertFired] = []
            for index in state.rules.indices where state.rules[index].asset == price.asset && state.rules[index].currency == price.currency {
                if let alert = Self.check(&state.rules[index], at: price.price) { fired.append(alert) }
            }
            return fired
        }
        fired.forEach(publish)
    }

    /// Notes whether `rule` holds at `price`; the alert when it starts to.
    private static func check(_ rule: inout AlertRule, at price: ExactDecimal) -> AlertFired? {
        let holds = rule.holds(at: price)
        defer { rule.holds = holds }
        guard holds, !rule.holds else { return nil }
        let now = Date()
        rule.lastFired = now
        return rule.fired(at: price, on: now)
    }

    private func publish(_ alert: AlertFired) {
        guard let topic = try? Topics.alert(asset: alert.asset, currency: alert.currency).topic else { return }
        let update = state.withLock { state in
            let update = StreamUpdate(topic: topic, seq: (state.last[topic]?.seq ?? 0) + 1, time: alert.firedAt, source: "price-alerts", value: alert)
            state.last[topic] = update
            return update
        }
        broadcast.send(.update(update))
    }
}
