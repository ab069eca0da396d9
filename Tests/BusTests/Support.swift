import Bus
import Foundation
import Logging
import ZeroMQ

/// A unique ipc endpoint for one test.
func ipcEndpoint() -> String { "ipc:///tmp/tickwire-bus-\(UUID().uuidString.prefix(8))" }

let testLogger = Logger(label: "tickwire.test")

/// The first element of `stream` that `match` accepts, or `nil` after `timeout`.
func first<Stream: AsyncSequence<Element, Never> & Sendable, Element: Sendable>(
    _ stream: Stream, within timeout: Duration = .seconds(10),
    where match: @escaping @Sendable (Element) -> Bool = { _ in true }
) async -> Element? {
    await withTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await element in stream where match(element) { return element }
            return nil
        }
        group.addTask {
            try? await Task.sleep(for: timeout)
            return nil
        }
        let result = await group.next() ?? nil
        group.cancelAll()
        return result
    }
}

/// Sends heartbeats of publisher run "one" through the raw PUB socket `raw` until `condition` holds (a subscriber
/// fetches its first snapshot after a heartbeat), polling as ``wait(for:until:)`` does.
func heartbeating(_ raw: OwnedSocket, until condition: () async -> Bool) async -> Bool {
    let beat = [Data("heartbeat.raw".utf8), Data(#"{"type":"heartbeat","seq":1,"time":"2026-11-23T10:15:31.000Z","source":"raw","data":{"service":"raw","instance":"one","topics":1,"dropped":0,"intervalMilliseconds":1000}}"#.utf8)]
    return await wait {
        raw.post(beat)
        return await condition()
    }
}

/// A test payload.
struct Price: Codable, Sendable, Equatable {
    var symbol: String
    var price: String
}
