import Foundation

/// The recorded sessions and REST answers in `Fixtures/` (their origins are in `Fixtures/PROVENANCE.md`).
public enum ExchangeFixtures {
    /// A fixture file's bytes, by its path under `Fixtures/`, e.g. `bitso/order_book_btc_mxn.json`.
    public static func data(_ path: String) throws -> Data {
        guard let folder = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "ExchangeStreams has no Fixtures folder"])
        }
        return try Data(contentsOf: folder.appendingPathComponent(path))
    }

    /// A recorded websocket session, one message a line (`bitso/session.jsonl`, `kraken/session.jsonl`).
    public static func session(_ path: String) throws -> [String] {
        String(decoding: try data(path), as: UTF8.self).split(separator: "\n").map(String.init).filter { !$0.isEmpty }
    }

    /// Bitso's recorded session.
    public static func bitsoSession() throws -> [String] { try session("bitso/session.jsonl") }

    /// Kraken's recorded session.
    public static func krakenSession() throws -> [String] { try session("kraken/session.jsonl") }
}

/// A client closure that a test must not reach.
public struct Unimplemented: Error, CustomStringConvertible {
    /// The closure's name.
    public var name: String

    /// The error of `name`.
    public init(_ name: String) { self.name = name }

    public var description: String { "\(name) is not implemented in this client (failing)" }
}
