import Bus
import BusContract
import Foundation
import Logging
import Synchronization
import TickwireFeeds
@testable import ExchangeStreams

/// What a feed published into a `FeedSink.recording`, in order.
final class Recording: Sendable {
    let publications = Mutex<[FeedPublication]>([])

    var sink: FeedSink { sink(name: "bitso-ws") }

    func sink(name: String) -> FeedSink {
        .recording(name: name) { publication, _ in self.publications.withLock { $0.append(publication) } }
    }

    /// Every payload published on `topic`, decoded.
    func payloads<T: Codable & Sendable>(_ topic: String, as type: T.Type) throws -> [T] {
        try publications.withLock { $0 }.filter { $0.topic.rawValue == topic }.map { publication in
            try Wire.decode(Envelope<T>.self, from: try publication.envelope(seq: 1, time: Date(), source: "test")).data
        }
    }

    /// The topics published, in order.
    var topics: [String] { publications.withLock { $0.map(\.topic.rawValue) } }
}

/// Waits until `condition` holds, up to `timeout`; false if it never did.
func eventually(within timeout: Duration = .seconds(20), _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: .milliseconds(5))
    }
    return try await condition()
}

/// Settings for tests: milliseconds of backoff, no wait between snapshots, a fixed clock.
let testSettings = ExchangeFeedSettings(
    depth: 10, backoff: Backoff(initial: .milliseconds(5), maximum: .milliseconds(20), jitter: 0.5, random: { 0.5 }),
    resyncInterval: .zero, now: { Date(timeIntervalSince1970: 1_800_000_000) })

let testLogger = Logger(label: "ExchangeStreamsTests")

/// Runs `feed` while `body` runs.
func running<R>(_ feed: ExchangeFeed, _ body: () async throws -> R) async throws -> R {
    let task = Task { try await feed.run() }
    defer { task.cancel() }
    return try await body()
}
