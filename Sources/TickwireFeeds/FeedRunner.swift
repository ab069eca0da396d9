import Foundation
import Logging
import Market
import Metrics
import ServiceLifecycle
import TickwireContract
import Tracing

/// How a feed gets its values: a poll on a period, or a stream it keeps open.
public struct FeedJob: Sendable {
    /// Hands a stream's values to the runner, which publishes them.
    public typealias Emit = @Sendable (_ publications: [FeedPublication]) async throws -> Void

    enum Body: Sendable {
        case poll(period: Duration, poll: @Sendable () async throws -> [FeedPublication])
        case stream(@Sendable (_ emit: Emit) async throws -> Void)
    }

    let body: Body

    /// Runs `poll` at once, then every `period` (a zero period polls again as soon as a poll ends); each poll returns
    /// everything it fetched, or throws (the last good values stay).
    public static func poll(every period: Duration, _ poll: @escaping @Sendable () async throws -> [FeedPublication]) -> Self {
        Self(body: .poll(period: period, poll: poll))
    }

    /// Runs `stream`, which hands its values to `emit` as they come and returns or throws when the stream ends; the
    /// runner then waits its retry delay and opens it again.
    public static func stream(_ stream: @escaping @Sendable (_ emit: Emit) async throws -> Void) -> Self {
        Self(body: .stream(stream))
    }
}

/// Runs one feed's job and publishes what it returns into a ``FeedSink``; `status.<feed>` goes out when the feed
/// first succeeds, when it fails (with why) and when it recovers. A failure is logged, counted
/// (`tickwire_feed_errors_total{feed}`) and the job tried again. Each poll runs in a span of a trace of its own
/// (`feed.poll`), which what it publishes carries. rates-fetcher's built-in feeds and outside feeds run on it alike.
public actor FeedRunner: Service {
    /// The feed's name (the sink's).
    public nonisolated let name: String
    private let sink: FeedSink
    private let job: FeedJob
    private let retryDelay: Duration
    private let statusEveryPoll: Bool
    private let logger: Logger
    private let now: @Sendable () -> Date
    private let sleep: @Sendable (Duration) async throws -> Void
    private var current: FeedStatus
    private var published: FeedStatus?
    private var inFlight: Task<FeedStatus, Never>?

    /// A runner of `job` into `sink`; a stream that ended is opened again after `retryDelay`. With `statusEveryPoll`,
    /// `status.<feed>` goes out after every poll (its `lastSuccess` and `lastAttempt` new), as rates-fetcher's own feeds
    /// report; else only when the state or its message changes. `now` and `sleep` stand in for the clock in tests.
    public init(
        sink: FeedSink, job: FeedJob, retryDelay: Duration = .seconds(1), statusEveryPoll: Bool = false, logger: Logger,
        now: @escaping @Sendable () -> Date = { Date() },
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.name = sink.name
        self.sink = sink
        self.job = job
        self.retryDelay = retryDelay
        self.statusEveryPoll = statusEveryPoll
        self.logger = logger
        self.now = now
        self.sleep = sleep
        self.current = FeedStatus(feed: sink.name, state: .stale, message: "not polled yet")
    }

    /// The feed's state now.
    public var status: FeedStatus { current }

    /// Runs the job until graceful shutdown or cancellation.
    public func run() async throws {
        await cancelWhenGracefulShutdown { await self.runJob() }
    }

    private func runJob() async {
        switch job.body {
        case .poll(let period, _):
            while !Task.isCancelled {
                await poll()
                if period > .zero { try? await sleep(period) } else { await Task.yield() }
            }
        case .stream(let stream):
            while !Task.isCancelled {
                let attempt = now()
                do {
                    try await stream { publications in try await self.publish(publications, attempt: self.now()) }
                    if Task.isCancelled { return }
                    failed(FeedRunnerError.streamEnded, attempt: attempt)
                } catch {
                    if Task.isCancelled { return }
                    failed(error, attempt: attempt)
                }
                try? await sleep(retryDelay)
            }
        }
    }

    /// Runs a poll job once, or joins the poll already under way, and publishes what it returned; returns the feed's
    /// status after it. A stream job has nothing to poll: its status is returned as it is.
    @discardableResult
    public func poll() async -> FeedStatus {
        guard case .poll(_, let poll) = job.body else { return current }
        if let inFlight { return await inFlight.value }
        let task = Task { await self.pollOnce(poll) }
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

    private func pollOnce(_ poll: @Sendable () async throws -> [FeedPublication]) async -> FeedStatus {
        await withSpan("feed.poll", context: .topLevel, ofKind: .producer) { span in
            span.attributes["tickwire.feed"] = name
            let attempt = now()
            do {
                try publish(try await poll(), attempt: attempt)
            } catch {
                failed(error, attempt: attempt)
            }
            if current.state == .error { span.setStatus(SpanStatus(code: .error, message: current.message)) }
            return current
        }
    }

    /// Publishes `publications` into the sink and marks the feed ok (publishing `status.<feed>` if it was not).
    private func publish(_ publications: [FeedPublication], attempt: Date) throws {
        for publication in publications { _ = try sink.publish(publication) }
        current = FeedStatus(feed: name, state: .ok, lastSuccess: attempt, lastAttempt: attempt)
        logger.debug("published", metadata: ["feed": "\(name)", "values": "\(publications.count)"])
        publishStatusIfChanged()
    }

    private func failed(_ error: any Error, attempt: Date) {
        Counter(label: "tickwire_feed_errors_total", dimensions: [("feed", name)]).increment()
        logger.error("feed failed; keeping its last good data", metadata: ["feed": "\(name)", "error": "\(error)"])
        current = FeedStatus(feed: name, state: .error, message: String(describing: error),
                             lastSuccess: current.lastSuccess, lastAttempt: attempt)
        publishStatusIfChanged()
    }

    /// `status.<feed>` when the state or its message changed since the last one published (with `statusEveryPoll`, always).
    private func publishStatusIfChanged() {
        guard statusEveryPoll || published?.state != current.state || published?.message != current.message else { return }
        do {
            _ = try sink.publish(FeedPublication(current, on: try Topics.status(feed: name)))
            published = current
        } catch {
            logger.error("could not publish feed status", metadata: ["feed": "\(name)", "error": "\(error)"])
        }
    }
}

/// Why a feed's job stopped.
public enum FeedRunnerError: Error, Equatable, CustomStringConvertible {
    /// A stream job returned: its source closed the stream.
    case streamEnded

    public var description: String {
        switch self {
        case .streamEnded: "the stream ended; opening it again"
        }
    }
}
