import CZeroMQ
import DequeModule
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// One thread of a service: runs the jobs of tasks that prefer it (and of actors pinned to it) and reads the
/// sockets attached to it, sleeping in poll(2) when there is nothing to do.
///
/// It is a `TaskExecutor` (`withTaskExecutorPreference(loop)`, `Task(executorPreference: loop)`; a default actor
/// reached from such a task runs here too, SE-0417), and ``asUnownedSerialExecutor()`` is the serial executor of
/// actors pinned to it (their `unownedExecutor`). The two are distinct executors on one thread: a task that prefers the
/// loop runs its jobs as the runtime's generic executor does, so each call into a nonisolated async function continues
/// inline. Were the loop its tasks' serial executor too, the runtime would treat every such call as a switch of
/// executor and queue the task again (about 30 trips through the queue per RPC round trip, bench/PROFILE.md).
///
/// An ``OwnedSocket`` made with `loop:` is read by this thread instead of a thread of its own, so a reader task that
/// prefers the loop is resumed here with no thread wake-up.
///
/// It sleeps in poll(2) on an eventfd and its sockets' descriptors and never busy-polls. A job enqueued from another
/// thread writes the eventfd only when the loop sleeps (once per sleep, not per job); one enqueued from the loop's own
/// thread is only appended. Each round runs at most ``jobsPerRound`` jobs and reads at most one batch per socket, so
/// neither starves the other.
///
/// Everything on the loop shares its one thread: a job or a socket's handler that blocks (a lock held long, a sleep, a
/// large synchronous computation) delays every other task, actor and socket of the service.
///
/// A loop lives until ``shutdown()``. Jobs that arrive after it ended run on the global concurrent executor (a task
/// that preferred the loop goes on there); an actor pinned to the loop must not be used after its shutdown.
public final class ServiceLoop: TaskExecutor, Sendable {
    /// The name given at start; the thread is "loop-<name>".
    public let name: String
    /// The most queued jobs run in one round before the sockets are looked at.
    public static let jobsPerRound = 256
    /// While busy (jobs queued, or a socket with more to read), the loop looks at its descriptors every this many rounds.
    static let busyRoundsPerLook = 4

    private let wakeDescriptor: Int32
    private let queue = Mutex(Queue())
    /// Whether the thread sleeps (or is about to) in poll(2): an enqueue from another thread that finds it true
    /// clears it and writes the eventfd.
    private let sleeping = Atomic<Bool>(false)
    /// The thread's `pthread_t` (0 before it starts and once it ended).
    private let thread = Atomic<UInt>(0)
    /// The `pthread_t` to join, taken by the first ``shutdown()``.
    private let joinable = Atomic<UInt>(0)
    /// The serial executor of actors pinned to the loop.
    private let pinned = PinnedActors()

    /// What the loop runs, in order.
    enum Item: Sendable {
        /// A job of a task that prefers the loop.
        case job(UnownedJob)
        /// A job of an actor pinned to the loop.
        case pinnedJob(UnownedJob)
        case closure(@Sendable () -> Void)
        case attach(Receiver)
    }

    private struct Queue: Sendable {
        var items = Deque<Item>()
        /// ``shutdown()`` was called: the thread ends once the queue is drained.
        var stopping = false
        /// The thread ended: items go elsewhere.
        var ended = false
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// Starts the loop's thread, named "loop-<name>" (the kernel keeps its first 15 bytes).
    public init(name: String) throws {
        self.name = name
        let descriptor = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard descriptor >= 0 else {
            throw ZMQError(operation: "eventfd", code: errno, message: String(cString: strerror(errno)))
        }
        wakeDescriptor = descriptor
        pinned.loop = self
        var created = pthread_t()
        let box = Unmanaged.passRetained(ThreadStart(loop: self))
        let status = pthread_create(&created, nil, { argument in
            let start = Unmanaged<ThreadStart>.fromOpaque(argument!).takeRetainedValue()
            start.loop.run()
            return nil
        }, box.toOpaque())
        guard status == 0 else {
            box.release()
            close(descriptor)
            throw ZMQError(operation: "pthread_create", code: status, message: String(cString: strerror(status)))
        }
        joinable.store(UInt(created), ordering: .sequentiallyConsistent)
    }

    deinit { close(wakeDescriptor) }

    // MARK: Executor

    /// Queues `job`, of a task that prefers the loop, to run on the loop's thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if !append(.job(job)) { globalConcurrentExecutor.enqueue(job) }
    }

