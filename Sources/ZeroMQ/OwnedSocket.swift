import DequeModule
import Dispatch
import Foundation
import ReaderQueue
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// A socket that async code can use from any task, with a thread of its own that receives.
///
/// libzmq sockets are not thread-safe, and their blocking calls must never run on Swift's cooperative
/// pool. Here a lock owns the socket (taking and releasing it is the full memory barrier libzmq asks for
/// when a socket passes between threads). Sends, options, ``reset()`` and ``close()`` run under it on the
/// caller's thread and never block: sends use `ZMQ_DONTWAIT`. A dedicated thread sleeps in `poll(2)` on
/// the socket's `ZMQ_FD` and a wake-up pipe, takes the lock to read what arrived, and never busy-polls.
/// Received messages come out of ``incoming``.
///
/// Made with a ``ServiceLoop``, the socket has no thread of its own: the loop's thread reads it between its jobs, in
/// the same rounds, and hands what arrived to ``incoming`` (or the handler) there. A reader task that prefers the loop
/// then is resumed with no thread wake-up.
///
/// Sending on the caller's thread, rather than handing each message to the receiving thread, saves a
/// thread wake-up per message sent: an RPC round trip crosses two fewer (bench/PROFILE.md).
public final class OwnedSocket: Sendable {
    /// A name for logs and thread names.
    public let name: String
    /// The socket's pattern.
    public let type: SocketType
    /// Every multipart message the socket receives, in order. Finishes when the socket closes.
    /// One reader at a time; iterators made one after another continue where the last stopped.
    /// It keeps the socket open: one that only a reader can still reach closes when the reader is done.
    public let incoming: Incoming

    private let reachable: Reachable
    private var shared: Shared { reachable.shared }

    /// Makes a socket that drops what arrives past `receiveBuffer` (see the initializer with `holdWhenFull`); with
    /// `loop`, read by the loop's thread instead of a thread of its own.
    public convenience init(
        context: ZMQContext,
        type: SocketType,
        name: String,
        receiveBuffer: Int = 100_000,
        peerProperty: String? = nil,
        loop: ServiceLoop? = nil,
        configure: @escaping @Sendable (Socket) throws -> Void
    ) throws {
        try self.init(
            context: context, type: type, name: name, receiveBuffer: receiveBuffer, holdWhenFull: false, peerProperty: peerProperty,
            loop: loop, configure: configure)
    }

    /// Makes a socket whose receiving thread hands each batch it read to `handler`, on that thread, instead of
    /// to ``incoming`` (which then yields nothing and finishes when the socket closes): for a reader that does
    /// its work where the messages arrive, with no hop to another thread. While `handler` runs the thread does not
    /// read, so libzmq's queues and the connections' flow control hold what comes meanwhile; nothing is dropped.
    ///
    /// - Parameters:
    ///   - peerProperty: as in the other initializers: its value first in each message, as a frame of its own.
    ///   - handler: the messages read in one go (up to a few thousand), in order; it must not block for long.
    ///   - loop: the loop whose thread reads the socket and runs `handler` (while it does, the loop does nothing else);
    ///     nil: a thread of the socket's own.
    public convenience init(
        context: ZMQContext,
        type: SocketType,
        name: String,
        peerProperty: String? = nil,
        handler: @escaping @Sendable ([[Data]]) -> Void,
        loop: ServiceLoop? = nil,
        configure: @escaping @Sendable (Socket) throws -> Void
    ) throws {
        try self.init(
            context: context, type: type, name: name, receiveBuffer: 1, holdWhenFull: true, peerProperty: peerProperty,
            handler: handler, loop: loop, configure: configure)
    }

