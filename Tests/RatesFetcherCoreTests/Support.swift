import Bus
import Foundation
import Logging
import ZeroMQ

/// A logger that writes nothing, so expected failures do not clutter the test output.
let quietLogger = Logger(label: "tickwire.test.rates-fetcher") { _ in SwiftLogNoOpLogHandler() }

/// A publisher bound to a fresh inproc endpoint of its own context.
struct TestPublisher {
    let context: ZMQContext
    let publisher: Publisher

    init() throws {
        context = try ZMQContext()
        publisher = try Publisher(
            context: context, service: "rates-fetcher", endpoints: ["inproc://test-\(UUID().uuidString)"], logger: quietLogger)
    }

    /// The retained topics under `prefix`, in order.
    func topics(_ prefix: String = "") -> [String] {
        publisher.snapshot(prefix: prefix).entries.map(\.topic.rawValue)
    }

    /// The retained envelope of `topic`, decoded.
    func envelope<Payload: Codable & Sendable>(_ topic: String, as type: Payload.Type = Payload.self) throws -> Envelope<Payload>? {
        guard let entry = publisher.snapshot(prefix: topic).entries.first(where: { $0.topic.rawValue == topic }) else { return nil }
        return try Wire.decode(Envelope<Payload>.self, from: Data(entry.body.utf8))
    }

    /// The sequence number `topic` stands at.
    func seq(_ topic: String) -> UInt64? {
        publisher.snapshot(prefix: topic).entries.first { $0.topic.rawValue == topic }?.seq
    }

    func close() async { await publisher.close() }
}
