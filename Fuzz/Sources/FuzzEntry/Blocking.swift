import Foundation

/// Runs `body` on Swift's cooperative pool and blocks the calling thread, libFuzzer's own (never one of
/// the pool's), until it returns: the fuzz entry points are synchronous C functions.
public func waitFor<T: Sendable>(_ body: @escaping @Sendable () async -> T) -> T {
    let done = DispatchSemaphore(value: 0)
    let handoff = Handoff<T>()
    Task {
        handoff.value = await body()
        done.signal()
    }
    done.wait()
    return handoff.value!
}

/// A value handed from the task to the waiting thread.
private final class Handoff<T>: @unchecked Sendable {
    // @unchecked: written once by the task before it signals, read by the thread after the wait.
    var value: T?
}
