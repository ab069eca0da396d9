import Foundation

/// A service's answer to `health`: how it is and how its upstreams are.
public struct Health: Codable, Sendable, Equatable {
    /// `ok` when every upstream is reachable, else `degraded`.
    public var status: String
    /// The service's name.
    public var service: String
    /// Seconds since start.
    public var uptimeSeconds: Int
    /// Each upstream's state by name: `ok` or a sentence saying what is wrong.
    public var upstreams: [String: String]

    /// A health report; `status` follows from the upstreams.
    public init(service: String, started: Date, upstreams: [String: String]) {
        self.service = service
        self.uptimeSeconds = Int(Date().timeIntervalSince(started))
        self.upstreams = upstreams
        self.status = upstreams.values.allSatisfy { $0 == "ok" } ? "ok" : "degraded"
    }
}
