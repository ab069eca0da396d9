import Capture
import Dispatch
import Foundation
import Logging
import Metrics
import ServiceLifecycle
import Synchronization
import ZeroMQ

/// A stream the recorder follows: its endpoint and how its socket is secured (CURVE with the stack's keys).
public struct RecordedStream: Sendable {
    /// The publisher's endpoint (`tcp://127.0.0.1:7102`).
    public var endpoint: String
    /// Its socket's security.
    public var security: SocketSecurity

    /// `endpoint`, secured with `security`.
    public init(endpoint: String, security: SocketSecurity = SocketSecurity()) {
        self.endpoint = endpoint
        self.security = security
    }
}

/// What a recorder has done so far.
public struct RecorderCounts: Sendable, Equatable {
    /// Messages written.
    public var messages = 0
    /// Messages missing by their topics' `seq` (a jump from 4 to 7 is 2).
    public var gaps = 0
    /// Envelope bytes received.
    public var envelopeBytes = 0
    /// Compressed bytes written.
    public var fileBytes: Int64 = 0
    /// Messages not written: not two frames, or an envelope that is not UTF-8.
    public var refused = 0
    /// Files begun.
    public var files = 0
}

/// Follows topic prefixes of streams and writes what arrives into rotating capture files.
///
/// Each stream's SUB socket is an ``OwnedSocket`` in handler mode: its own thread reads and stamps each batch and
/// queues it; a writer thread numbers (gap counting by each topic's envelope `seq`), compresses and writes, and
/// flushes at least every second. On graceful shutdown the sockets close, the queue is written out and the file
/// finished.
public final class CaptureRecorder: Service, Sendable {
    private let streams: [RecordedStream]
    private let prefixes: [String]
    private let context: ZMQContext
    private let logger: Logger
    private let queue = Mutex(Pending())
    private let wakeup = DispatchSemaphore(value: 0)
    private let counts = Mutex(RecorderCounts())
    private let ended = Atomic<Bool>(false)
    private let makeWriter: @Sendable () throws -> CaptureWriter
    private let metrics = RecorderMetrics()
    private let maxPending: Int
    private let directory: URL

    private struct Pending: Sendable {
        var batches: [(received: Int64, messages: [[Data]])] = []
        var count = 0
        /// Socket threads waiting for the writer to take the queue.
        var waiters: [DispatchSemaphore] = []
        /// Whether no socket thread may wait any more: the recorder ended, or the writer stopped.
        var closed = false

        /// A semaphore to wait on for room when more than `limit` messages are queued and the writer still takes them.
        mutating func waiter(over limit: Int) -> DispatchSemaphore? {
            guard count > limit, !closed else { return nil }
            let waiter = DispatchSemaphore(value: 0)
            waiters.append(waiter)
            return waiter
        }

        /// Wakes every socket thread that waits for room.
        mutating func release() {
            for waiter in waiters { waiter.signal() }
            waiters.removeAll()
        }
    }

    /// A recorder of `streams`' topics starting with one of `prefixes` (none: every topic) into `directory`, rotated by
    /// `rotation`; the socket threads wait while `maxPending` messages are queued for the writer (libzmq's queues then hold what comes).
    public init(
        context: ZMQContext, streams: [RecordedStream], prefixes: [String], directory: URL, rotation: CaptureRotation = CaptureRotation(),
        maxPending: Int = 1_000_000, logger: Logger
    ) {
        self.context = context
        self.streams = streams
        self.prefixes = prefixes
        self.logger = logger
        self.maxPending = maxPending
        self.directory = directory
        let endpoints = streams.map(\.endpoint)
        makeWriter = { try CaptureWriter(directory: directory, endpoints: endpoints, prefixes: prefixes, rotation: rotation) }
    }

    /// What it has done so far.
    public var done: RecorderCounts { counts.withLock { $0 } }