    /// Makes a socket, lets `configure` set options, bind and connect it (on the caller's thread),
    /// then starts the thread that receives (or attaches the socket to `loop`).
    ///
    /// - Parameters:
    ///   - receiveBuffer: how many received messages may wait for a reader; past
    ///     it the newest are dropped and counted (a subscriber sees a sequence gap), unless `holdWhenFull`.
    ///   - holdWhenFull: once `receiveBuffer` messages wait, stop reading the socket until the reader has taken half
    ///     of them, instead of dropping: libzmq's own queues hold the rest, up to their high-water marks, and a
    ///     connection's flow control slows its sender (a PUB whose send high-water mark is not reached loses nothing).
    ///   - peerProperty: a metadata property (e.g. `"User-Id"`) whose value, for the connection each message
    ///     came on, comes first in the message as a frame of its own (empty when the connection has none).
    ///   - loop: the loop whose thread reads the socket; nil: a thread of the socket's own.
    ///   - configure: also re-run by ``reset()`` on a fresh socket.
    public convenience init(
        context: ZMQContext,
        type: SocketType,
        name: String,
        receiveBuffer: Int = 100_000,
        holdWhenFull: Bool,
        peerProperty: String? = nil,
        loop: ServiceLoop? = nil,
        configure: @escaping @Sendable (Socket) throws -> Void
    ) throws {
        try self.init(
            context: context, type: type, name: name, receiveBuffer: receiveBuffer, holdWhenFull: holdWhenFull, peerProperty: peerProperty,
            handler: nil, loop: loop, configure: configure)
    }

    private init(
        context: ZMQContext,
        type: SocketType,
        name: String,
        receiveBuffer: Int,
        holdWhenFull: Bool,
        peerProperty: String?,
        handler: (@Sendable ([[Data]]) -> Void)?,
        loop: ServiceLoop?,
        configure: @escaping @Sendable (Socket) throws -> Void
    ) throws {
        let socket = try Socket(context: context, type: type)
        try configure(socket)
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else {
            throw ZMQError(operation: "pipe", code: errno, message: String(cString: strerror(errno)))
        }
        for fd in pipeFDs { _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) }
        let shared = Shared(
            socket: socket, context: context, configure: configure, peerProperty: peerProperty,
            pipeReadEnd: pipeFDs[0], pipeWriteEnd: pipeFDs[1])
        var onRoom: (@Sendable () -> Void)?
        if holdWhenFull { onRoom = { shared.wakeReceiver() } }
        let inbox = Inbox(limit: receiveBuffer, onRoom: onRoom)
        self.name = name
        self.type = type
        let reachable = Reachable(shared)
        self.incoming = Incoming(inbox: inbox, reachable: reachable)
        self.reachable = reachable
        let receiver = Receiver(shared: shared, inbox: inbox, handler: handler)
        if let loop {
            guard loop.attach(receiver) else {
                receiver.end()
                throw ZMQError(operation: "attach(\(name)) to loop \(loop.name)", code: ESHUTDOWN, message: "the loop was shut down")
            }
            return
        }
        let threadName = "zmq-\(name)"
        let thread = Thread {
            nameKernelThread(threadName)
            receiver.run()
        }
        thread.name = threadName
        thread.start()
    }

    /// Messages sent with ``post(_:)`` that the socket refused (a PUSH at its high-water mark, a REQ out
    /// of turn) or that came after ``close()``.
    public var droppedSends: Int { shared.droppedSends.load(ordering: .relaxed) }
    /// Received messages dropped because ``incoming`` was full.
    public var droppedReceives: Int { incoming.inbox.dropped.load(ordering: .relaxed) }

    /// Sends `frames` as one multipart message now, without blocking; a refusal is only counted.
    public func post(_ frames: [Data]) {
        if (try? send(frames)) != true { shared.droppedSends.add(1, ordering: .relaxed) }
    }

    /// Sends `frames` as one multipart message now and reports whether the socket took them without
    /// blocking. Throws `ENOTSOCK` once the socket is closed.
    @discardableResult
    public func send(_ frames: [Data]) throws -> Bool {
        try perform { try $0.send(frames) }
    }

    /// A count of the times the socket's state may have changed (libzmq signalled its receiving thread, a call used
    /// the socket, ``wakeWaiters()``), taken when a send was refused: what ``waitForChange(after:timeout:)`` waits past.
    public struct StateMark: Sendable, Equatable {
        let changes: UInt64
    }

    /// Sends `frames` as ``send(_:)`` does; nil when the socket took them, else (its high-water mark reached) the mark
    /// of its state at the refusal, to wait for room with ``waitForChange(after:timeout:)``.
    public func sendOrMark(_ frames: [Data]) throws -> StateMark? {
        try shared.sendOrMark(frames)
    }

    /// Blocks the calling thread, a dedicated one (never a thread of Swift's cooperative pool), until the socket's
    /// state changed after `mark`: its receiving thread woke for what libzmq signalled (a peer that took queued messages
    /// sends the command that makes room again), another call used the socket, ``wakeWaiters()`` was called or the
    /// socket closed. Returns false when `timeout` passed first. Only a socket that receives (an XPUB, a DEALER...) has
    /// its receiving thread watch libzmq's signal.
    @discardableResult
    public func waitForChange(after mark: StateMark, timeout: Duration) -> Bool {
        shared.waitForChange(after: mark, timeout: timeout)
    }

    /// Ends every ``waitForChange(after:timeout:)`` now, and makes one whose mark was taken before this call return at
    /// once (a sender being stopped).
    public func wakeWaiters() {
        shared.wakeWaiters()
    }

    /// Runs `body` with the socket under its lock, on the caller's thread: for quick, non-blocking calls
    /// (options, ``Socket/lastEndpoint()``). Throws `ENOTSOCK` once the socket is closed.
    public func perform<T: Sendable>(_ body: (Socket) throws -> T) throws -> T {
        try shared.withSocket(body)
    }

    /// Closes the socket and opens a fresh one with the same configuration (Lazy Pirate's way to drop a
    /// request that will never be answered). Messages already received stay in ``incoming``.
    public func reset() throws {
        try shared.reset()
    }

    /// Closes the socket, finishes ``incoming`` and waits for the receiving side to end (its thread, or its
    /// detaching from the loop). Safe to call twice.
    public func close() async {
        await withCheckedContinuation { shared.closeSocket(then: $0) }
    }
}

