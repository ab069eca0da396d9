/// One stream, declared once: the kind of its topics (`price` in `price.BTC.USD`) and the type of its payload.
///
/// A publisher publishes through the value and a subscriber decodes through it, so a topic's name and
/// its payload cannot drift apart.
public struct TopicSpec<Payload: Codable & Sendable>: Sendable, CustomStringConvertible {
    /// The topics' first component, e.g. `quote`.
    public let kind: String

    /// The stream of topics `kind.…` carrying `Payload`.
    public init(kind: String) {
        precondition(Topic.isValid(kind) && !kind.contains("."), "invalid topic kind \(kind)")
        self.kind = kind
    }

    /// The subscription prefix of every topic of the stream, e.g. `quote.`.
    public var prefix: String { kind + "." }

    /// Whether `topic` belongs to this stream.
    public func matches(_ topic: Topic) -> Bool { topic.kind == kind }

    public var description: String { prefix }
}

/// A type-erased stream, for listing what a service publishes (docs, contract tests).
public struct AnyTopicSpec: Sendable, Hashable, CustomStringConvertible {
    /// The topics' kind.
    public let kind: String
    /// The payload's type, e.g. `AssetPrice`.
    public let payload: String

    /// `spec` without its type.
    public init<Payload>(_ spec: TopicSpec<Payload>) {
        kind = spec.kind
        payload = String(describing: Payload.self)
    }

    public var description: String { "\(kind).* -> \(payload)" }
}
