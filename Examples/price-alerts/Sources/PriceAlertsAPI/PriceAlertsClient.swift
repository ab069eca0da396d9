import Bus
import BusContract
import Foundation
import TickwireClients
import TickwireStack
import TickwireContract

/// price-alerts: rules on prices, the alerts they fire, and its page on the dashboard.
public struct PriceAlertsClient: Sendable {
    /// `alerts.add`: answers the rule with its id.
    public var add: @Sendable (AddAlertRequest) async throws -> AlertRule
    /// `alerts.list`: every rule, oldest first.
    public var list: @Sendable () async throws -> [AlertRule]
    /// `alerts.remove`.
    public var remove: @Sendable (RemoveAlertRequest) async throws -> Bool
    /// `panel`: its page on the dashboard, built now.
    public var panel: @Sendable () async throws -> Panel
    /// `health`.
    public var health: @Sendable () async throws -> Health
    /// `alert.<ASSET>.<FIAT>`: every alert as it fires.
    public var alerts: @Sendable () -> StreamEvents<AlertFired>

    /// A client from its closures.
    public init(
        add: @escaping @Sendable (AddAlertRequest) async throws -> AlertRule,
        list: @escaping @Sendable () async throws -> [AlertRule],
        remove: @escaping @Sendable (RemoveAlertRequest) async throws -> Bool,
        panel: @escaping @Sendable () async throws -> Panel,
        health: @escaping @Sendable () async throws -> Health,
        alerts: @escaping @Sendable () -> StreamEvents<AlertFired>
    ) {
        self.add = add
        self.list = list
        self.remove = remove
        self.panel = panel
        self.health = health
        self.alerts = alerts
    }
}

extension PriceAlertsClient {
    /// price-alerts at `rep` (JSON-RPC) and `pub` (alerts), by default where the stack puts it
    /// (`TICKWIRE_PRICE_ALERTS_REP`, `TICKWIRE_PRICE_ALERTS_PUB`).
    public static func live(
        _ connection: LiveConnection,
        rep: String = PriceAlertsEndpoint.rep.resolve(nil), pub: String = PriceAlertsEndpoint.pub.resolve(nil)
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
            panel: { try await rpc.call(PluginAPI.panel) },
            health: { try await rpc.call(StandardAPI.health) },
            alerts: { alerts })
    }

    /// Every closure throws, naming itself; the stream says it is unavailable.
    public static let failing = Self(
        add: { _ in throw Unimplemented("PriceAlertsClient.add") },
        list: { throw Unimplemented("PriceAlertsClient.list") },
        remove: { _ in throw Unimplemented("PriceAlertsClient.remove") },
        panel: { throw Unimplemented("PriceAlertsClient.panel") },
        health: { throw Unimplemented("PriceAlertsClient.health") },
        alerts: { .failing("PriceAlertsClient.alerts is not implemented here") })

    /// price-alerts' recorded answers (`scripts/record-client-fixtures.py`, kept in this target's `Fixtures`): the same
    /// whatever is asked; its panel is ``AlertsPanel`` of the recorded rules and alerts; its stream reports the recorded
    /// alerts and then stays quiet.
    public static let test = Self(
        add: { _ in try Fixtures.load("alerts.add") },
        list: { try Fixtures.load("alerts.list") },
        remove: { _ in true },
        panel: {
            AlertsPanel.make(rules: try Fixtures.load("alerts.list"), fired: try Fixtures.alerts().map(\.value).reversed(),
                             currencies: AlertsPanel.defaultCurrencies)
        },
        health: { try Fixtures.load("health") },
        alerts: { .recorded(Fixtures.alerts) })
}

/// The answers of a real price-alerts recorded by `scripts/record-client-fixtures.py`.
enum Fixtures {
    /// The recorded result of `method`, decoded as `type`.
    static func load<T: Decodable>(_ method: String, as type: T.Type = T.self) throws -> T {
        guard let url = Bundle.module.url(forResource: method, withExtension: "json", subdirectory: "Fixtures") else {
            throw RPCError.internalError("no recorded answer of price-alerts to \(method)")
        }
        return try Wire.decode(T.self, from: Data(contentsOf: url))
    }

    /// The alerts of the recorded snapshot, oldest first.
    @Sendable static func alerts() throws -> [StreamUpdate<AlertFired>] {
        try load("snapshot", as: Snapshot.self).entries.compactMap { entry in
            let message = try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8))
            return try message.decode(PriceAlertsAPI.alerts).map {
                StreamUpdate(topic: message.topic, seq: message.header.seq, time: message.header.time, source: message.header.source, value: $0.data)
            }
        }.sorted { $0.time < $1.time }
    }
}

extension StreamEvents {
    /// A stream that reports `updates` as one snapshot, then stays open with nothing new, as a quiet publisher does.
    static func recorded(_ updates: @escaping @Sendable () throws -> [StreamUpdate<Value>]) -> Self {
        each {
            AsyncStream { continuation in
                do {
                    continuation.yield(.snapshot(try updates()))
                } catch {
                    continuation.yield(.unavailable(reason: "no recorded snapshot: \(error)"))
                }
            }
        }
    }
}
