import Bus
import Foundation
import BusContract

/// What one probe of a service found.
public enum ProbeVerdict: Equatable, Sendable {
    /// It answered `health` in time (and, when asked for, with status `ok`).
    case healthy(Health)
    /// It answered, but `degraded`, and the probe required `ok`.
    case degraded(Health)
    /// It did not answer in time, or answered with an error.
    case failed(String)

    /// The probe's exit status: 0 when healthy, else 1.
    public var exitCode: Int32 {
        if case .healthy = self { 0 } else { 1 }
    }

    /// One line saying what was found, for the orchestrator's log.
    public var line: String {
        switch self {
        case .healthy(let health): "\(health.service): \(health.status)\(Self.upstreams(health))"
        case .degraded(let health): "\(health.service): degraded, and ok was required\(Self.upstreams(health))"
        case .failed(let reason): "unhealthy: \(reason)"
        }
    }

    private static func upstreams(_ health: Health) -> String {
        let notes = health.upstreams.sorted { $0.key < $1.key }.filter { $0.value != "ok" }
        return notes.isEmpty ? "" : " (" + notes.map { "\($0.key): \($0.value)" }.joined(separator: "; ") + ")"
    }
}

/// The health check of a container or a pod: asks a service's `health` method once, within a deadline.
public enum HealthProbe {
    /// Asks `client` for its health, giving up after `within`; with `requireOK`, an answer whose
    /// status is not `ok` (an upstream is down) fails too.
    public static func run(_ client: HealthClient, within: Duration, requireOK: Bool) async -> ProbeVerdict {
        do {
            let health = try await client.health(.now + within)
            return requireOK && health.status != "ok" ? .degraded(health) : .healthy(health)
        } catch {
            return .failed(String(describing: error))
        }
    }
}
