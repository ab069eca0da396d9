import Foundation
import Logging

/// Kraken's public websocket v2, as a feed needs it (its book snapshots come on the socket).
public struct KrakenStreamClient: Sendable {
    /// Opens the websocket.
    public var connect: @Sendable () -> WebSocketConnection

    /// A client of its closure.
    public init(connect: @escaping @Sendable () -> WebSocketConnection) {
        self.connect = connect
    }
}

extension KrakenStreamClient {
    /// Kraken's public websocket v2.
    public static let websocketURL = "wss://ws.kraken.com/v2"

    /// The real Kraken.
    public static func live(websocketURL: String = websocketURL, logger: Logger) -> Self {
        Self(connect: { WebSocketConnection.open(url: websocketURL, logger: logger) })
    }

    /// A recorded session at `url` (a ``ReplayServer`` playing `Fixtures/kraken/session.jsonl`).
    public static func test(url: String, logger: Logger) -> Self {
        Self(connect: { WebSocketConnection.open(url: url, logger: logger) })
    }

    /// A synthetic Kraken in process: each subscribed symbol's book walks around its reference price (`MockMarket`),
    /// with snapshots, updates carrying the real CRC32 checksum, trades and tickers, a change every `interval`.
    public static func mock(seed: UInt64 = 42, interval: Duration = .milliseconds(250)) -> Self {
        Self(connect: {
            let exchange = KrakenMockExchange(seed: seed)
            return MockSocket.open(interval: interval, receive: exchange.received, step: exchange.step)
        })
    }

    /// Every connection fails at once, naming the closure.
    public static let failing = Self(connect: { MockSocket.failing("KrakenStreamClient.connect") })
}
