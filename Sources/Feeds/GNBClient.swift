import Foundation
import Market
import Money

/// The GNB ("International Business Men") service: currency rates and product sales.
public struct GNBClient: Sendable {
    /// The rates the service knows; some pairs are missing and must be derived.
    public var rates: @Sendable () async throws -> [ExchangeRate]
    /// Every sale of every product.
    public var transactions: @Sendable () async throws -> [GNBTransaction]

    /// A client from its endpoints.
    public init(
        rates: @escaping @Sendable () async throws -> [ExchangeRate],
        transactions: @escaping @Sendable () async throws -> [GNBTransaction]
    ) {
        self.rates = rates
        self.transactions = transactions
    }
}

extension GNBClient {
    /// The challenge statement's sample: four rates (no USD to CAD) and five sales; T2006 totals 14.99 EUR.
    public static let test = Self(
        rates: { try rates(.gnbRates) },
        transactions: { try transactions(.gnbTransactions) }
    )

    /// Alive without the network: the 2021-08-07 recording (six rates, 5,061 sales), its rates walking a little
    /// on each call, deterministically for `seed`.
    public static func mock(seed: UInt64) -> Self {
        let walk = PriceWalk(seed: seed)
        return Self(
            rates: {
                try rates(.gnbRatesLarge).map { rate in
                    var rate = rate
                    rate.rate = try PriceWalk.scale(rate.rate, by: walk.step("\(rate.from)-\(rate.to)"))
                    return rate
                }
            },
            transactions: { try transactions(.gnbTransactionsLarge) }
        )
    }

    private static func rates(_ fixture: FeedFixture) throws -> [ExchangeRate] {
        try GNBWire.rates(from: fixture.data(), origin: fixture.origin)
    }

    private static func transactions(_ fixture: FeedFixture) throws -> [GNBTransaction] {
        try GNBWire.transactions(from: fixture.data(), origin: fixture.origin)
    }
}
