import Foundation
import Money
import Testing
import TickwireContract
@testable import PresenterCore

/// The SSE fan-out: each listener's queue keeps the latest price of each asset, so a slow browser
/// catches up with current prices and never holds up the others.
@Suite("SSE broadcast")
struct PriceBroadcastTests {
    private static func price(_ asset: String, _ value: Int, in currency: String = "USD") -> AssetPrice {
        AssetPrice(asset: asset, currency: currency, price: ExactDecimal(value), changePercent24h: nil, path: [asset, currency], quoteTime: nil)
    }

    /// A listener that does not read holds one price per asset, the latest, in the order the assets first came.
    @Test func aSlowListenerGetsTheLatestPriceOfEachAsset() async {
        let broadcast = PriceBroadcast()
        let slow = broadcast.subscribe(currency: "USD")
        for value in 1...1_000 {
            for asset in ["BTC", "ETH", "XRP"] { broadcast.send(Self.price(asset, value)) }
        }
        broadcast.close()
        var received: [PriceBroadcast.Event] = []
        for await event in slow { received.append(event) }
        #expect(received == ["BTC", "ETH", "XRP"].map { .price(Self.price($0, 1_000)) })
    }

    /// While one listener reads nothing, another reads every price as it comes.
    @Test func aSlowListenerDoesNotHoldUpTheOthers() async {
        let broadcast = PriceBroadcast()
        let slow = broadcast.subscribe(currency: "USD")
        let fast = broadcast.subscribe(currency: "USD")
        var iterator = fast.makeAsyncIterator()
        for value in 1...500 {
            broadcast.send(Self.price("BTC", value))
            #expect(await iterator.next() == .price(Self.price("BTC", value)))
        }
        broadcast.close()
        var held: [PriceBroadcast.Event] = []
        for await event in slow { held.append(event) }
        #expect(held == [.price(Self.price("BTC", 500))])
    }

    /// A listener hears only its currency's prices, keep-alives once, and changes joined into one.
    @Test func currencyChangesAndKeepalives() async {
        let broadcast = PriceBroadcast()
        let sek = broadcast.subscribe(currency: "SEK")
        broadcast.send(Self.price("BTC", 1, in: "USD"))
        broadcast.send(Self.price("BTC", 10, in: "SEK"))
        broadcast.keepalive()
        broadcast.keepalive()
        broadcast.send(changed: ["plugin:notes"])
        broadcast.send(changed: ["book"])
        broadcast.send(Self.price("BTC", 11, in: "SEK"))
        broadcast.close()
        var received: [PriceBroadcast.Event] = []
        for await event in sek { received.append(event) }
        #expect(received == [.price(Self.price("BTC", 11, in: "SEK")), .keepalive, .changed(["plugin:notes", "book"])])
    }

    /// A listener whose stream is dropped leaves the broadcast.
    @Test func aDroppedListenerLeaves() async {
        let broadcast = PriceBroadcast()
        var listener: PriceBroadcast.Events? = broadcast.subscribe()
        #expect(listener != nil)
        listener = nil
        #expect(broadcast.listenerCount == 0)
    }
}