/// Gives the calling thread `name` (its first 15 bytes) in the kernel, which `top -H`, `perf` and /proc show.
/// Foundation's `Thread.name` did not reliably reach the kernel here (set before `start()`, never; from inside
/// the new thread, in most runs only), and Glibc's module does not import `pthread_setname_np`.
func nameKernelThread(_ name: String) {
    let fd = open("/proc/thread-self/comm", O_WRONLY)
    guard fd >= 0 else { return }
    var comm = Array(name.utf8.prefix(15))
    _ = write(fd, &comm, comm.count)
    close(fd)
}

/// The socket and what its callers and its receiving thread share, under one lock.
private final class Shared: Sendable {
    let droppedSends = Atomic<Int>(0)
    let pipeReadEnd: Int32
    private let pipeWriteEnd: Int32
    private let context: ZMQContext
    private let configure: @Sendable (Socket) throws -> Void
    private let receives: Bool
    private let peerProperty: String?
    private let state: Mutex<State>

    private struct State {
        /// Nil once closed.
        var socket: Socket?
        /// Whether the pipe holds a wake-up the receiving thread has not drained yet.
        var wakePending = false
        /// Whether the receiving thread has ended; the pipe is closed then.
        var ended = false
        /// Who waits in ``OwnedSocket/close()`` for the receiving thread to end.
        var closers: [CheckedContinuation<Void, Never>] = []
        /// When the reader asked to be woken (``OwnedSocket/Incoming/wake(at:)``).
        var readerDeadline: ContinuousClock.Instant?
        /// How long the receiving thread sleeps: `.none` while it is not sleeping, `.some(nil)` while it sleeps
        /// with no timeout.
        var sleepingUntil: ContinuousClock.Instant??
        /// The times the socket's state may have changed (``OwnedSocket/StateMark``).
        var changes: UInt64 = 0
        /// Who waits in ``OwnedSocket/waitForChange(after:timeout:)``.
        var waiters: [DispatchSemaphore] = []

        /// Counts a change of the socket's state and wakes every waiter.
        mutating func changed() {
            changes &+= 1
            guard !waiters.isEmpty else { return }
            for waiter in waiters { waiter.signal() }
            waiters.removeAll()
        }

        /// Closes the socket, if it is open; calls on it fail from then on.
        mutating func closeSocket() {
            socket?.close()
            socket = nil
            changed()
        }
    }

    /// What a receiving round found.
    enum Received {
        /// Nothing more waits: time to sleep in `poll(2)`.
        case drained
        /// Messages may still wait.
        case more
        /// The socket is closed, or failed (its context terminated, which only a socket that receives notices):
        /// the thread ends.
        case closed
    }

    static let closed = ZMQError(operation: "socket", code: ENOTSOCK, message: "socket is closed")