    /// Subscribes, records until graceful shutdown (or cancellation), then writes out what is queued and closes the file.
    public func run() async throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        } catch {
            throw CaptureError(file: directory.path, record: 0, offset: 0, "cannot make the directory: \(error)")
        }
        let finished: Task<Void, any Error> = Task.detached { try await self.runWriter() }
        var sockets: [OwnedSocket] = []
        do {
            for stream in streams {
                sockets.append(try OwnedSocket(context: context, type: .sub, name: "recorder", handler: { [self] batch in enqueue(batch) }) { socket in
                    try socket.set(.receiveHighWaterMark, 0)
                    try stream.security.apply(to: socket)
                    if self.prefixes.isEmpty { try socket.subscribe("") }
                    for prefix in self.prefixes { try socket.subscribe(prefix) }
                    try socket.connect(stream.endpoint)
                })
            }
            logger.info("recording", metadata: ["streams": "\(streams.map(\.endpoint))", "prefixes": "\(prefixes)", "to": "\(directory.path)"])
            await cancelWhenGracefulShutdown {
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
            }
        } catch {
            logger.error("cannot follow the streams", metadata: ["error": "\(error)"])
        }
        for socket in sockets { await socket.close() }
        ended.store(true, ordering: .releasing)
        queue.withLock { pending in
            pending.closed = true
            pending.release()
        }
        wakeup.signal()
        try await finished.value
        let counts = done
        logger.info("recorder closed", metadata: [
            "messages": "\(counts.messages)", "gaps": "\(counts.gaps)", "bytes": "\(counts.fileBytes)", "files": "\(counts.files)",
        ])
    }

    /// On a socket's thread: stamps and queues a batch; while the writer is far behind, sleeps until it takes the queue
    /// (or the recorder ends).
    private func enqueue(_ batch: [[Data]]) {
        let received = CaptureTime.now()
        var waiter = queue.withLock { pending -> DispatchSemaphore? in
            pending.batches.append((received, batch))
            pending.count += batch.count
            return pending.waiter(over: maxPending)
        }
        wakeup.signal()
        while let room = waiter {
            room.wait()
            waiter = queue.withLock { $0.waiter(over: maxPending) }
        }
    }

    /// The writer thread's loop, until the sockets closed and the queue is empty; the file is finished at the end.
    private func runWriter() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            let thread = Thread {
                let result = Result { try self.write(into: try self.makeWriter()) }
                self.queue.withLock { pending in
                    pending.closed = true
                    pending.release()
                }
                continuation.resume(with: result)
            }
            thread.name = "recorder-writer"
            thread.start()
        }
    }

    private func write(into writer: CaptureWriter) throws {
        var lastSeqs: [Data: UInt64] = [:]
        defer { try? writer.close() }
        while true {
            _ = wakeup.wait(timeout: .now() + .milliseconds(250))
            let finishing = ended.load(ordering: .acquiring)
            let batches = queue.withLock { pending -> [(received: Int64, messages: [[Data]])] in
                let taken = pending.batches
                pending.batches.removeAll(keepingCapacity: true)
                pending.count = 0
                pending.release()
                return taken
            }
            var delta = RecorderCounts()
            for (received, messages) in batches {
                for frames in messages {
                    guard frames.count == 2 else {
                        delta.refused += 1
                        continue
                    }
                    let topic = frames[0], envelope = frames[1]
                    if let seq = EnvelopeSeq.read(envelope) {
                        if let last = lastSeqs[topic], seq > last + 1 { delta.gaps += Int(seq - last - 1) }
                        lastSeqs[topic] = seq
                    }
                    do {
                        try writer.append(CaptureRecord(received: received, topic: String(decoding: topic, as: UTF8.self), envelope: envelope))
                        delta.messages += 1
                        delta.envelopeBytes += envelope.count
                    } catch {
                        delta.refused += 1
                        logger.warning("message not recorded", metadata: ["error": "\(error)"])
                    }
                }
            }
            if finishing && batches.isEmpty {
                try writer.close()
            } else {
                try writer.tick()
            }
            delta.fileBytes = writer.bytesWritten
            delta.files = writer.files.count
            metrics.add(delta, since: counts.withLock { $0 })
            counts.withLock { counts in
                counts.messages += delta.messages
                counts.gaps += delta.gaps
                counts.envelopeBytes += delta.envelopeBytes
                counts.refused += delta.refused
                counts.fileBytes = delta.fileBytes
                counts.files = delta.files
            }
            if finishing && batches.isEmpty { return }
        }
    }
}

/// The recorder's counters: `tickwire_recorder_messages_total`, `_gaps_total`, `_bytes_total` (compressed, written),
/// `_refused_total`.
private struct RecorderMetrics: Sendable {
    let messages = Counter(label: "tickwire_recorder_messages_total")
    let gaps = Counter(label: "tickwire_recorder_gaps_total")
    let bytes = Counter(label: "tickwire_recorder_bytes_total")
    let refused = Counter(label: "tickwire_recorder_refused_total")

    func add(_ delta: RecorderCounts, since before: RecorderCounts) {
        if delta.messages > 0 { messages.increment(by: delta.messages) }
        if delta.gaps > 0 { gaps.increment(by: delta.gaps) }
        if delta.refused > 0 { refused.increment(by: delta.refused) }
        let written = delta.fileBytes - before.fileBytes
        if written > 0 { bytes.increment(by: Int(written)) }
    }
}

/// Reads an envelope's `seq` without parsing the rest: the first `"seq":` member, which the bus writes before `data`.
enum EnvelopeSeq {
    private static let key = Array("\"seq\":".utf8)

    static func read(_ envelope: Data) -> UInt64? {
        envelope.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> UInt64? in
            let limit = min(bytes.count, 256)
            guard limit > key.count else { return nil }
            var index = 0
            while index + key.count <= limit {
                if bytes[index] == key[0], (0..<key.count).allSatisfy({ bytes[index + $0] == key[$0] }) {
                    var position = index + key.count
                    while position < bytes.count, bytes[position] == UInt8(ascii: " ") { position += 1 }
                    var value: UInt64 = 0
                    var digits = 0
                    while position < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[position]), digits < 19 {
                        value = value * 10 + UInt64(bytes[position] - UInt8(ascii: "0"))
                        position += 1
                        digits += 1
                    }
                    return digits > 0 ? value : nil
                }
                index += 1
            }
            return nil
        }
    }
}
