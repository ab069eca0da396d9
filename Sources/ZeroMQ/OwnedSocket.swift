import DequeModule
import Foundation
import ReaderQueue
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A socket owned by a thread of its own, so async code can use it safely.
///
/// libzmq sockets are not thread-safe and their blocking calls must never run on
/// Swift's cooperative pool. Here one dedicated thread creates nothing, but owns
/// everything afterwards: it sleeps in `zmq_poll` on the socket and a wake-up pipe,
/// wakes when a message arrives or a command is queued, and never busy-polls.
/// Received messages come out of ``incoming``; sends and socket changes go in as
/// commands that run on the owner thread in order.
public final class OwnedSocket: Sendable {
    /// A name for logs and thread names.
    public let name: String
    /// The socket's pattern.
    public let type: SocketType
    /// Every multipart message the socket receives, in order. Finishes when the socket closes.
    /// One reader at a time; iterators made one after another continue where the last stopped.
    public let incoming: Incoming

    private let shared: Shared

    /// Makes a socket, lets `configure` set options, bind and connect it (on the
    /// caller's thread, before the owner thread starts), then hands it to its thread.
    ///
    /// - Parameters:
    ///   - receiveBuffer: how many received messages may wait for a reader; past
    ///     it the newest are dropped and counted (a subscriber sees a sequence gap).
    ///   - configure: also re-run by ``reset()`` on a fresh socket.
    public init(
        context: ZMQContext,
        type: SocketType,
        name: String,
        receiveBuffer: Int = 100_000,
        configure: @escaping @Sendable (Socket) throws -> Void
    ) throws {
        let socket = try Socket(context: context, type: type)
        try configure(socket)
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            throw ZMQError(operation: "pipe", code: errno, message: String(cString: strerror(errno)))
        }
        for fd in pipeFDs { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let inbox = Inbox(limit: receiveBuffer)
        self.name = name
        self.type = type
        self.incoming = Incoming(inbox: inbox)
        self.shared = Shared(wakeReader: pipeFDs[0], wakeWriter: pipeFDs[1])
        let owner = SocketThread(
            socket: socket, context: context, type: type, configure: configure,
            shared: shared, inbox: inbox
        )
        let thread = Thread { owner.run() }
        thread.name = "zmq-\(name)"
        thread.start()
    }

    /// Messages sent with ``post(_:)`` that the socket refused (a PUB at its high-water mark).
    public var droppedSends: Int { shared.droppedSends.load(ordering: .relaxed) }
    /// Received messages dropped because ``incoming`` was full.
    public var droppedReceives: Int { incoming.inbox.dropped.load(ordering: .relaxed) }

    /// Queues `frames` to be sent and returns at once; a refusal is only counted.
    /// The fast path for publishers.
    public func post(_ frames: [Data]) {
        shared.enqueue(.post(frames))
    }

    /// Sends `frames` and reports whether the socket took them without blocking.
    @discardableResult
    public func send(_ frames: [Data]) async throws -> Bool {
        try await perform { socket in try socket.send(frames) }
    }

    /// Runs `body` with the socket on its owner thread and returns its result.
    public func perform<T: Sendable>(_ body: @escaping @Sendable (Socket) throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            shared.enqueue(.run({ socket in
                continuation.resume(with: Result { try body(socket) })
            }, cancel: { continuation.resume(throwing: $0) }))
        }
    }

    /// Closes the socket and opens a fresh one with the same configuration (Lazy Pirate's
    /// way to drop a request that will never be answered).
    public func reset() async throws {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            shared.enqueue(.reset({ continuation.resume(with: $0) }))
        }
    }

    /// Closes the socket, finishes ``incoming`` and ends the owner thread. Safe to call twice.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            shared.enqueue(.stop({ continuation.resume() }))
        }
    }
}

/// State shared between callers and the owner thread.
private final class Shared: Sendable {
    let wakeReader: Int32
    let wakeWriter: Int32
    let droppedSends = Atomic<Int>(0)
    private let queue = Mutex(Queue())

    struct Queue {
        var commands: [Command] = []
        var wakePending = false
        var stopped = false
    }

    init(wakeReader: Int32, wakeWriter: Int32) {
        self.wakeReader = wakeReader
        self.wakeWriter = wakeWriter
    }

