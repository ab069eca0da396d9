import Foundation
import Synchronization

/// The tasks a mock runs to follow its upstreams, cancelled when the mock (and so this value) goes.
final class Loops: Sendable {
    private let tasks = Mutex<[Task<Void, Never>]>([])

    deinit { tasks.withLock { $0.forEach { $0.cancel() } } }

    /// Keeps `tasks` until this value goes.
    func follow(_ tasks: Task<Void, Never>...) { self.tasks.withLock { $0 += tasks } }
}

/// Opens once; waiters go on then, or when their time is up.
final class Gate: Sendable {
    private let state = Mutex<(open: Bool, waiters: [UUID: CheckedContinuation<Void, Never>])>((false, [:]))

    /// Lets every waiter go on, now and later.
    func open() {
        let waiters = state.withLock { state in
            state.open = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Returns once the gate is open, or after `timeout`.
    func wait(atMost timeout: Duration) async {
        if state.withLock({ $0.open }) { return }
        let id = UUID()
        await withCheckedContinuation { continuation in
            let resumeNow = state.withLock { state in
                if state.open { return true }
                state.waiters[id] = continuation
                return false
            }
            if resumeNow { return continuation.resume() }
            Task {
                try? await Task.sleep(for: timeout)
                state.withLock { $0.waiters.removeValue(forKey: id) }?.resume()
            }
        }
    }
}
