import Foundation
import Logging
import Metrics
import TickwireClients
import BusContract
import Money
import PriceAlertsAPI
import TickwireContract

/// The one owner of price-alerts' rules and of the last price of every pair: it follows the converter's
/// prices, fires a rule when its condition starts to hold (at once when it already holds as it is added),
/// re-arms it when the condition stops holding, and answers the three methods and its `panel`.
///
/// What it stores and where alerts go are passed in, so the service and the tests run the same rules
/// with no socket. A rule's new state is stored before its alert is published, so `alerts.list` never
/// says less than the stream did.
public actor PriceAlertsState {
    /// Sends a fired alert on its way: the service's publisher, or a test's stream.
    public typealias Publish = @Sendable (AlertFired) throws -> Void

    private let store: AlertStore
    private let publish: Publish
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let newID: @Sendable () -> String

    private var rules: [AlertRule] = []
    private var prices: [Pair: ExactDecimal] = [:]
    /// The alerts fired since the service started, newest first (at most ``AlertsPanel/recentLimit``): what its panel lists.
    private var recent: [AlertFired] = []
    /// The last write of rule states; the next write waits for it, so writes land in the order they were made.
    private var lastSave: Task<Void, Never>?
    /// The converter's stream state, as `health` reports it.
    public private(set) var converterStream = "waiting for the converter's snapshot"

    private let fired = Counter(label: "tickwire_price_alerts_fired_total")
    private let badPrices = Counter(label: "tickwire_price_alerts_bad_prices_total")

    /// One asset in one currency.
    private struct Pair: Hashable {
        var asset: String
        var currency: String
    }

    /// State keeping its rules in `store` and sending alerts through `publish`; `now` dates rules and
    /// alerts and `newID` names rules (a fresh lower-case UUID by default).
    public init(
        store: AlertStore, publish: @escaping Publish, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() },
        newID: @escaping @Sendable () -> String = { UUID().uuidString.lowercased() }
    ) {
        self.store = store
        self.publish = publish
        self.logger = logger
        self.now = now
        self.newID = newID
    }

    // MARK: Prices

    /// Loads the rules the store kept from earlier runs, with whether each held: a rule that held when
    /// the service stopped does not fire again for the same crossing.
    public func restore() async throws {
        rules = try await store.rules()
        logger.info("rules restored", metadata: ["rules": "\(rules.count)"])
    }

    /// Follows the converter's prices until the stream ends, each applied on the actor `within` what the caller
    /// wraps it in (a span of the trace it came in, so the alerts it fires carry the price's trace).
    public func follow(
        prices events: some AsyncSequence<StreamEvent<AssetPrice>, Never>,
        within: nonisolated(nonsending) @Sendable (TraceContext?, () async -> Void) async -> Void = { await $1() }
    ) async {
        for await event in events { await within(event.trace) { await apply(event) } }
    }

    /// Takes in prices: a snapshot replaces every price held, an update changes one. Each rule on a
    /// changed pair is checked; rules whose state changed are stored, then their alerts published.
    /// A price that is not positive is logged, counted and skipped.
    public func apply(_ event: StreamEvent<AssetPrice>) async {
        let updates: [AssetPrice]
        switch event {
        case .snapshot(let all):
            prices = [:]
            updates = all.map(\.value)
        case .update(let one):
            updates = [one.value]
        case .removed:
            // A retracted price (its coin no longer tracked): the rules keep the last one, and fire on none.
            return
        case .unavailable(let reason):
            converterStream = reason
            return
        }
        converterStream = "ok"
        var changed: [AlertRule] = []
        var alerts: [AlertFired] = []
        for price in updates {
            guard price.price > .zero else {
                badPrices.increment()
                logger.warning("skipped a price that is not positive", metadata: [
                    "asset": "\(price.asset)", "currency": "\(price.currency)", "price": "\(price.price)"])
                continue
            }
            let pair = Pair(asset: price.asset, currency: price.currency)
            prices[pair] = price.price
            for index in rules.indices where rules[index].asset == pair.asset && rules[index].currency == pair.currency {
                guard let change = check(&rules[index], at: price.price) else { continue }
                changed.removeAll { $0.id == rules[index].id }
                changed.append(rules[index])
                if let alert = change.alert { alerts.append(alert) }
            }
        }
        await save(changed)
        alerts.forEach(send)
    }

    // MARK: Methods

    /// `alerts.add`: validates the request, checks the new rule at the pair's last price (so it fires at
    /// once if it already holds), stores it, and answers it. A request id seen before answers its first rule.
    public func add(_ request: AddAlertRequest) async throws -> AlertRule {
        let pair: Pair
        do {
            let (asset, currency) = try request.validated()
            pair = Pair(asset: asset, currency: currency)
        } catch {
            throw refused(error, method: PriceAlertsAPI.add.name)
        }
        var rule = AlertRule(id: newID(), asset: pair.asset, currency: pair.currency, above: request.above, below: request.below,
                             createdAt: now(), holds: false, lastFired: nil)
        let alert = prices[pair].flatMap { check(&rule, at: $0)?.alert }
        let answer: AlertRule
        do {
            answer = try await store.add(rule, request.requestId)
        } catch {
            throw failed(error, storing: "a new rule")
        }
        guard answer.id == rule.id else { return answer }
        rules.append(answer)
        logger.info("rule added", metadata: ["rule": "\(answer.id)", "asset": "\(answer.asset)", "currency": "\(answer.currency)",
                                             "condition": "\(answer.condition)", "threshold": "\(answer.threshold)"])
        if let alert { send(alert) }
        await recheck(answer.id)
        return answer
    }

    /// `alerts.list`: every rule, oldest first.
    public func list() -> [AlertRule] { rules }

    /// `panel`: the rules with a Remove button each, the form to add one (its currencies those the converter prices
    /// in), and the alerts fired lately.
    public func panel() -> Panel {
        AlertsPanel.make(rules: rules, fired: recent, currencies: prices.keys.map(\.currency))
    }

    /// `alerts.remove`: `true`, or a not-found error when no rule has the id.
    public func remove(_ request: RemoveAlertRequest) async throws -> Bool {
        let removed: Bool
        do {
            removed = try await store.remove(request.id)
        } catch {
            throw failed(error, storing: "the removal of rule \(request.id)")
        }
        guard removed else { throw refused(RPCError.notFound("no rule with id \(request.id)"), method: PriceAlertsAPI.remove.name) }
        rules.removeAll { $0.id == request.id }
        logger.info("rule removed", metadata: ["rule": "\(request.id)"])
        return true
    }

    /// `health`: ok while the converter's stream is.
    public func health(service: String, started: Date) -> Health {
        Health(service: service, started: started, upstreams: ["converter": converterStream])
    }

    // MARK: Rules

    /// How a price changed a rule.
    private enum Change {
        /// Its condition started to hold: it fired.
        case fired(AlertFired)
        /// Its condition stopped holding: it is armed again.
        case rearmed

        var alert: AlertFired? {
            if case .fired(let alert) = self { alert } else { nil }
        }
    }

    /// Notes whether `rule` holds at `price`: nil when that did not change.
    private func check(_ rule: inout AlertRule, at price: ExactDecimal) -> Change? {
        let holds = rule.holds(at: price)
        guard holds != rule.holds else { return nil }
        rule.holds = holds
        guard holds else { return .rearmed }
        let date = now()
        rule.lastFired = date
        return .fired(rule.fired(at: price, on: date))
    }

    /// Checks rule `id` again at its pair's price now: one may have come while the rule was being stored.
    private func recheck(_ id: String) async {
        guard let index = rules.firstIndex(where: { $0.id == id }),
              let price = prices[Pair(asset: rules[index].asset, currency: rules[index].currency)],
              let change = check(&rules[index], at: price) else { return }
        await save([rules[index]])
        if let alert = change.alert { send(alert) }
    }

    /// Stores the states of `changed` after every earlier write; a failure is logged and counted, and the
    /// rules keep their new state in memory.
    private func save(_ changed: [AlertRule]) async {
        guard !changed.isEmpty else { return }
        let previous = lastSave, store = store, logger = logger
        let write = Task {
            await previous?.value
            do {
                try await store.saveStates(changed)
            } catch {
                Counter(label: "tickwire_price_alerts_store_errors_total").increment()
                logger.error("could not store the state of rules", metadata: ["rules": "\(changed.map(\.id))", "error": "\(error)"])
            }
        }
        lastSave = write
        await write.value
    }

    /// Publishes `alert`; a failure is logged and counted.
    private func send(_ alert: AlertFired) {
        do {
            try publish(alert)
            recent.insert(alert, at: 0)
            if recent.count > AlertsPanel.recentLimit { recent.removeLast() }
            fired.increment()
            logger.info("alert fired", metadata: ["rule": "\(alert.ruleId)", "asset": "\(alert.asset)", "currency": "\(alert.currency)",
                                                  "condition": "\(alert.condition)", "threshold": "\(alert.threshold)", "price": "\(alert.price)"])
        } catch {
            Counter(label: "tickwire_price_alerts_publish_errors_total").increment()
            logger.error("could not publish an alert", metadata: ["rule": "\(alert.ruleId)", "error": "\(error)"])
        }
    }

    /// `error` as the JSON-RPC error a bad request of `method` is answered with, logged and counted.
    private func refused(_ error: any Error, method: String) -> RPCError {
        let answer = RPCError(answering: error)
        Counter(label: "tickwire_price_alerts_refused_total", dimensions: [("method", method), ("code", "\(answer.code)")]).increment()
        logger.warning("refused a request", metadata: ["method": "\(method)", "error": "\(answer.message)"])
        return answer
    }

    /// `error` of the store, logged and counted; the request fails with it.
    private func failed(_ error: any Error, storing what: String) -> any Error {
        Counter(label: "tickwire_price_alerts_store_errors_total").increment()
        logger.error("could not store \(what)", metadata: ["error": "\(error)"])
        return error
    }
}
