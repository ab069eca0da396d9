import Foundation
import Synchronization
import Testing
import ZeroMQ

/// The kernel's name of the calling thread.
func currentThreadName() -> String {
    ((try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? "?").trimmingCharacters(in: .whitespacesAndNewlines)
}

/// The kernel's id of the calling thread ("/proc/thread-self" links to "<pid>/task/<tid>").
func currentThreadID() -> String {
    let link = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/thread-self")) ?? ""
    return String(link.split(separator: "/").last ?? "?")
}

/// What `body` returns, run on the loop's thread.
func onLoop<T: Sendable>(_ loop: ServiceLoop, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
}

/// A nonisolated async function that runs on the generic executor (whatever the caller's isolation): whether it ran on
/// `loop`'s thread.
@concurrent func nonisolatedStep(_ loop: ServiceLoop) async -> Bool { loop.isCurrent }

/// A default actor: runs where its caller's task prefers, one job at a time.
actor Counter {
    private(set) var value = 0
    private(set) var offLoop = 0

    func increment(expecting loop: ServiceLoop?) {
        let before = value
        if let loop, !loop.isCurrent { offLoop += 1 }
        value = before + 1
    }
}

/// An actor whose executor is the loop.
actor Pinned {
    let loop: ServiceLoop
    var value = 0

    init(loop: ServiceLoop) { self.loop = loop }

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    func bump() -> Bool {
        value += 1
        return loop.isCurrent
    }
}

@Suite("A service's loop: executor and poller on one thread")
struct ServiceLoopTests {
    /// A closure handed over from another thread runs on the loop's thread, named "loop-<name>" (15 bytes kept).
    @Test func jobFromAnotherThreadRunsOnTheLoop() async throws {
        let loop = try ServiceLoop(name: "jobs-from-afar")
        #expect(!loop.isCurrent)
        let (current, name) = await withCheckedContinuation { continuation in
            Thread { loop.execute { continuation.resume(returning: (loop.isCurrent, currentThreadName())) } }.start()
        }
        #expect(current)
        #expect(name == "loop-jobs-from-")
        await loop.shutdown()
    }

    /// A task that prefers the loop runs there, and is back there after calling a default actor.
    @Test func taskPreferringTheLoopRunsOnIt() async throws {
        let loop = try ServiceLoop(name: "prefer")
        let counter = Counter()
        let (before, inside, after) = await withTaskExecutorPreference(loop) {
            let before = loop.isCurrent
            await counter.increment(expecting: loop)
            return (before, await counter.offLoop == 0, loop.isCurrent)
        }
        #expect(before)
        #expect(inside, "the default actor ran on the preferred loop")
        #expect(after)
        let task = Task(executorPreference: loop) { loop.isCurrent && currentThreadName() == "loop-prefer" }
        #expect(await task.value)
        await loop.shutdown()
    }

    /// A call into a nonisolated async function from a task that prefers the loop continues inline: a closure queued on
    /// the loop just before the calls has not run when they return. (Were the loop the task's serial executor too, each
    /// call would switch executors and queue the task again behind that closure.)
    @Test func nonisolatedCallsContinueInline() async throws {
        let loop = try ServiceLoop(name: "inline")
        let queued = Atomic<Bool>(false)
        let (ranBetween, stayedOnLoop) = await withTaskExecutorPreference(loop) {
            loop.execute { queued.store(true, ordering: .relaxed) }
            var onLoop = true
            for _ in 0..<3 { onLoop = await nonisolatedStep(loop) && onLoop }
            return (queued.load(ordering: .relaxed), onLoop)
        }
        #expect(!ranBetween, "the task went through the loop's queue for a nonisolated call")
        #expect(stayedOnLoop)
        await loop.shutdown()
    }

    /// A default actor called from two tasks that prefer the loop and one on the global pool keeps its mutual
    /// exclusion: no increment is lost.
    @Test func defaultActorKeepsMutualExclusion() async throws {
        let loop = try ServiceLoop(name: "exclusion")
        let counter = Counter()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<2 {
                group.addTask(executorPreference: loop) {
                    for _ in 0..<10_000 { await counter.increment(expecting: nil) }
                }
            }
            group.addTask {
                for _ in 0..<10_000 { await counter.increment(expecting: nil) }
            }
        }
        #expect(await counter.value == 30_000)
        await loop.shutdown()
    }

    /// An actor whose executor is the loop runs its methods there, and `assumeIsolated` works on the loop's thread.
    @Test func pinnedActorRunsOnTheLoop() async throws {
        let loop = try ServiceLoop(name: "pinned")
        let pinned = Pinned(loop: loop)
        #expect(await pinned.bump())
        let assumed = await onLoop(loop) { pinned.assumeIsolated { $0.bump() } }
        #expect(assumed)
        #expect(await pinned.value == 2)
        await loop.shutdown()
    }

    /// Off the loop's thread, an actor pinned to the loop is not isolated: `preconditionIsolated` stops the process.
    @Test func pinnedActorIsNotIsolatedOffTheLoop() async {
        await #expect(processExitsWith: .signal(SIGILL)) {
            let loop = try ServiceLoop(name: "off")
            Pinned(loop: loop).preconditionIsolated()
        }
    }

    /// An idle loop sleeps: its thread uses at most 2 clock ticks of CPU in a second. A closure handed to it while it
    /// sleeps still runs, well within a second (the bound proves the wake, not its speed, on 2 shared cores).
    @Test func idleLoopSleepsAndWakes() async throws {
        let loop = try ServiceLoop(name: "idle")
        let tid = await onLoop(loop) { currentThreadID() }
        try await Task.sleep(for: .milliseconds(100))
        let start = try cpuTicks(ofThread: tid)
        try await Task.sleep(for: .seconds(1))
        let end = try cpuTicks(ofThread: tid)
        #expect(end - start <= 2)
        let clock = ContinuousClock()
        let sent = clock.now
        let ran = await onLoop(loop) { clock.now }
        #expect(ran - sent < .seconds(1))
        await loop.shutdown()
    }

    /// Every hand-over from another thread to a loop that may be asleep wakes it: 4 threads hand it 20,000 closures in
    /// bursts with pauses, and a task makes 2,000 round trips to it (one lost wake-up would stall the test).
    @Test func handOversLoseNoWakeUp() async throws {
        let loop = try ServiceLoop(name: "wake-ups")
        let ran = Atomic<Int>(0)
        let senders = (0..<4).map { _ in
            Thread {
                for index in 0..<5_000 {
                    loop.execute { ran.add(1, ordering: .relaxed) }
                    if index % 100 == 0 { usleep(200) }
                }
            }
        }
        for sender in senders { sender.start() }
        for _ in 0..<2_000 { #expect(await onLoop(loop) { loop.isCurrent }) }
        let deadline = ContinuousClock.now + .seconds(30)
        while ran.load(ordering: .relaxed) < 20_000, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        #expect(ran.load(ordering: .relaxed) == 20_000)
        await loop.shutdown()
    }

    /// Shutdown runs what was queued, then ends and joins the thread; later closures run on the caller's thread, and a
    /// second shutdown returns at once.
    @Test func shutdownJoins() async throws {
        let loop = try ServiceLoop(name: "joined")
        let tid = await onLoop(loop) { currentThreadID() }
        let ran = Atomic<Int>(0)
        for _ in 0..<1_000 { loop.execute { ran.add(1, ordering: .relaxed) } }
        await loop.shutdown()
        #expect(ran.load(ordering: .relaxed) == 1_000)
        #expect(!FileManager.default.fileExists(atPath: "/proc/self/task/\(tid)"), "the thread has exited")
        let after = Mutex<String?>(nil)
        loop.execute { after.withLock { $0 = currentThreadID() } }
        #expect(after.withLock { $0 } == currentThreadID())
        await loop.shutdown()
    }

    /// A task that prefers the loop can shut it down and goes on (on the global pool) afterwards.
    @Test func shutdownFromTheLoopItself() async throws {
        let loop = try ServiceLoop(name: "self-stop")
        let task = Task(executorPreference: loop) {
            await loop.shutdown()
            return loop.isCurrent
        }
        #expect(await task.value == false)
    }
}