    /// The serial executor of actors pinned to the loop: `nonisolated var unownedExecutor` of such an actor. It runs on
    /// the loop's thread and is isolated there (`assumeIsolated` works on it).
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: pinned) }

    /// The loop as a task's preferred executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    /// Whether the caller runs on the loop's thread.
    public var isCurrent: Bool {
        let thread = thread.load(ordering: .acquiring)
        return thread != 0 && pthread_equal(pthread_self(), pthread_t(thread)) != 0
    }

    /// Runs `body` on the loop's thread, soon (after the jobs queued before it); on the caller's thread once the loop
    /// ended.
    public func execute(_ body: @escaping @Sendable () -> Void) {
        if !append(.closure(body)) { body() }
    }

    /// Stops the loop once its queue is drained, closes the sockets still attached (their readers see the end), and
    /// waits for the thread to end. Safe to call twice, and from the loop itself.
    public func shutdown() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let ended = queue.withLock { queue -> Bool in
                if queue.ended { return true }
                queue.stopping = true
                queue.shutdownWaiters.append(continuation)
                return false
            }
            if ended { continuation.resume() } else { wake() }
        }
        let created = joinable.exchange(0, ordering: .sequentiallyConsistent)
        // The thread has resumed every waiter as its last act: the join waits for its exit only.
        if created != 0 { pthread_join(pthread_t(created), nil) }
    }

    /// Queues `job` of an actor pinned to the loop; false once the loop ended.
    fileprivate func enqueuePinned(_ job: UnownedJob) -> Bool {
        append(.pinnedJob(job))
    }

    /// Hands `receiver` to the loop, which reads its socket from then on; false once the loop ended.
    func attach(_ receiver: Receiver) -> Bool {
        append(.attach(receiver))
    }

    /// Appends `item`; from another thread, wakes the loop if it sleeps. False once the loop ended.
    private func append(_ item: consuming sending Item) -> Bool {
        let appended = queue.withLock { queue -> Bool in
            guard !queue.ended else { return false }
            queue.items.append(item)
            return true
        }
        if appended, !isCurrent { wakeIfSleeping() }
        return appended
    }

    /// Writes the eventfd if the loop sleeps: once per sleep, since the first writer clears the flag. Sequentially
    /// consistent with the loop's store and its look at the queue after it, so no enqueue goes unseen.
    private func wakeIfSleeping() {
        if sleeping.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged { wake() }
    }

    private func wake() {
        var one: UInt64 = 1
        _ = write(wakeDescriptor, &one, MemoryLayout<UInt64>.size)
    }

    // MARK: The loop's thread

    /// A socket attached to the loop, as the thread keeps it. Its wake-ups (a reader's room or deadline, a close, a call
    /// that may have taken the `ZMQ_FD` signal) still write its own pipe, which the loop polls beside the socket's
    /// descriptor rather than routing them to the eventfd: the loop then steps only the sockets that need it, and the
    /// socket's code is the same with a loop or a thread of its own.
    private struct Attached {
        let receiver: Receiver
        /// The receiver's wake-up pipe, kept here so building the poll set touches no reference.
        let wakeDescriptor: Int32
        var sizes = ReceivedBatch.Sizes()
        /// Step it in the next round (attached now, its descriptors were readable, or it has more).
        var ready = true
        /// What its last round asked to wait on: the socket's descriptor (nil: its wake-up pipe only).
        var socketDescriptor: Int32?
        /// When its last round asked to be stepped again at the latest.
        var due: ContinuousClock.Instant?

        init(receiver: Receiver) {
            self.receiver = receiver
            wakeDescriptor = receiver.wakeDescriptor
        }
    }

    private func run() {
        thread.store(UInt(pthread_self()), ordering: .sequentiallyConsistent)
        nameKernelThread("loop-\(name)")
        let serial = asUnownedSerialExecutor()
        let task = asUnownedTaskExecutor()
        var sockets: [Attached] = []
        var items = Deque<Item>()
        var descriptors: [pollfd] = []
        var busyRounds = 0
        while true {
            let stopping = queue.withLock { queue -> Bool in
                // Swapping the two deques keeps both buffers: no allocation in a steady state.
                if queue.items.count <= Self.jobsPerRound {
                    swap(&queue.items, &items)
                } else {
                    for _ in 0..<Self.jobsPerRound { items.append(queue.items.removeFirst()) }
                }
                return queue.stopping
            }
            while let item = items.popFirst() {
                switch item {
                case .job(let job): job.runSynchronously(on: task)
                case .pinnedJob(let job): job.runSynchronously(isolatedTo: serial, taskExecutor: task)
                case .closure(let body): body()
                case .attach(let receiver): sockets.append(Attached(receiver: receiver))
                }
            }
            step(&sockets, now: .now)
            let pending = queue.withLock { !$0.items.isEmpty }
            if stopping, !pending { break }
            var ready = false
            var due: ContinuousClock.Instant?
            // By index, not `for socket in sockets`: a copy of a record retains its receiver's references each round.
            for index in sockets.indices {
                ready = ready || sockets[index].ready
                if let socketDue = sockets[index].due, due.map({ socketDue < $0 }) ?? true { due = socketDue }
            }
            var timeout: Int32 = -1
            if pending || ready {
                // Busy: a look at the descriptors (poll(2) without sleeping) only every few rounds, so a stream of jobs
                // or of one socket's batches costs no system call per round and still cannot starve the other sockets.
                busyRounds += 1
                if sockets.isEmpty || busyRounds < Self.busyRoundsPerLook { continue }
                timeout = 0
            } else if let due {
                // Rounded up: woken early, the loop would only go back to sleep.
                timeout = max(0, milliseconds(due - .now + .microseconds(999)))
            }
            busyRounds = 0
            // Sleep (or only look) until the eventfd, a socket's descriptor or the earliest deadline.
            descriptors.removeAll(keepingCapacity: true)
            descriptors.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0))
            for index in sockets.indices {
                descriptors.append(pollfd(fd: sockets[index].wakeDescriptor, events: Int16(POLLIN), revents: 0))
                descriptors.append(pollfd(fd: sockets[index].socketDescriptor ?? -1, events: Int16(POLLIN), revents: 0))
            }
            if timeout != 0 {
                sleeping.store(true, ordering: .sequentiallyConsistent)
                if queue.withLock({ !$0.items.isEmpty || $0.stopping }) {
                    sleeping.store(false, ordering: .sequentiallyConsistent)
                    continue
                }
            }
            // EINTR and the rest only end this wait: the next round looks again.
            _ = poll(&descriptors, nfds_t(descriptors.count), timeout)
            if timeout != 0 { sleeping.store(false, ordering: .sequentiallyConsistent) }
            if descriptors[0].revents != 0 {
                var count: UInt64 = 0
                _ = read(wakeDescriptor, &count, MemoryLayout<UInt64>.size)
            }
            for index in sockets.indices where descriptors[1 + 2 * index].revents != 0 || descriptors[2 + 2 * index].revents != 0 {
                sockets[index].ready = true
            }
        }
        finish(&sockets)
    }

    /// Steps every attached socket that is ready or due: one round each, at most one batch.
    private func step(_ sockets: inout [Attached], now: ContinuousClock.Instant) {
        var index = 0
        while index < sockets.count {
            // Field by field: reading the record whole copies it (and retains its receiver's references).
            let ready = sockets[index].ready
            let due = sockets[index].due
            if ready || due.map({ $0 <= now }) == true {
                let receiver = sockets[index].receiver
                switch receiver.round(sizes: &sockets[index].sizes) {
                case .ended:
                    sockets.remove(at: index)
                    continue
                case .again:
                    sockets[index].ready = true
                    sockets[index].due = nil
                case .sleep(let descriptor, let timeout):
                    sockets[index].ready = false
                    sockets[index].socketDescriptor = descriptor
                    sockets[index].due = timeout < 0 ? nil : .now + .milliseconds(timeout)
                }
            }
            index += 1
        }
    }

    /// Ends the loop: closes the sockets still attached, runs what their ends queued, then hands what comes later
    /// elsewhere and answers ``shutdown()``.
    private func finish(_ sockets: inout [Attached]) {
        let serial = asUnownedSerialExecutor()
        let task = asUnownedTaskExecutor()
        for socket in sockets { socket.receiver.end() }
        sockets.removeAll()
        while true {
            let (items, waiters) = queue.withLock { queue -> (Deque<Item>, [CheckedContinuation<Void, Never>]) in
                if queue.items.isEmpty {
                    queue.ended = true
                    defer { queue.shutdownWaiters = [] }
                    return ([], queue.shutdownWaiters)
                }
                defer { queue.items = [] }
                return (queue.items, [])
            }
            if items.isEmpty {
                thread.store(0, ordering: .sequentiallyConsistent)
                for waiter in waiters { waiter.resume() }
                return
            }
            for item in items {
                switch item {
                case .job(let job): job.runSynchronously(on: task)
                case .pinnedJob(let job): job.runSynchronously(isolatedTo: serial, taskExecutor: task)
                case .closure(let body): body()
                case .attach(let receiver): receiver.end()
                }
            }
        }
    }
}

/// The serial executor of the actors pinned to a loop: their jobs go on the loop's queue, and they are isolated on the
/// loop's thread.
private final class PinnedActors: SerialExecutor, @unchecked Sendable {
    // @unchecked: `loop` is set once, in the loop's init before the loop is shared, and never changes; the loop owns
    // this executor, so it outlives every use through the loop.
    unowned(unsafe) var loop: ServiceLoop?

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        if loop?.enqueuePinned(job) != true { globalConcurrentExecutor.enqueue(job) }
    }

    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Whether the caller runs on the loop's thread: everything there is serialized, so it is isolated to the loop.
    func isIsolatingCurrentContext() -> Bool? { loop?.isCurrent ?? false }

    /// Stops the process unless the caller runs on the loop's thread.
    func checkIsolated() {
        precondition(loop?.isCurrent == true, "not on the thread of the loop \(loop?.name ?? "?")")
    }
}

/// What the new thread gets: the loop, retained until it runs.
private final class ThreadStart {
    let loop: ServiceLoop
    init(loop: ServiceLoop) { self.loop = loop }
}