    /// Adds a command and wakes the owner thread, writing the pipe only when it is not already awake.
    func enqueue(_ command: Command) {
        let (accepted, wake) = queue.withLock { queue -> (Bool, Bool) in
            if queue.stopped { return (false, false) }
            queue.commands.append(command)
            defer { queue.wakePending = true }
            return (true, !queue.wakePending)
        }
        if !accepted {
            command.refuse()
        } else if wake {
            var byte: UInt8 = 1
            _ = write(wakeWriter, &byte, 1)
        }
    }

    /// Takes every queued command; after `stop` no more are accepted.
    func drain(stopping: Bool = false) -> [Command] {
        var bytes = (UInt64(0), UInt64(0))
        while read(wakeReader, &bytes, MemoryLayout.size(ofValue: bytes)) > 0 {}
        return queue.withLock { queue in
            let commands = queue.commands
            queue.commands = []
            queue.wakePending = false
            if stopping { queue.stopped = true }
            return commands
        }
    }
}

/// Work for the owner thread.
private enum Command: Sendable {
    case post([Data])
    case run(@Sendable (Socket) -> Void, cancel: @Sendable (ZMQError) -> Void)
    case reset(@Sendable (Result<Void, any Error>) -> Void)
    case stop(@Sendable () -> Void)

    static let closed = ZMQError(operation: "socket", code: ENOTSOCK, message: "socket is closed")

    /// Answers a command that arrived after the socket closed.
    func refuse() {
        switch self {
        case .post: break
        case .run(_, let cancel): cancel(Self.closed)
        case .reset(let done): done(.failure(Self.closed))
        case .stop(let done): done()
        }
    }
}

/// The owner thread's side: the only code that touches the socket after start-up.
private final class SocketThread: @unchecked Sendable {
    // @unchecked: `socket` is handed over once, before the thread starts, and is
    // used only by `run()` on that thread from then on.
    private var socket: Socket
    private let context: ZMQContext
    private let type: SocketType
    private let configure: @Sendable (Socket) throws -> Void
    private let shared: Shared
    private let inbox: Inbox

    /// At most this many messages are read in one go before queued commands get their turn.
    private static let batchLimit = 4096
    /// The sizes of the last batch received, to size the next.
    private var lastBatch = ReceivedBatch.Sizes()

    init(
        socket: Socket, context: ZMQContext, type: SocketType,
        configure: @escaping @Sendable (Socket) throws -> Void,
        shared: Shared, inbox: Inbox
    ) {
        self.socket = socket
        self.context = context
        self.type = type
        self.configure = configure
        self.shared = shared
        self.inbox = inbox
    }

    func run() {
        var finishing: [@Sendable () -> Void] = []
        /// Commands drained together with `stop`, after it: answered once the socket is closed.
        var afterStop: [Command] = []
        loop: while true {
            let readable: [Bool]
            do {
                readable = try socket.pollReadable(alsoWatching: [shared.wakeReader], timeout: nil)
            } catch let error where error.code == EINTR {
                continue
            } catch {
                break loop
            }
            if readable[1] {
                let commands = shared.drain()
                for (position, command) in commands.enumerated() {
                    if case .stop = command {
                        afterStop = Array(commands[position...])
                        break loop
                    }
                    execute(command)
                }
            }
            if readable[0] { receiveAll() }
        }
        socket.close()
        inbox.finish()
        for command in afterStop + shared.drain(stopping: true) {
            if case .stop(let done) = command { finishing.append(done) } else { command.refuse() }
        }
        close(shared.wakeReader)
        close(shared.wakeWriter)
        for done in finishing { done() }
    }

    private func execute(_ command: Command) {
        switch command {
        case .post(let frames):
            if (try? socket.send(frames)) != true {
                shared.droppedSends.add(1, ordering: .relaxed)
            }
        case .run(let body, _):
            body(socket)
        case .reset(let done):
            socket.close()
            done(Result {
                let fresh = try Socket(context: context, type: type)
                try configure(fresh)
                socket = fresh
            })
        case .stop:
            break
        }
    }

    /// Reads the messages that are waiting, without blocking, and hands them over as one batch:
    /// one wake-up of the reader for many messages instead of one each.
    private func receiveAll() {
        var batch = ReceivedBatch(sizedLike: lastBatch)
        while batch.count < Self.batchLimit, (try? batch.receive(from: socket)) == true {}
        if !batch.isEmpty {
            lastBatch = batch.sizes
            batch.releaseSpareCapacity()
            inbox.push(batch)
        }
    }
}

