import Foundation
import Market
import Money

/// The in-process websocket of the mock clients: what the mock answers to each message sent, and a step of it every
/// `interval`.
enum MockSocket {
    static func open(
        interval: Duration, receive: @escaping @Sendable (String) -> [String], step: @escaping @Sendable (Date) -> [String]
    ) -> WebSocketConnection {
        let (messages, input) = AsyncThrowingStream<String, any Error>.makeStream()
        let task = Task {
            while true {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    break
                }
                for message in step(Date()) { input.yield(message) }
            }
            input.finish()
        }
        input.onTermination = { _ in task.cancel() }
        return WebSocketConnection(
            messages: messages,
            send: { text in for message in receive(text) { input.yield(message) } },
            close: {
                task.cancel()
                input.finish()
            })
    }

    /// A connection whose messages throw at once.
    static func failing(_ name: String) -> WebSocketConnection {
        WebSocketConnection(
            messages: AsyncThrowingStream { $0.finish(throwing: Unimplemented(name)) }, send: { _ in throw Unimplemented(name) }, close: {})
    }
}

/// What the mocks share: each market's reference price, a tick that gives it about five significant digits, and
/// order sizes worth tens to thousands of dollars.
struct MockPricing {
    /// `market`'s reference price at `time` (`MockMarket`), nil for a market without one.
    static func reference(_ market: MarketPair, at time: Date) -> ExactDecimal? {
        try? MockMarket.reference(asset: market.base, currency: market.quote, at: time)
    }

    /// The price step for a market priced near `price`: 10^(digits before the point − 5).
    static func tick(for price: ExactDecimal) -> ExactDecimal {
        let integerDigits = price.rounded(scale: 0).description.drop { $0 == "-" }.count
        let exponent = integerDigits - 5
        if exponent >= 0 {
            var value = 1
            for _ in 0..<exponent { value *= 10 }
            return ExactDecimal(value)
        }
        return (try? ExactDecimal(mantissa: 1, scale: min(-exponent, 12))) ?? ExactDecimal(1)
    }

    /// `price` rounded down to a multiple of `tick`, at the tick's scale.
    static func snap(_ price: ExactDecimal, tick: ExactDecimal) -> ExactDecimal {
        let units = (try? price.divided(by: tick, scale: 0, rule: .towardZero)) ?? price
        return ((try? units * tick) ?? price).rounded(scale: tick.scale)
    }

    /// A size in `market`'s base currency worth `dollars` US dollars at `time`, with eight decimals.
    static func size(_ market: MarketPair, dollars: Int, at time: Date) -> ExactDecimal {
        guard let usd = try? MockMarket.reference(asset: market.base, currency: "USD", at: time), usd > .zero,
              let size = try? ExactDecimal(dollars).divided(by: usd, scale: 8), size > .zero
        else { return (try? ExactDecimal(mantissa: 1, scale: 2)) ?? ExactDecimal(1) }
        return size
    }

    /// `price` moved by `ticks` steps of `tick`.
    static func offset(_ price: ExactDecimal, ticks: Int, tick: ExactDecimal) -> ExactDecimal {
        (try? price + (try ExactDecimal(ticks) * tick)) ?? price
    }
}
