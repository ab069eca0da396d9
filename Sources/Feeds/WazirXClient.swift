import Foundation
import Market
import Money

/// WazirX's public market data: 24-hour tickers of every market.
public struct WazirXClient: Sendable {
    /// The 24-hour tickers of every market.
    public var tickers: @Sendable () async throws -> [Quote]

    /// A client from its endpoint.
    public init(tickers: @escaping @Sendable () async throws -> [Quote]) {
        self.tickers = tickers
    }
}

extension WazirXClient {
    /// The recorded response: four INR markets (BTC, XRP, TRX, EOS).
    public static let test = Self(tickers: { try fixtureTickers() })

    /// Alive without the network: each call moves the recorded tickers onto their market's ``MockMarket`` reference
    /// at `now` and walks them a little from there, deterministically for `seed`.
    public static func mock(seed: UInt64, now: @escaping @Sendable () -> Date = { Date() }) -> Self {
        let walk = PriceWalk(seed: seed)
        return Self(tickers: {
            let time = now()
            return try fixtureTickers().map { quote in
                var quote = try quote.onMockReference(at: time).moved(by: walk.step(quote.market.symbol))
                quote.time = time
                return quote
            }
        })
    }

    private static func fixtureTickers() throws -> [Quote] {
        let fixture = FeedFixture.wazirxTickers
        return try WazirXWire.tickers(from: fixture.data(), origin: fixture.origin)
    }
}
