/// One JSON-RPC method, declared once: its name, the type of its params and the type of its result.
///
/// A server registers its handler through the value and a client calls through it, so the name,
/// the params and the result cannot drift apart. It carries no transport: any coder and any socket
/// can serve it.
public struct RPCMethod<Params: Codable & Sendable, Result: Codable & Sendable>: Sendable, CustomStringConvertible {
    /// The method's name on the wire, e.g. `holdings`.
    public let name: String
    /// Whether calling it changes state (writes are idempotent through a `requestId` where they create).
    public let changesState: Bool

    /// A method called `name`.
    public init(_ name: String, changesState: Bool = false) {
        self.name = name
        self.changesState = changesState
    }

    public var description: String { name }
}

/// The parameters of a method that takes none.
public struct NoParams: Codable, Sendable, Equatable {
    /// No parameters.
    public init() {}
}

/// A type-erased method, for listing what a service offers (docs, contract tests).
public struct AnyRPCMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method's name.
    public let name: String
    /// Its params' type, e.g. `HoldingsRequest`.
    public let params: String
    /// Its result's type, e.g. `Valuation`.
    public let result: String
    /// Whether it changes state.
    public let changesState: Bool

    /// `method` without its types.
    public init<Params, Result>(_ method: RPCMethod<Params, Result>) {
        name = method.name
        params = String(describing: Params.self)
        result = String(describing: Result.self)
        changesState = method.changesState
    }

    public var description: String { "\(name)(\(params)) -> \(result)" }
}

/// The methods every Tickwire service answers, whatever else it offers.
public enum StandardAPI {
    /// `health`: how the service and its upstreams are.
    public static let health = RPCMethod<NoParams, Health>("health")
    /// `metrics`: the Prometheus text of its metrics.
    public static let metrics = RPCMethod<NoParams, String>("metrics")
    /// `snapshot {prefix}`: every retained topic of a publishing service (Clone pattern).
    public static let snapshot = RPCMethod<SnapshotRequest, Snapshot>("snapshot")

    /// The standard methods, with `snapshot` where the service publishes.
    public static func methods(publishes: Bool) -> [AnyRPCMethod] {
        [AnyRPCMethod(health), AnyRPCMethod(metrics)] + (publishes ? [AnyRPCMethod(snapshot)] : [])
    }
}
