import Capture
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import TickwireFeeds

/// Plays capture files into a hub through one ``FeedConnection`` that carries every feed name of the capture, so
/// the hub receives the feeds' messages in capture order (over several connections they would interleave as the
/// sockets please). Reading, pacing and sending run on a thread of their own (its waits never block a cooperative
/// thread); a full hub queue holds the replay back instead of losing a message.
public final class CaptureReplay: Service, Sendable {
    /// What a finished (or stopped) replay did.
    public struct Summary: Sendable, Equatable {
        /// Messages sent.
        public var sent = 0
        /// Records skipped: topics the replay does not play (`price.`, `status.`, `heartbeat.`, ...).
        public var skipped = 0
        /// Times a full hub queue made the replay wait.
        public var waits = 0
        /// Files played.
        public var files = 0
    }

    private let files: [URL]
    private let connection: FeedConnection
    private let speed: ReplaySpeed
    private let retime: Bool
    private let hold: Duration?
    private let logger: Logger
    private let stopped = Atomic<Bool>(false)
    private let played = Atomic<Bool>(false)
    private let summary = Mutex(Summary())
    private let sentCounter = Counter(label: "tickwire_replay_messages_total")
    private let skippedCounter = Counter(label: "tickwire_replay_skipped_total")
    private let badCounter = Counter(label: "tickwire_replay_bad_records_total")

    /// A replay of `files` (in order) through `connection` at `speed`, with times moved so the first record's is now
    /// when `retime`; after the end it keeps the connection (heartbeats) for `hold` (nil: until shutdown) before
    /// returning, so the hub takes what is still queued.
    public init(
        files: [URL], connection: FeedConnection, speed: ReplaySpeed, retime: Bool = false, hold: Duration? = .seconds(2), logger: Logger
    ) {
        self.files = files
        self.connection = connection
        self.speed = speed
        self.retime = retime
        self.hold = hold
        self.logger = logger
    }

    /// The feed names `files` publish under, in order of their first message (up to a bad record, if any).
    public static func feedNames(in files: [URL]) -> [String] {
        var names: [String] = []
        var seen = Set<String>()
        for file in files {
            guard let reader = try? CaptureReader(url: file) else { continue }
            while let record = try? reader.next() {
                if let feed = ReplayMessage.feed(of: record.topic), seen.insert(feed).inserted { names.append(feed) }
            }
        }
        return names
    }

    /// What it did so far.
    public var done: Summary { summary.withLock { $0 } }

    /// Whether it played every file to its end (and held as long as it was asked to).
    public var finished: Bool { played.load(ordering: .acquiring) }

    /// Waits for the hub, plays the files, then holds; throws ``ReplayError`` at a bad record (nothing after it sent).
    public func run() async throws {
        guard await connection.waitForHub(within: .seconds(30)) else {
            throw CaptureError(file: files.first?.path ?? "-", record: 0, offset: 0, "no hub subscribed at \(connection.endpoint) within 30 s")
        }
        let outcome: Result<Void, any Error> = await withGracefulShutdownHandler {
            await withCheckedContinuation { continuation in
                let thread = Thread { continuation.resume(returning: Result { try self.play() }) }
                thread.name = "replay"
                thread.start()
            }
        } onGracefulShutdown: {
            self.stopped.store(true, ordering: .relaxed)
            self.connection.wakeWaiters()
        }
        let summary = done
        switch outcome {
        case .success:
            logger.info("replay finished", metadata: [
                "sent": "\(summary.sent)", "skipped": "\(summary.skipped)", "waits": "\(summary.waits)", "files": "\(summary.files)",
            ])
        case .failure(let error):
            badCounter.increment()
            logger.error("replay stopped", metadata: ["error": "\(error)", "sent": "\(summary.sent)"])
            throw error
        }
        if let hold {
            try? await Task.sleep(for: hold)
        } else {
            try? await gracefulShutdown()
        }
        played.store(true, ordering: .releasing)
    }

    /// Reads, paces and sends every record, on the calling (dedicated) thread.
    private func play() throws {
        var first: Int64?
        let startedWall = CaptureTime.now()
        var shift: TimeInterval?
        for file in files {
            let reader: CaptureReader
            do {
                reader = try CaptureReader(url: file)
            } catch {
                throw ReplayError(error: error)
            }
            summary.withLock { $0.files += 1 }
            let path = file.path
            while !stopped.load(ordering: .relaxed) {
                let record: CaptureRecord?
                do {
                    record = try reader.next()
                } catch {
                    throw ReplayError(error: error)
                }
                guard let record else { break }
                let origin = first ?? record.received
                if first == nil {
                    first = origin
                    if retime { shift = Double(startedWall - origin) / 1e9 }
                }
                let publication: FeedPublication?
                do {
                    publication = try ReplayMessage.publication(
                        of: record, file: path, number: reader.recordsRead, offset: reader.recordOffset, shift: shift)
                } catch {
                    throw ReplayError(error: error)
                }
                guard let publication else {
                    skippedCounter.increment()
                    summary.withLock { $0.skipped += 1 }
                    continue
                }
                if case .times(let factor) = speed {
                    let due = startedWall + Int64(Double(record.received - origin) / factor)
                    let wait = due - CaptureTime.now()
                    if wait > 0 { Thread.sleep(forTimeInterval: Double(wait) / 1e9) }
                }
                try send(publication)
            }
        }
    }

    /// Sends `publication`; while the hub's queue is full, waits until the connection's socket thread sees room (or the
    /// replay is stopped).
    private func send(_ publication: FeedPublication) throws {
        guard let (_, waited) = try connection.publish(waitingForRoom: publication, stop: { stopped.load(ordering: .relaxed) }) else { return }
        if waited { summary.withLock { $0.waits += 1 } }
        sentCounter.increment()
        summary.withLock { $0.sent += 1 }
    }
}