    init(
        socket: sending Socket, context: ZMQContext, configure: @escaping @Sendable (Socket) throws -> Void, peerProperty: String?,
        pipeReadEnd: Int32, pipeWriteEnd: Int32
    ) {
        receives = socket.type.receives
        self.peerProperty = peerProperty
        state = Mutex(State(socket: socket))
        self.context = context
        self.configure = configure
        self.pipeReadEnd = pipeReadEnd
        self.pipeWriteEnd = pipeWriteEnd
    }

    /// Runs `body` with the open socket under the lock.
    func withSocket<T: Sendable>(_ body: (Socket) throws -> T) throws -> T {
        try state.withLock { state in
            guard let socket = state.socket else { throw Self.closed }
            defer {
                wakeIfInputWaits(&state, socket)
                state.changed()
            }
            return try body(socket)
        }
    }

    /// ``OwnedSocket/sendOrMark(_:)``: the send and the mark under one hold of the lock, so no change after the
    /// refusal goes unseen. A refused send is tried once more after libzmq's pending commands are processed (asking
    /// for input does, unthrottled, where a send does at most once a millisecond), since one of them may be the peer's
    /// "room again"; after a second refusal no call processes commands, so the next command signals the receiving
    /// thread, whose round counts the change.
    func sendOrMark(_ frames: [Data]) throws -> OwnedSocket.StateMark? {
        try state.withLock { state in
            guard let socket = state.socket else { throw Self.closed }
            var sent = try socket.send(frames)
            if !sent {
                if (try? socket.hasInput()) != false { wake(&state) }
                sent = try socket.send(frames)
            }
            if sent { wakeIfInputWaits(&state, socket) }
            state.changed()
            return sent ? nil : OwnedSocket.StateMark(changes: state.changes)
        }
    }

    /// ``OwnedSocket/waitForChange(after:timeout:)``.
    func waitForChange(after mark: OwnedSocket.StateMark, timeout: Duration) -> Bool {
        let waiter = DispatchSemaphore(value: 0)
        let registered = state.withLock { state -> Bool in
            guard state.changes == mark.changes, state.socket != nil else { return false }
            state.waiters.append(waiter)
            return true
        }
        guard registered else { return true }
        if waiter.wait(timeout: .now() + .milliseconds(Int(max(0, milliseconds(timeout))))) == .success { return true }
        return state.withLock { state in
            guard let index = state.waiters.firstIndex(where: { $0 === waiter }) else { return true }
            state.waiters.remove(at: index)
            return false
        }
    }

    /// ``OwnedSocket/wakeWaiters()``.
    func wakeWaiters() {
        state.withLock { $0.changed() }
    }

    /// Replaces the socket by a fresh one, configured again.
    func reset() throws {
        try state.withLock { state in
            guard let old = state.socket else { throw Self.closed }
            // The receiving thread waits on the old socket's descriptor; woken, it watches the new one, or ends
            // when making it failed.
            defer { wake(&state) }
            state.closeSocket()
            let fresh = try Socket(context: context, type: old.type)
            try configure(fresh)
            state.socket = fresh
        }
    }

    /// Closes the socket and resumes `continuation`, if any, once the receiving thread has ended.
    func closeSocket(then continuation: CheckedContinuation<Void, Never>?) {
        let ended = state.withLock { state in
            state.closeSocket()
            if state.ended { return true }
            if let continuation { state.closers.append(continuation) }
            wake(&state)
            return false
        }
        if ended { continuation?.resume() }
    }

    /// After a call on the socket: wakes the receiving thread if a message waits, or if the socket failed (its
    /// context terminated), since the call may have taken the `ZMQ_FD` signal that would have woken it.
    private func wakeIfInputWaits(_ state: inout State, _ socket: Socket) {
        guard receives, !state.wakePending, (try? socket.hasInput()) != false else { return }
        wake(&state)
    }

    /// Writes the wake-up pipe, once until the receiving thread drains it; under the lock, so never after
    /// the pipe closed.
    private func wake(_ state: inout State) {
        guard !state.wakePending, !state.ended else { return }
        state.wakePending = true
        var byte: UInt8 = 1
        _ = write(pipeWriteEnd, &byte, 1)
    }

    /// Wakes the receiving thread (the reader made room in a full inbox it stopped reading for).
    func wakeReceiver() {
        state.withLock { wake(&$0) }
    }

