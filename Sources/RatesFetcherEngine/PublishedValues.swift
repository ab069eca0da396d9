import Bus
import BusContract
import Foundation
import Market

/// What the feeds have published and is still held, as the engine reads it: the hub's publisher (its snapshot) in
/// the service, an in-memory store in the mock. Histories find a quote or a CoinGecko coin there, and a coin's
/// removal retracts its topics there.
public struct PublishedValues: Sendable {
    /// One held value: its topic and its envelope's JSON.
    public struct Held: Sendable {
        /// Its topic.
        public var topic: Topic
        /// Its envelope's JSON.
        public var body: Data

        /// A held value.
        public init(topic: Topic, body: Data) {
            self.topic = topic
            self.body = body
        }
    }

    /// Every value held under a topic starting with `prefix`.
    public var held: @Sendable (_ prefix: String) -> [Held]
    /// Retracts `topic`: subscribers hear it is gone, and it is held no more.
    public var retract: @Sendable (_ topic: Topic) throws -> Void

    /// Values of its closures.
    public init(held: @escaping @Sendable (_ prefix: String) -> [Held], retract: @escaping @Sendable (_ topic: Topic) throws -> Void) {
        self.held = held
        self.retract = retract
    }

    /// The values of `publisher`'s snapshot, retracted on it.
    public static func publisher(_ publisher: Publisher) -> Self {
        Self(
            held: { prefix in publisher.snapshot(prefix: prefix).entries.map { Held(topic: $0.topic, body: Data($0.body.utf8)) } },
            retract: { topic in _ = try publisher.retract(topic) })
    }

    /// The payloads of `spec` held under `prefix`, with their topics; a value that does not decode is left out.
    func decoded<Payload>(_ spec: TopicSpec<Payload>, under prefix: String) -> [(topic: Topic, value: Payload)] {
        held(prefix).compactMap { held in
            guard let data = try? BusMessage(topic: held.topic.rawValue, body: held.body).decode(spec)?.data else { return nil }
            return (held.topic, data)
        }
    }
}

/// The series a hub keeps of a feed plugin's market: `(asset, currency, days)` to a history, nil when it has none.
public typealias PluginSeries = @Sendable (_ asset: String, _ currency: String, _ days: Int) -> PriceHistory?
