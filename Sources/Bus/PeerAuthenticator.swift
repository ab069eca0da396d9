import Foundation
import Logging
import Metrics
import Synchronization
import ZeroMQ

/// The ZAP policy of a service with keys: CURVE clients whose key is in the keys directory's `public/` or
/// `writers/` get in, as `reader:<name>` or `writer:<name>`; every other peer (another mechanism, an unknown
/// key) is refused, counted in `tickwire_auth_refused_total` and logged once per key (or address).
public final class PeerAuthenticator: Sendable {
    /// The keys it trusts.
    public let keys: KeyDirectory
    private let service: String
    private let logger: Logger
    private let logged = Mutex<Set<String>>([])

    /// The policy of `service` over `keys`.
    public init(keys: KeyDirectory, service: String, logger: Logger) {
        self.keys = keys
        self.service = service
        self.logger = logger
    }

    /// The answer to one ZAP request.
    public func decide(_ request: ZAPRequest) -> ZAPDecision {
        guard request.mechanism == "CURVE" else {
            return refuse(request, peer: "address \(request.address)", reason: "mechanism \(request.mechanism) (CURVE only)")
        }
        guard let key = request.curveKey else { return refuse(request, peer: "address \(request.address)", reason: "no CURVE key") }
        guard let userID = keys.userID(of: key) else { return refuse(request, peer: "key \(key)", reason: "unknown key") }
        return .accept(userID)
    }

    /// Starts the ZAP handler of `context` with this policy.
    public func start(in context: ZMQContext) throws -> ZAPHandler {
        try ZAPHandler(context: context) { [self] in decide($0) }
    }

    private func refuse(_ request: ZAPRequest, peer: String, reason: String) -> ZAPDecision {
        Counter(label: "tickwire_auth_refused_total", dimensions: [("service", service), ("reason", reason == "unknown key" ? "unknown-key" : "mechanism")]).increment()
        if logged.withLock({ $0.insert(peer).inserted }) {
            logger.warning("refused a peer at the handshake (logged once per peer)", metadata: [
                "peer": "\(peer)", "address": "\(request.address)", "reason": "\(reason)"])
        }
        return .refuse(reason)
    }
}
