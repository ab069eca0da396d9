import Bus
import Foundation
import BusContract

/// The answers of a real stack recorded by `scripts/record-client-fixtures.py`: what the `test`
/// clients return and what the mocks start from.
package enum Fixtures {
    /// The recorded result of `method` of `service`, decoded as `type`.
    package static func load<T: Decodable>(_ service: String, _ method: String, as type: T.Type = T.self) throws -> T {
        guard let url = Bundle.module.url(forResource: method, withExtension: "json", subdirectory: "Fixtures/\(service)") else {
            throw RPCError.internalError("no recorded answer of \(service) to \(method)")
        }
        return try Wire.decode(T.self, from: Data(contentsOf: url))
    }

    /// The recorded snapshot of `service`'s streams, as typed updates: the entries `decode` knows.
    package static func snapshot<Value>(_ service: String, decode: (BusMessage) throws -> Value?) throws -> [StreamUpdate<Value>] {
        try load(service, "snapshot", as: Snapshot.self).entries.compactMap { entry in
            let message = try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8))
            return try decode(message).map {
                StreamUpdate(topic: message.topic, seq: message.header.seq, time: message.header.time, source: message.header.source, value: $0)
            }
        }
    }

    /// A closure that answers `method`'s recorded result, whatever it is asked.
    package static func answer<Input, Output: Decodable & Sendable>(_ service: String, _ method: String) -> @Sendable (Input) async throws -> Output {
        { _ in try load(service, method) }
    }

    /// A closure without input that answers `method`'s recorded result.
    package static func answer<Output: Decodable & Sendable>(_ service: String, _ method: String) -> @Sendable () async throws -> Output {
        { try load(service, method) }
    }
}

extension StreamEvents {
    /// A stream that reports `updates` as one snapshot, then stays open with nothing new, as a quiet publisher does.
    package static func recorded(_ updates: @escaping @Sendable () throws -> [StreamUpdate<Value>]) -> Self {
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