    /// Sets (or with nil, cancels) when the receiving thread wakes the reader; wakes the thread only when it
    /// sleeps past the new deadline. So a deadline per call costs nothing while each call's deadline is later
    /// than the last one's: the thread, woken by the replies anyway, picks it up as it goes back to sleep.
    func wakeReader(at deadline: ContinuousClock.Instant?) {
        state.withLock { state in
            state.readerDeadline = deadline
            guard let deadline, case .some(let sleepingUntil) = state.sleepingUntil else { return }
            if sleepingUntil.map({ $0 > deadline }) ?? true { wake(&state) }
        }
    }

    // MARK: The receiving thread's side

    /// Starts a round: drains the wake-up pipe and returns the descriptor to wait on (nil for a socket that
    /// never receives), or `.none` once the socket is closed; `readerDue` tells whether the reader's deadline
    /// has come (it is cleared then).
    func startRound(readerDue: inout Bool) -> Int32?? {
        state.withLock { state -> Int32?? in
            if state.wakePending {
                // The pipe holds the one byte `wake` wrote under the lock: a round with no wake-up makes no read call.
                var byte: UInt8 = 0
                _ = read(pipeReadEnd, &byte, 1)
                state.wakePending = false
            }
            state.sleepingUntil = .none
            if let deadline = state.readerDeadline, deadline <= .now {
                state.readerDeadline = nil
                readerDue = true
            }
            guard let socket = state.socket else { return .none }
            guard receives else { return .some(nil) }
            guard let fd = try? socket.fileDescriptor() else {
                // The socket failed (its context terminated): nothing can be done with it any more.
                state.closeSocket()
                return .none
            }
            return fd
        }
    }

    /// Receives up to `limit` messages into `batch` without blocking. A receive that finds none has processed
    /// libzmq's pending commands, as `ZMQ_EVENTS` would, and so left the `ZMQ_FD` signal armed for the next one; only a
    /// REQ refused with `EFSM` asks the socket whether input waits.
    func receive(into batch: inout ReceivedBatch, upTo limit: Int) -> Received {
        guard receives else { return .drained }
        return state.withLock { state -> Received in
            guard let socket = state.socket else { return .closed }
            // Receiving processes libzmq's commands, among them the one that gives a full queue room again.
            defer { state.changed() }
            do throws(ZMQError) {
                for _ in 0..<limit {
                    switch try Self.receiveOne(into: &batch, from: socket, property: peerProperty) {
                    case .received: continue
                    case .none: return .drained
                    case .refused: return try socket.hasInput() ? .more : .drained
                    }
                }
                return .more
            } catch where error.code == EINTR {
                return .more
            } catch {
                // The socket failed (its context terminated): nothing can be done with it any more.
                state.closeSocket()
                return .closed
            }
        }
    }

    /// What one receive found.
    private enum Receipt {
        /// A message, added to the batch.
        case received
        /// None waits (`EAGAIN`), its commands processed.
        case none
        /// A REQ that is not waiting for a reply: libzmq refuses its receive with `EFSM` without looking at the
        /// socket's commands, so a `hasInput()` must follow (it is what notices a terminated context).
        case refused
    }

    /// Receives one message into `batch`.
    private static func receiveOne(into batch: inout ReceivedBatch, from socket: Socket, property: String?) throws(ZMQError) -> Receipt {
        do {
            return try batch.receive(from: socket, property: property) ? .received : .none
        } catch where error.code == ZMQError.stateMachine {
            return .refused
        }
    }

    /// How long the receiving thread may sleep, in milliseconds for `poll(2)` (-1: no limit), until the
    /// reader's deadline; noted so that an earlier deadline set meanwhile wakes it.
    func sleepTimeout() -> Int32 {
        state.withLock { state in
            state.sleepingUntil = .some(state.readerDeadline)
            guard let deadline = state.readerDeadline else { return -1 }
            // Rounded up: woken early, the thread would only go back to sleep.
            return max(0, milliseconds(deadline - .now + .microseconds(999)))
        }
    }

    /// Ends the receiving thread's side: closes the socket and the pipe, and answers every ``closeSocket(then:)``.
    func end() {
        let closers = state.withLock { state in
            state.closeSocket()
            state.ended = true
            close(pipeReadEnd)
            close(pipeWriteEnd)
            defer { state.closers = [] }
            return state.closers
        }
        for closer in closers { closer.resume() }
    }
}

