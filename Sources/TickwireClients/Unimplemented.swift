/// What every closure of a `failing` client throws: the client and the closure that a test reached
/// although it must not.
public struct Unimplemented: Error, Equatable, Sendable, CustomStringConvertible {
    /// `Client.closure`, e.g. `PortfolioClient.holdings`.
    public let name: String

    /// The error of `name`.
    public init(_ name: String) { self.name = name }

    public var description: String { "\(name) is not implemented here: a test reached a dependency it must not use" }
}

/// A closure that throws ``Unimplemented`` naming `name`, whatever it is given.
func unimplemented<Input, Output>(_ name: String) -> @Sendable (Input) async throws -> Output {
    { _ in throw Unimplemented(name) }
}

/// A closure without input that throws ``Unimplemented`` naming `name`.
func unimplemented<Output>(_ name: String) -> @Sendable () async throws -> Output {
    { throw Unimplemented(name) }
}