extension OwnedSocket {
    /// The messages a socket received, as an async sequence of multipart messages.
    public struct Incoming: AsyncSequence, Sendable {
        public typealias Element = [Data]
        public typealias Failure = Never

        let inbox: Inbox

        public struct AsyncIterator: AsyncIteratorProtocol {
            let inbox: Inbox

            /// The next message, or nil once the socket closed (or the task was cancelled).
            public mutating func next() async -> [Data]? {
                while let message = await inbox.next() {
                    if !message.isEmpty { return message }
                }
                return nil
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: inbox) }

        /// Every message waiting now (waits for at least one, or for ``wake()``), or nil once the socket
        /// closed: for readers that hand messages on in bulk.
        public func nextBatch() async -> [[Data]]? {
            guard let first = await inbox.next() else { return nil }
            let rest = inbox.takeAll()
            return first.isEmpty ? rest : [first] + rest
        }

        /// Makes the reader's waiting (or next) ``nextBatch()`` return now, empty if no message waits:
        /// for a reader with periodic work of its own, without a second task to feed it.
        public func wake() { inbox.wake() }
    }
}

/// The received messages between the owner thread and the one reader, held in a ``ReaderQueue``:
/// the owner thread hands over a batch with one lock and at most one wake-up of the reader, and a
/// message's `Data` values are made as it is taken (``ReceivedBatch``).
final class Inbox: Sendable {
    private struct Buffer: ReaderQueueBuffer {
        var batches = Deque<ReceivedBatch>()
        /// The next message to take in the first batch.
        var next = 0
        /// Messages held and not taken yet.
        var held = 0
        let limit: Int
        /// Whether ``Incoming/wake()`` asked for a return: an empty message (no socket receives one) stands for it.
        var woken = false

        mutating func take() -> [Data]? {
            if let first = batches.first {
                let message = first.message(next)
                next += 1
                held -= 1
                if next == first.count {
                    batches.removeFirst()
                    next = 0
                }
                return message
            }
            guard woken else { return nil }
            woken = false
            return []
        }

        /// Adds what fits of `batch`; returns how many messages did not.
        mutating func add(_ batch: ReceivedBatch) -> Int {
            var batch = batch
            let room = max(limit - held, 0)
            let dropped = max(batch.count - room, 0)
            if dropped > 0 { batch.removeMessages(after: room) }
            if !batch.isEmpty {
                batches.append(batch)
                held += batch.count
            }
            return dropped
        }

        /// Every batch held and where the first one starts, leaving the buffer empty.
        mutating func takeAll() -> (batches: Deque<ReceivedBatch>, first: Int) {
            defer {
                // A fresh deque: keeping the capacity of one whose storage the caller now shares would copy it.
                batches = Deque()
                next = 0
                held = 0
                woken = false
            }
            return (batches, next)
        }
    }

    private let queue: ReaderQueue<Buffer>
    /// Messages dropped because the reader fell `limit` behind.
    let dropped = Atomic<Int>(0)

    /// An inbox that holds at most `limit` messages; past it the newest are dropped.
    init(limit: Int) { queue = ReaderQueue(Buffer(limit: limit)) }

    /// Adds a batch, dropping what does not fit, and wakes the reader if it waits.
    func push(_ batch: ReceivedBatch) {
        let droppedCount = queue.write { $0.add(batch) } ?? 0
        if droppedCount > 0 { dropped.add(droppedCount, ordering: .relaxed) }
    }

    /// Ends the sequence once the messages already held are read.
    func finish() { queue.finish() }

    /// Every message held now, made outside the lock so the owner thread's next batch need not wait for it.
    func takeAll() -> [[Data]] {
        let (batches, first) = queue.read { $0.takeAll() }
        var messages: [[Data]] = []
        messages.reserveCapacity(batches.reduce(0) { $0 + $1.count } - first)
        for (position, batch) in batches.enumerated() {
            for index in (position == 0 ? first : 0)..<batch.count { messages.append(batch.message(index)) }
        }
        return messages
    }

    /// Makes the reader's waiting (or next) ``next()`` return, with an empty message if none is held.
    func wake() { queue.write { $0.woken = true } }

    /// The next message; waits for one. Nil when finished and drained, or when the task is cancelled.
    func next() async -> [Data]? { await queue.next() }
}