/// The socket's receiving side: in rounds, each of which reads what arrived (a batch at most), hands it to the
/// ``Inbox`` or the handler, and says what to wait on before the next. A thread of the socket's own (``run()``) or the
/// ``ServiceLoop`` it is attached to sleeps in `poll(2)` between rounds, so the two ways cannot drift apart.
struct Receiver: Sendable {
    fileprivate let shared: Shared
    let inbox: Inbox
    /// Takes each batch on the receiving thread instead of the inbox, when given.
    let handler: (@Sendable ([[Data]]) -> Void)?

    /// At most this many messages are read in one batch before it is handed over.
    private static let batchLimit = 4096
    /// At most this many are read under the lock at a time, so a sender waits little behind a burst.
    private static let chunk = 32

    /// What to do after a round.
    enum Next {
        /// The socket closed (or failed): the inbox is finished and the closers answered; no more rounds.
        case ended
        /// Messages may still wait: another round, without sleeping.
        case again
        /// Sleep until the wake-up pipe (``wakeDescriptor``) or the socket's descriptor (when given) is readable, or
        /// for `timeout` milliseconds (-1: no limit).
        case sleep(socketDescriptor: Int32?, timeout: Int32)
    }

    /// The descriptor a wake-up of this socket (a reader's room or deadline, a close, a call that may have taken the
    /// socket's signal) makes readable.
    var wakeDescriptor: Int32 { shared.pipeReadEnd }

    /// Reads in rounds on the calling thread, the socket's own, until the socket closes.
    func run() {
        var sizes = ReceivedBatch.Sizes()
        while true {
            switch round(sizes: &sizes) {
            case .ended: return
            case .again: continue
            case .sleep(let socketDescriptor, let timeout): wait(for: socketDescriptor, timeout: timeout)
            }
        }
    }

    /// One round; `sizes` carries the last batch's size from round to round.
    func round(sizes: inout ReceivedBatch.Sizes) -> Next {
        var readerDue = false
        let watched = shared.startRound(readerDue: &readerDue)
        if readerDue { inbox.wake() }
        guard let watched else {
            inbox.finish()
            shared.end()
            return .ended
        }
        if inbox.holdIfFull() {
            // Only the pipe: the reader's room (or a close, or its deadline) wakes the receiving thread.
            return .sleep(socketDescriptor: nil, timeout: shared.sleepTimeout())
        }
        var batch = ReceivedBatch(sizedLike: sizes)
        var received = Shared.Received.more
        while received == .more, batch.count < Self.batchLimit {
            received = shared.receive(into: &batch, upTo: Self.chunk)
        }
        if !batch.isEmpty {
            sizes = batch.sizes
            if let handler {
                handler(batch.messages())
            } else {
                batch.releaseSpareCapacity()
                inbox.push(batch)
            }
        }
        switch received {
        case .closed:
            inbox.finish()
            shared.end()
            return .ended
        case .more: return .again
        case .drained: return .sleep(socketDescriptor: watched, timeout: shared.sleepTimeout())
        }
    }

    /// Closes the socket and ends the receiving side at once (its loop is shutting down, or it could not take it).
    func end() {
        shared.closeSocket(then: nil)
        inbox.finish()
        shared.end()
    }

    /// Sleeps until the socket's descriptor (when there is one) or the wake-up pipe is readable, or for
    /// `timeout` milliseconds (-1: no limit).
    private func wait(for socketDescriptor: Int32?, timeout: Int32) {
        var fds = [pollfd(fd: shared.pipeReadEnd, events: Int16(POLLIN), revents: 0)]
        if let socketDescriptor { fds.append(pollfd(fd: socketDescriptor, events: Int16(POLLIN), revents: 0)) }
        // EINTR and the rest only end this wait: the next round looks at the socket again.
        _ = poll(&fds, nfds_t(fds.count), timeout)
    }
}

extension OwnedSocket {
    /// The messages a socket received, as an async sequence of multipart messages.
    public struct Incoming: AsyncSequence, Sendable {
        public typealias Element = [Data]
        public typealias Failure = Never

        let inbox: Inbox
        fileprivate let reachable: Reachable

        public struct AsyncIterator: AsyncIteratorProtocol {
            let inbox: Inbox
            fileprivate let reachable: Reachable

            /// The next message, or nil once the socket closed (or the task was cancelled).
            public mutating func next() async -> [Data]? {
                while let message = await inbox.next() {
                    if !message.isEmpty { return message }
                }
                return nil
            }
        }

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(inbox: inbox, reachable: reachable) }

