import Foundation
import Market
import Money

/// Daily fiat exchange rates from one base currency.
public struct FiatClient: Sendable {
    /// The latest published rates.
    public var latest: @Sendable () async throws -> FiatRates

    /// A client from its endpoint.
    public init(latest: @escaping @Sendable () async throws -> FiatRates) {
        self.latest = latest
    }
}

extension FiatClient {
    /// The recorded Frankfurter (ECB) rates from USD of 2025-12-17.
    public static let test = Self(latest: { try fixtureRates() })

    /// Alive without the network: each call walks the recorded rates a little, deterministically for `seed`.
    public static func mock(seed: UInt64) -> Self {
        let walk = PriceWalk(seed: seed)
        return Self(latest: {
            var rates = try fixtureRates()
            for index in rates.rates.indices {
                let rate = rates.rates[index]
                rates.rates[index].rate = try PriceWalk.scale(rate.rate, by: walk.step("\(rate.from)-\(rate.to)"))
            }
            return rates
        })
    }

    /// The recorded rates behind ``test``.
    static func fixtureRates() throws -> FiatRates {
        let fixture = FeedFixture.frankfurterLatestUSD
        return try FiatWire.frankfurter(from: fixture.data(), origin: fixture.origin, base: "USD")
    }
}
