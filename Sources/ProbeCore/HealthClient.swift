import Bus
import Logging
import ZeroMQ
import BusContract

/// A service's `health` method: all the probe asks of it.
public struct HealthClient: Sendable {
    /// `health`, answered before `deadline` or thrown.
    public var health: @Sendable (_ deadline: ContinuousClock.Instant) async throws -> Health

    /// A client from its closure.
    public init(health: @escaping @Sendable (_ deadline: ContinuousClock.Instant) async throws -> Health) {
        self.health = health
    }
}

extension HealthClient {
    /// The JSON-RPC server at `endpoint` over ZeroMQ, asked once, waiting at most `timeout` (no retry:
    /// a probe that misses its deadline has failed, and the orchestrator probes again).
    public static func live(endpoint: String, timeout: Duration, logger: Logger = Logger(label: "tickwire.probe")) throws -> Self {
        .live(try RPCClient(context: try ZMQContext(), endpoint: endpoint, timeout: timeout, retries: 0, logger: logger))
    }

    /// `health` through `rpc`: a socket's client, or ``LocalRPC`` in process.
    public static func live(_ rpc: some RPCCaller) -> Self {
        Self { deadline in try await rpc.call(StandardAPI.health, NoParams(), deadline: deadline) }
    }

    /// Always answers `health`.
    public static func test(_ health: Health) -> Self {
        Self { _ in health }
    }

    /// Throws, naming itself.
    public static let failing = Self { _ in throw ProbeError.unimplemented("HealthClient.health") }
}

/// Why the probe could not ask.
public enum ProbeError: Error, Equatable, CustomStringConvertible {
    /// A client value that is not meant to be called was.
    case unimplemented(String)

    public var description: String {
        switch self {
        case .unimplemented(let name): "\(name) is not implemented in this client"
        }
    }
}
