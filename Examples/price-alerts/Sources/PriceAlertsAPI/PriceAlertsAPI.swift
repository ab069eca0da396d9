import BusContract
import Foundation
import TickwireStack
import TickwireContract

/// price-alerts' methods and stream: rules on prices, and the alerts they fire. The plugin's own contract, declared
/// once with no transport: its service, its client and any other program that talks to it use this.
public enum PriceAlertsAPI {
    /// `alerts.add {asset, currency, above | below, requestId?}`: answers the rule with its id.
    public static let add = RPCMethod<AddAlertRequest, AlertRule>("alerts.add", changesState: true)
    /// `alerts.list`: every rule, oldest first.
    public static let list = RPCMethod<NoParams, [AlertRule]>("alerts.list")
    /// `alerts.remove {id}`.
    public static let remove = RPCMethod<RemoveAlertRequest, Bool>("alerts.remove", changesState: true)

    /// `alert.<ASSET>.<FIAT>`: a rule's condition started to hold.
    public static let alerts = TopicSpec<AlertFired>(kind: "alert")

    /// The topic of an alert on `asset` in `currency`: `alert.<ASSET>.<FIAT>`.
    public static func alertTopic(asset: String, currency: String) throws -> StreamTopic<AlertFired> {
        try alerts.topic(source: asset, key: currency)
    }

    /// Every method it answers: the standard ones, its own, and `panel` (its page on the dashboard).
    public static let methods = StandardAPI.methods(publishes: true)
        + [AnyRPCMethod(add), AnyRPCMethod(list), AnyRPCMethod(remove), AnyRPCMethod(PluginAPI.panel)]

    /// Every stream it publishes.
    public static let streams = [AnyTopicSpec(alerts), AnyTopicSpec(StandardStreams.heartbeat)]
}

/// Where price-alerts binds by default, each overridable by a flag and by the environment variable named here (the
/// same variable for price-alerts and for the programs that connect to it).
public enum PriceAlertsEndpoint: String, CaseIterable, Sendable, EndpointSetting {
    /// Its JSON-RPC server.
    case rep = "tcp://127.0.0.1:7501"
    /// Its alert stream.
    case pub = "tcp://127.0.0.1:7502"

    /// The environment variable that overrides it.
    public var environmentVariable: String {
        switch self {
        case .rep: "TICKWIRE_PRICE_ALERTS_REP"
        case .pub: "TICKWIRE_PRICE_ALERTS_PUB"
        }
    }
}