        /// The first message to come that `matches`, or nil when none came within `timeout` (or the socket closed);
        /// the messages before it are consumed.
        public func first(
            within timeout: Duration, where matches: @escaping @Sendable ([Data]) -> Bool = { _ in true }
        ) async -> [Data]? {
            await withTaskGroup(of: [Data]?.self) { group in
                group.addTask {
                    for await message in self where matches(message) { return message }
                    return nil
                }
                group.addTask {
                    try? await Task.sleep(for: timeout)
                    return nil
                }
                var first = await group.next() ?? nil
                group.cancelAll()
                // The reader may have taken a message as the time ran out: it is returned, not dropped with the group.
                while first == nil, let other = await group.next() { first = other }
                return first
            }
        }

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

        /// Makes the reader's ``nextBatch()`` return at `deadline` as ``wake()`` does (if nothing woke it
        /// before, it returns empty), replacing the deadline set before; nil cancels it. For a reader that
        /// waits with a timeout, without a timer task per wait: the socket's own thread keeps the time.
        public func wake(at deadline: ContinuousClock.Instant?) { reachable.shared.wakeReader(at: deadline) }
    }
}

/// Closes the socket once neither its ``OwnedSocket`` nor a copy of its ``OwnedSocket/incoming`` (or an
/// iterator of it) is left: a socket that no one can reach would keep its thread, and so its context, alive.
/// The receiving thread holds the ``Shared`` state, not this.
private final class Reachable: Sendable {
    let shared: Shared

    init(_ shared: Shared) { self.shared = shared }

    deinit { shared.closeSocket(then: nil) }
}

/// The received messages between the receiving thread and the one reader, held in a ``ReaderQueue``:
/// the receiving thread hands over a batch with one lock and at most one wake-up of the reader, and a
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
        /// Called when the reader makes room in a full buffer the receiving thread stopped reading for; nil: a full
        /// buffer drops instead.
        let onRoom: (@Sendable () -> Void)?
        /// Whether the receiving thread stopped reading because the buffer is full.
        var holding = false

        /// After a take: tells the receiving thread it may read again once half the buffer is free.
        mutating func releaseIfRoom() {
            guard holding, held <= limit / 2 else { return }
            holding = false
            onRoom?()
        }

        mutating func take() -> [Data]? {
            if let first = batches.first {
                let message = first.message(next)
                next += 1
                held -= 1
                if next == first.count {
                    batches.removeFirst()
                    next = 0
                }
                releaseIfRoom()
                return message
            }
            guard woken else { return nil }
            woken = false
            return []
        }

        /// Adds what fits of `batch`; returns how many messages did not.
        mutating func add(_ batch: ReceivedBatch) -> Int {
            var batch = batch
            // Holding, a batch read before the buffer filled is kept whole: at most one batch more than the limit.
            let room = onRoom == nil ? max(limit - held, 0) : Int.max
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
                releaseIfRoom()
            }
            return (batches, next)
        }
    }

    private let queue: ReaderQueue<Buffer>
    /// Messages dropped because the reader fell `limit` behind.
    let dropped = Atomic<Int>(0)

    /// An inbox that holds at most `limit` messages; past it the newest are dropped, or with `onRoom` the receiving
    /// thread stops reading (``holdIfFull()``) until the reader has taken half, and `onRoom` wakes it.
    init(limit: Int, onRoom: (@Sendable () -> Void)? = nil) { queue = ReaderQueue(Buffer(limit: limit, onRoom: onRoom)) }

    /// Whether the receiving thread must stop reading: the buffer holds `limit` messages and it holds rather than
    /// drops. Marks it holding, under the lock the reader takes under, so the reader's next take that makes room
    /// calls `onRoom`.
    func holdIfFull() -> Bool {
        queue.read { buffer in
            guard buffer.onRoom != nil, buffer.held >= buffer.limit else { return false }
            buffer.holding = true
            return true
        }
    }

    /// Adds a batch, dropping what does not fit, and wakes the reader if it waits.
    func push(_ batch: ReceivedBatch) {
        let droppedCount = queue.write { $0.add(batch) } ?? 0
        if droppedCount > 0 { dropped.add(droppedCount, ordering: .relaxed) }
    }

    /// Ends the sequence once the messages already held are read.
    func finish() { queue.finish() }

    /// Every message held now, made outside the lock so the receiving thread's next batch need not wait for it.
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
