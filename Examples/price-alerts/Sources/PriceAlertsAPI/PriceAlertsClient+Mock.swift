import BusContract
import Foundation
import Money
import Synchronization
import TickwireClients
import TickwireContract

extension PriceAlertsClient {
    /// A price-alerts in memory over `converter`'s prices (e.g. TickwireMocks' `ConverterClient.mock()`, which this
    /// library does not link, so a program that only talks to price-alerts links no engine):
    /// rules are checked as the plugin checks them, fire when their condition starts to hold (at once if it holds as
    /// they are added) and re-arm when it stops; requests are refused as the plugin refuses them
    /// (``AddAlertRequest/validated()``); its panel is the plugin's (``AlertsPanel``).
    public static func mock(converter: ConverterClient) -> Self {
        let alerts = MockAlerts()
        let prices = converter.prices()
        alerts.follow(Task { [weak alerts] in
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
            panel: { alerts.panel() },
            health: { Health(service: "price-alerts", started: alerts.started, upstreams: ["converter": "ok"]) },
            alerts: { alerts.stream() })
    }
}

/// A mock price-alerts' rules, last prices and alerts, and the readers of its stream.
final class MockAlerts: Sendable {
    let started = Date()
    private struct State {
        var rules: [AlertRule] = []
        var requests: [String: AlertRule] = [:]
        var prices: [String: ExactDecimal] = [:]
        var currencies: Set<String> = []
        var last: [Topic: StreamUpdate<AlertFired>] = [:]
        var fired: [AlertFired] = []
        var readers: [UUID: AsyncStream<StreamEvent<AlertFired>>.Continuation] = [:]
        var loops: [Task<Void, Never>] = []
    }
    private let state = Mutex(State())

    deinit { state.withLock { $0.loops.forEach { $0.cancel() } } }

    /// Keeps `task` (the loop following the converter) until this value goes.
    func follow(_ task: Task<Void, Never>) { state.withLock { $0.loops.append(task) } }

    func rules() -> [AlertRule] { state.withLock { $0.rules } }

    func panel() -> Panel {
        state.withLock { AlertsPanel.make(rules: $0.rules, fired: $0.fired, currencies: Array($0.currencies)) }
    }

    /// A stream for one reader: the last alert of each topic as a snapshot, then every alert (the newest 1,000 kept
    /// for a reader that falls behind).
    func stream() -> StreamEvents<AlertFired> {
        .each { [self] in
            let id = UUID()
            let (stream, continuation) = AsyncStream<StreamEvent<AlertFired>>.makeStream(bufferingPolicy: .bufferingNewest(1_000))
            continuation.onTermination = { [weak self] _ in _ = self?.state.withLock { $0.readers.removeValue(forKey: id) } }
            state.withLock { state in
                continuation.yield(.snapshot(state.last.values.sorted { $0.topic < $1.topic }))
                state.readers[id] = continuation
            }
            return stream
        }
    }

    func add(_ request: AddAlertRequest) throws -> AlertRule {
        let (asset, currency) = try request.validated()
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
            state.currencies.insert(price.currency)
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
        guard let topic = try? PriceAlertsAPI.alertTopic(asset: alert.asset, currency: alert.currency).topic else { return }
        let (update, readers) = state.withLock { state in
            let update = StreamUpdate(topic: topic, seq: (state.last[topic]?.seq ?? 0) + 1, time: alert.firedAt, source: "price-alerts", value: alert)
            state.last[topic] = update
            state.fired.insert(alert, at: 0)
            if state.fired.count > AlertsPanel.recentLimit { state.fired.removeLast() }
            return (update, Array(state.readers.values))
        }
        for reader in readers { reader.yield(.update(update)) }
    }
}
