import Bus
import BusContract
import Foundation
import TickwireContract
import Testing
import ZeroMQ

@Suite("replay end to end", .serialized)
struct ReplayDeterminismTests {
    /// The shipped capture replayed at full speed into two fresh stacks (rates-fetcher --feeds none, a converter
    /// ranking the capture's feeds) gives the converter the same `price.*` data in the same order (times aside).
    @Test func fullSpeedReplaysGiveIdenticalPrices() async throws {
        let capture = try CaptureFile()
        try #require(!capture.feedNames.isEmpty)
        async let first = replayedPrices(capture)
        async let second = replayedPrices(capture)
        let (one, two) = try await (first, second)
        #expect(one.count > 20, "the capture gives the converter prices")
        #expect(one.count == two.count)
        if let difference = zip(one, two).enumerated().first(where: { $0.element.0 != $0.element.1 }) {
            Issue.record("price \(difference.offset) differs: \(difference.element.0) vs \(difference.element.1)")
        }
    }

    /// One fresh stack, the capture replayed into it at full speed: every `price.*` message the converter published,
    /// as `topic data` with the quote's time taken out.
    private func replayedPrices(_ capture: CaptureFile) async throws -> [String] {
        let stack = try await ReplayStack(capture: capture)
        let prices = try OwnedSocket(context: stack.context, type: .sub, name: "prices", receiveBuffer: 1_000_000) { socket in
            try socket.subscribe("price.")
            try socket.subscribe("heartbeat.")
            try socket.connect(stack.endpoints.converterPub)
        }
        // Connected once the converter's heartbeat comes through.
        _ = await prices.incoming.first(within: .seconds(10)) { String(decoding: $0[0], as: UTF8.self).hasPrefix("heartbeat.") }
        #expect(try await stack.playToTheEnd() == 0)
        var seen: [String] = []
        // What the converter still has to publish comes within a second (the replay ended 2 s after its last message).
        while let frames = await prices.incoming.first(within: .seconds(1), where: { String(decoding: $0[0], as: UTF8.self).hasPrefix("price.") }) {
            var price = try Wire.decode(Envelope<AssetPrice>.self, from: frames[1]).data
            price.quoteTime = nil
            seen.append("\(String(decoding: frames[0], as: UTF8.self)) \(String(decoding: try Wire.encode(price), as: UTF8.self))")
        }
        await prices.close()
        await stack.stop()
        return seen
    }
}
