import Bus
import Foundation
import Logging
import Market
import TickwireContract
import Metrics
import Tracing

/// Polls one feed on its schedule and on request, publishes what changed, and keeps
/// `status.<feed>` true: a failure is logged, counted and published, the last good
/// values stay, and the next poll tries again.
public actor FeedPoller {
    /// The feed's name.
    public let feed: Feed
    /// How often it polls by itself.
    public let period: Duration
    private let job: @Sendable () async throws -> [Publication]
    private let publisher: Publisher
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let sleep: @Sendable (Duration) async throws -> Void
    private var current: FeedStatus
    private var inFlight: Task<FeedStatus, Never>?

    /// A poller of `feed` running `job`; `sleep` waits between polls (a test's clock can stand in for the real one).
    public init(
        feed: Feed, period: Duration, publisher: Publisher, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) },
        job: @escaping @Sendable () async throws -> [Publication]
    ) {
        self.feed = feed
        self.period = period
        self.job = job
        self.publisher = publisher
        self.logger = logger
        self.now = now
        self.sleep = sleep
        self.current = FeedStatus(feed: feed.rawValue, state: .stale, message: "not polled yet")
    }

    /// The feed's state now.
    public var status: FeedStatus { current }

    /// Polls now, or joins the poll already under way, and returns the resulting status.
    @discardableResult
    public func poll() async -> FeedStatus {
        if let inFlight { return await inFlight.value }
        let task = Task { await self.pollOnce() }
        inFlight = task
        let status = await task.value
        inFlight = nil
        return status
    }

    /// Waits for the poll under way, if any, to finish: what it read before a change (a coin removed) is then
    /// published, and what follows sees the change.
    public func settle() async {
        if let inFlight { _ = await inFlight.value }
    }

    /// Polls at once, then every `period` until cancelled; a zero period polls flat out (a mock feed then
    /// publishes as fast as the bus takes it, which is what the pipeline benchmark measures).
    public func run() async {
        while !Task.isCancelled {
            await poll()
            if period > .zero {
                try? await sleep(period)
            } else {
                await Task.yield()
            }
        }
    }

    /// One poll, in a span of a trace of its own: what it publishes (quotes, rates, its status) carries that trace,
    /// which the converter's prices, the portfolio and the presenter's pages continue.
    private func pollOnce() async -> FeedStatus {
        await withSpan("feed.poll", context: .topLevel, ofKind: .producer) { span in
            span.attributes["tickwire.feed"] = feed.rawValue
            let status = await pollAndPublish()
            if status.state == .error { span.setStatus(SpanStatus(code: .error, message: status.message)) }
            return status
        }
    }

    private func pollAndPublish() async -> FeedStatus {
        let attempt = now()
        do {
            let publications = try await job()
            var published = 0
            for publication in publications {
                try publication.publish(with: publisher)
                published += 1
            }
            current = FeedStatus(feed: feed.rawValue, state: .ok, lastSuccess: attempt, lastAttempt: attempt)
            logger.debug("polled", metadata: ["feed": "\(feed.rawValue)", "values": "\(published)"])
        } catch {
            Counter(label: "tickwire_feed_errors_total", dimensions: [("feed", feed.rawValue)]).increment()
            logger.error("feed failed; keeping its last good data", metadata: ["feed": "\(feed.rawValue)", "error": "\(error)"])
            current = FeedStatus(
                feed: feed.rawValue, state: .error, message: String(describing: error),
                lastSuccess: current.lastSuccess, lastAttempt: attempt)
        }
        do {
            try publisher.publish(current, on: Topics.status(feed: feed.rawValue))
        } catch {
            logger.error("could not publish feed status", metadata: ["feed": "\(feed.rawValue)", "error": "\(error)"])
        }
        return current
    }
}
