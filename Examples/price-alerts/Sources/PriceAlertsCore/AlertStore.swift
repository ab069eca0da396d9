import Foundation
import PriceAlertsAPI
import TickwireClients
import TickwireContract

/// price-alerts' durable storage: the rules, with whether each holds and when it last fired, and the
/// first answer of every request id, so a rule survives a restart and a retried `alerts.add` acts once.
public struct AlertStore: Sendable {
    /// Records `rule` unless `requestId` answered before; either way returns the rule that request answered.
    public var add: @Sendable (_ rule: AlertRule, _ requestId: String?) async throws -> AlertRule
    /// Removes a rule; `false` when there was none with that id.
    public var remove: @Sendable (_ id: String) async throws -> Bool
    /// Every rule, oldest first.
    public var rules: @Sendable () async throws -> [AlertRule]
    /// Writes the `holds` and `lastFired` of each of `rules` that is still stored.
    public var saveStates: @Sendable (_ rules: [AlertRule]) async throws -> Void

    /// A store from its operations.
    public init(
        add: @escaping @Sendable (_ rule: AlertRule, _ requestId: String?) async throws -> AlertRule,
        remove: @escaping @Sendable (_ id: String) async throws -> Bool,
        rules: @escaping @Sendable () async throws -> [AlertRule],
        saveStates: @escaping @Sendable (_ rules: [AlertRule]) async throws -> Void
    ) {
        self.add = add
        self.remove = remove
        self.rules = rules
        self.saveStates = saveStates
    }
}

extension AlertStore {
    /// Every operation throws, naming itself: for tests that must not reach the store, or that check
    /// what the service does when its storage fails.
    public static let failing = Self(
        add: { _, _ in throw Unimplemented("AlertStore.add") },
        remove: { _ in throw Unimplemented("AlertStore.remove") },
        rules: { throw Unimplemented("AlertStore.rules") },
        saveStates: { _ in throw Unimplemented("AlertStore.saveStates") })
}
