import Bus
import BusContract
import Foundation
import Logging
import Market
import Money
import Synchronization
import TickwireContract
import TickwireFeeds
import Testing
import ZeroMQ

/// What a recording sink was given: each topic with its number and payload's type.
final class Recorded: Sendable {
    private let entries = Mutex<[(topic: String, seq: UInt64, publication: FeedPublication)]>([])

    var sink: FeedSink { FeedSink.recording(name: "kraken") { publication, seq in self.entries.withLock { $0.append((publication.topic.rawValue, seq, publication)) } } }
    var topics: [String] { entries.withLock { $0.map(\.topic) } }
    var statuses: [FeedStatus] {
        entries.withLock { $0.compactMap { entry in
            guard entry.topic.hasPrefix("status.") else { return nil }
            let body = (try? entry.publication.envelope(seq: entry.seq, time: Date(), source: "kraken")) ?? Data()
            return try? BusMessage(topic: entry.topic, body: body).decode(FeedStatus.self).data
        } }
    }
}

struct Flaky: Error, CustomStringConvertible {
    var description: String { "exchange said 503" }
}

@Suite("FeedRunner")
struct FeedRunnerTests {
    let logger = Logger(label: "test")
    let topic = { try Topics.quote(feed: "kraken", market: MarketPair(base: "XMR", quote: "USD")) }

    /// A poll's values go to the sink; a failure publishes `status.<feed>` error with why, and the next good poll ok.
    @Test func pollPublishesAndReportsFailureAndRecovery() async throws {
        let recorded = Recorded()
        let polls = Atomic<Int>(0)
        let topic = try topic()
        let runner = FeedRunner(sink: recorded.sink, job: .poll(every: .seconds(1)) {
            let poll = polls.add(1, ordering: .relaxed).newValue
            if poll == 2 { throw Flaky() }
            return [FeedPublication(try xmr("116.4\(poll)"), on: topic)]
        }, logger: logger)

        #expect(await runner.poll().state == .ok)
        let failed = await runner.poll()
        #expect(failed.state == .error)
        #expect(failed.message == "exchange said 503")
        #expect(failed.lastSuccess != nil, "the last success is kept")
        #expect(await runner.poll().state == .ok)
        #expect(await runner.poll().state == .ok)

        #expect(recorded.topics == [
            "quote.kraken.XMR-USD", "status.kraken", "status.kraken", "quote.kraken.XMR-USD", "status.kraken", "quote.kraken.XMR-USD",
        ], "status on the first success, the failure and the recovery only")
        #expect(recorded.statuses.map(\.state) == [.ok, .error, .ok])
        #expect(recorded.statuses.map(\.feed) == ["kraken", "kraken", "kraken"])
    }

    /// A stream job's values are published as they come; when the stream ends it is reported and opened again.
    @Test func streamIsPublishedAndOpenedAgainWhenItEnds() async throws {
        let recorded = Recorded()
        let opened = Atomic<Int>(0)
        let topic = try topic()
        let runner = FeedRunner(sink: recorded.sink, job: .stream { emit in
            let round = opened.add(1, ordering: .relaxed).newValue
            try await emit([FeedPublication(try xmr("\(round)00.5"), on: topic)])
            try await emit([FeedPublication(try xmr("\(round)01.5"), on: topic)])
        }, retryDelay: .milliseconds(5), logger: logger)
        let running = Task { try await runner.run() }
        let enough = await waitFor { opened.load(ordering: .relaxed) >= 3 }
        running.cancel()
        try await running.value
        #expect(enough)
        #expect(recorded.topics.filter { $0.hasPrefix("quote.") }.count >= 4)
        let states = recorded.statuses.map(\.state)
        #expect(Array(states.prefix(2)) == [.ok, .error])
        #expect(recorded.statuses.first { $0.state == .error }?.message == FeedRunnerError.streamEnded.description)
    }

    /// The hub's own publisher takes the same publications, numbered by it, unchanged values skipped.
    @Test func publisherSinkPublishesInProcess() async throws {
        let context = try ZMQContext()
        let publisher = try Publisher(context: context, service: "rates-fetcher", endpoints: ["inproc://feeds-sink-\(UUID())"], logger: logger)
        let sink = FeedSink.publisher(publisher, name: "kraken")
        let publication = FeedPublication(try xmr("116.41"), on: try topic())
        #expect(try sink.publish(publication) == 1)
        #expect(try sink.publish(publication) == nil)
        let entry = try #require(publisher.snapshot(prefix: "quote.kraken.").entries.first)
        #expect(entry.seq == 1)
        #expect(try BusMessage(topic: entry.topic.rawValue, body: Data(entry.body.utf8)).header.source == "kraken")
        await publisher.close()
    }
}

/// Polls `condition` every 10 ms for up to 30 s (a bound for a loaded 2-core machine, not a speed asserted).
func waitFor(_ condition: () -> Bool) async -> Bool {
    for _ in 0..<3_000 {
        if condition() { return true }
        try? await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}
